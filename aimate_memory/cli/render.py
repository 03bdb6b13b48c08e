"""rich's consoles, for the commands that print rich output (help-like listings, progress, syntax); the lines,
JSON, errors, warnings and tables every command prints are `cli.plain`'s, re-exported here."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console

from aimate_memory.cli.plain import (
    MEMORY_COLUMNS,
    memory_rows,
    print_error,
    print_json,
    print_table,
    print_warning,
    text_table,
)
from aimate_memory.system.masking import mask_text


class _MaskingConsole(Console):
    """A console that masks every secret in the text it prints (docs/reliability.md "Security"): a file a
    person let a secret into (--allow-secret), a path, an error quoting input. `show` without --json
    writes the file itself and is the one place such a secret is shown whole."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(mask_text(item) if isinstance(item, str) else item for item in objects), **kwargs)


# Piped output is not wrapped at rich's default 80 columns: tables stay one row per memory.
console = _MaskingConsole(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err_console = _MaskingConsole(stderr=True, highlight=False, soft_wrap=True)

__all__ = [
    "MEMORY_COLUMNS",
    "console",
    "err_console",
    "memory_rows",
    "print_error",
    "print_json",
    "print_table",
    "print_warning",
    "text_table",
]
