"""Output: JSON for tools, rich tables and plain lines for people, errors as one line plus a hint."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path, PurePath
from typing import Any

from rich.console import Console
from rich.table import Table

from aimate_memory.vault.model import Memory

# Piped output is not wrapped at rich's default 80 columns: tables stay one row per memory.
console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def _json_default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (PurePath, Path)):
        return str(value)
    if hasattr(value, "value"):
        return value.value
    return str(value)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=_json_default) + "\n")


def print_error(message: str, hint: str | None) -> None:
    err_console.print(f"[bold red]error:[/] {_escape(message)}")
    if hint:
        err_console.print(f"[dim]hint:[/] {_escape(hint)}")


def print_warning(message: str) -> None:
    err_console.print(f"[yellow]warning:[/] {_escape(message)}")


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def memory_table(memories: list[Memory]) -> Table:
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for column in ("id", "scope", "layer", "category", "title", "tags", "imp", "updated"):
        wraps = column in ("title", "tags")
        table.add_column(column, no_wrap=not wraps, overflow="fold", ratio=3 if column == "title" else None)
    for memory in memories:
        table.add_row(
            memory.id[:8],
            memory.scope.value,
            memory.layer.value,
            memory.category,
            _escape(memory.title),
            _escape(", ".join(memory.tags)),
            str(memory.importance),
            memory.updated_at.strftime("%Y-%m-%d"),
        )
    return table


def frontmatter_json(memory: Memory) -> dict[str, Any]:
    """All frontmatter keys as JSON-safe values, including the ones the tool does not know."""
    if memory.doc is None:
        return {}
    return json.loads(json.dumps(dict(memory.doc.meta), default=_json_default, ensure_ascii=False))
