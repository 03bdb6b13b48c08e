"""A session transcript as Markdown: one block per turn, appended at the end, so the file diffs well.

    ### 3 · user · 2026-11-24T10:00:00+00:00 · 12 tokens

    the turn's text, exactly as given

Turns are numbered from 1 in the headers (what a person reads); in code a turn is addressed by its
0-based index. The text is kept byte for byte: a line of the text that would read as a turn header, or
as a git conflict marker (which makes the vault refuse the file), gets one backslash in front when
written and loses it when read — lines that already start with backslashes before such a line get one
more, so every text round-trips exactly (Chinese, English, `---`, headings, code fences included).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

SEPARATOR = " · "
_HEADER = re.compile(r"^### (\d+) · ([\w-]+) · (\S+) · (\d+) tokens?$", re.MULTILINE)
# Lines that must not be read as structure: a turn header (with or without escapes) or a conflict marker.
_NEEDS_ESCAPE = re.compile(r"^\\*(?:### \d+ · |<{7}(?: |$)|>{7}(?: |$)|={7}$)")
_ESCAPED = re.compile(r"^\\+(?:### \d+ · |<{7}(?: |$)|>{7}(?: |$)|={7}$)")


@dataclass(frozen=True)
class Turn:
    role: str  # user, assistant, system, tool (a word: letters, digits, `_`, `-`)
    time: datetime
    tokens: int
    text: str


def render_turn(number: int, turn: Turn) -> str:
    """The block of turn `number` (1-based): header, blank line, text, blank line."""
    header = SEPARATOR.join((f"### {number}", turn.role, turn.time.isoformat(), f"{turn.tokens} tokens"))
    return f"{header}\n\n{_escape(turn.text)}\n\n"


def render_turns(turns: Sequence[Turn], first_number: int = 1) -> str:
    return "".join(render_turn(first_number + offset, turn) for offset, turn in enumerate(turns))


def parse_turns(body: str) -> list[Turn]:
    """Every turn block in a session body, in order; text before the first header (a title) is skipped."""
    headers = list(_HEADER.finditer(body))
    turns: list[Turn] = []
    for position, header in enumerate(headers):
        end = headers[position + 1].start() if position + 1 < len(headers) else len(body)
        turns.append(_turn(header, body[header.end() : end]))
    return turns


def _turn(header: re.Match[str], block: str) -> Turn:
    # After the header line a block is "\n" + "\n" + text + "\n\n"; a hand edit may drop blank lines.
    text = block.removeprefix("\n").removeprefix("\n")
    text = text[:-2] if text.endswith("\n\n") else text.removesuffix("\n")
    return Turn(
        role=header.group(2),
        time=datetime.fromisoformat(header.group(3)),
        tokens=int(header.group(4)),
        text=_unescape(text),
    )


def _escape(text: str) -> str:
    return "\n".join("\\" + line if _NEEDS_ESCAPE.match(line) else line for line in text.split("\n"))


def _unescape(text: str) -> str:
    return "\n".join(line[1:] if _ESCAPED.match(line) else line for line in text.split("\n"))


def total_tokens(turns: Iterable[Turn]) -> int:
    return sum(turn.tokens for turn in turns)
