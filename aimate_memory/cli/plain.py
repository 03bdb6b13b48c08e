"""Output without rich: styled lines, JSON, errors and warnings, the people's table.

Both the typer commands and the fast path (`cli.fast`, which never imports typer or rich: docs/agents.md,
"Latency") print through these, so a command prints the same bytes whichever answered it. A style is an SGR
code written only to a terminal, and not under NO_COLOR or TERM=dumb — what rich did for these commands;
piped output is the plain text. Every line is masked (docs/reliability.md "Security") and loses the control
characters that would move a terminal's cursor (as rich's Text dropped them)."""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from collections.abc import Sequence
from typing import Any, TextIO

from aimate_memory.system.masking import mask_data, mask_text
from aimate_memory.system.records import json_default

STYLES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "bold red": "1;31",
    "bold yellow": "1;33",
}
CURSOR_CONTROLS = str.maketrans("", "", "\x07\x08\x0b\x0c\x0d")  # bell, backspace, VT, FF, CR


def colored(stream: TextIO) -> bool:
    """Styles on `stream`: a terminal, unless the person turned colour off."""
    if os.environ.get("NO_COLOR", "") != "" or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def style(name: str, text: str, stream: TextIO | None = None) -> str:
    """`text` in the style `name` (a key of STYLES) for `stream` (standard output by default)."""
    if not text or not colored(stream or sys.stdout):
        return text
    return f"\x1b[{STYLES[name]}m{text}\x1b[0m"


def say(line: str = "", stream: TextIO | None = None) -> None:
    """One line (or several joined by newlines) on `stream`, masked, as one write."""
    (stream or sys.stdout).write(mask_text(line).translate(CURSOR_CONTROLS) + "\n")


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(mask_data(data), ensure_ascii=False, indent=2, default=json_default) + "\n")


def print_error(message: str, hint: str | None) -> None:
    say(f"{style('bold red', 'error:', sys.stderr)} {message}", sys.stderr)
    if hint:
        say(f"{style('dim', 'hint:', sys.stderr)} {hint}", sys.stderr)


def print_warning(message: str) -> None:
    say(f"{style('yellow', 'warning:', sys.stderr)} {message}", sys.stderr)


# -- the people's table ----------------------------------------------------------------------------

MEMORY_COLUMNS = ("id", "scope", "layer", "category", "title", "tags", "imp", "updated")
COLUMN_GAP = "  "
NARROWEST = 8  # a column cut to fit a terminal keeps at least this many cells


def char_cells(char: str) -> int:
    """Terminal cells of one character: two for East Asian wide and full-width ones, none for combining marks
    and format characters."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cell_len(text: str) -> int:
    if text.isascii():  # nearly every cell of a table: one cell a character, no lookups
        return len(text)
    return sum(char_cells(char) for char in text)


def set_cell_size(text: str, width: int) -> str:
    """`text` cut or padded to exactly `width` cells; a wide character that would straddle the edge is left out
    (its cell padded)."""
    out, used = [], 0
    for char in text:
        cells = char_cells(char)
        if used + cells > width:
            break
        out.append(char)
        used += cells
    return "".join(out) + " " * (width - used)


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
    width = None
    if terminal:
        import shutil  # a terminal's width (COLUMNS first); piped output is never cut

        width = shutil.get_terminal_size().columns
    lines = text_table(headers, rows, width, cuttable)
    lines[0] = style("bold", lines[0])
    sys.stdout.write("\n".join(lines) + "\n")
