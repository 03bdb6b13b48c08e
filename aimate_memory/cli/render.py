"""Output: JSON for tools, aligned columns and plain lines for people, errors as one line plus a hint."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.console import Console

from aimate_memory.system.masking import mask_data, mask_text
from aimate_memory.system.records import json_default


class _MaskingConsole(Console):
    """A console that masks every secret in the text it prints (docs/reliability.md "Security"): a file a
    person let a secret into (--allow-secret), a path, an error quoting input. `show` without --json
    writes the file itself and is the one place such a secret is shown whole."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*(mask_text(item) if isinstance(item, str) else item for item in objects), **kwargs)


# Piped output is not wrapped at rich's default 80 columns: tables stay one row per memory.
console = _MaskingConsole(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err_console = _MaskingConsole(stderr=True, highlight=False, soft_wrap=True)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(mask_data(data), ensure_ascii=False, indent=2, default=json_default) + "\n")


def print_error(message: str, hint: str | None) -> None:
    err_console.print(f"[bold red]error:[/] {_escape(message)}")
    if hint:
        err_console.print(f"[dim]hint:[/] {_escape(hint)}")


def print_warning(message: str) -> None:
    err_console.print(f"[yellow]warning:[/] {_escape(message)}")


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


MEMORY_COLUMNS = ("id", "scope", "layer", "category", "title", "tags", "imp", "updated")
COLUMN_GAP = "  "
NARROWEST = 8  # a column cut to fit a terminal keeps at least this many cells


def memory_rows(memories: Sequence[dict[str, Any]]) -> list[tuple[str, ...]]:
    """The table rows of memories given as `Memory.public_dict()` (what the daemon sends too)."""
    return [
        (
            str(memory["id"])[:8],
            str(memory["scope"]),
            str(memory["layer"]),
            str(memory["category"]),
            str(memory["title"]),
            ", ".join(memory.get("tags") or ()),
            str(memory["importance"]),
            str(memory["updated_at"])[:10],
        )
        for memory in memories
    ]


def text_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], width: int | None, cuttable: Sequence[str] = ()
) -> list[str]:
    """Rows as columns two spaces apart, one line per row, widths in terminal cells (a Chinese character is
    two). With a `width` (a terminal) the `cuttable` columns give up room, widest first, and their text ends
    in "…"; without one (piped into a tool) nothing is cut. rich's Table drew 10,000 memories in 5.5 s, this
    in well under one (docs/benchmarks.md)."""
    cells = [[" ".join(str(value).split()) for value in row] for row in rows]
    widths = [max([cell_len(header), *(cell_len(row[i]) for row in cells)]) for i, header in enumerate(headers)]
    if width is not None:
        _fit(widths, [headers.index(name) for name in cuttable], width - len(COLUMN_GAP) * (len(headers) - 1))
    return [_line([*headers], widths)] + [_line(row, widths) for row in cells]


def _fit(widths: list[int], cuttable: list[int], room: int) -> None:
    while sum(widths) > room:
        widest = max(cuttable, key=lambda i: widths[i], default=None)
        if widest is None or widths[widest] <= NARROWEST:
            return
        widths[widest] -= 1


def _line(cells: list[str], widths: list[int]) -> str:
    out = []
    for text, width in zip(cells, widths, strict=True):
        if cell_len(text) > width:
            text = set_cell_size(text, width - 1).rstrip() + "…"  # a wide character that does not fit: no gap
        out.append(text + " " * (width - cell_len(text)))
    return COLUMN_GAP.join(out).rstrip()


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]], cuttable: Sequence[str] = ()) -> None:
    """A table on standard output: fitted to the terminal and its header bold there (unless NO_COLOR), whole
    lines when piped."""
    terminal = sys.stdout.isatty()
    rows = [[mask_text(cell) for cell in row] for row in rows]
    lines = text_table(headers, rows, console.width if terminal else None, cuttable)
    if terminal and not console.no_color:
        lines[0] = f"\x1b[1m{lines[0]}\x1b[0m"
    sys.stdout.write("\n".join(lines) + "\n")
