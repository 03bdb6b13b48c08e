"""What a client's transcript (JSONL, one record a line) gained since a byte offset: the conversation's turns
and the files the assistant's tool calls edited (for the session's episode, docs/design.md "Episodes").

Claude Code: user records hold a string or content blocks; assistant records hold blocks. Only text blocks
are turns: tool calls, tool results and thinking are not conversation. Meta records (command output Claude
Code injects), sidechains (sub-agents) and compaction summaries are skipped. A `tool_use` block of an
editing tool (Edit, Write, MultiEdit, NotebookEdit) names the file it changed.

Codex's rollout files are read by `codex_transcript.py` through the same `read_new`."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROLES = ("user", "assistant")
SKIP_FLAGS = ("isMeta", "isSidechain", "isCompactSummary")
# Claude Code's tools that change a file, and the input key naming it.
EDIT_TOOLS = {"Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}


@dataclass(frozen=True)
class ClaudeTurn:
    role: str
    content: str


@dataclass
class TranscriptRead:
    """What the complete lines after an offset held, and the offset to read from next time."""

    turns: list[ClaudeTurn] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)  # files, in the order first edited
    offset: int = 0
    started: str | None = None  # the first record's `timestamp` (both clients write one per record)


@dataclass(frozen=True)
class TranscriptFormat:
    """How one client's records are read: a record's turn, and the files a record says were edited."""

    turn_of: Callable[[Any], ClaudeTurn | None]
    edited_of: Callable[[Any], list[str]]


def turn_from_record(record: Any) -> ClaudeTurn | None:
    if not isinstance(record, dict) or record.get("type") not in ROLES:
        return None
    if any(record.get(flag) for flag in SKIP_FLAGS):
        return None
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    text = _text_of(content).strip()
    return ClaudeTurn(record["type"], text) if text else None


def edited_files_of(record: Any) -> list[str]:
    """The files an assistant record's editing tool calls name."""
    if not isinstance(record, dict) or record.get("type") != "assistant" or record.get("isSidechain"):
        return []
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    found = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") in EDIT_TOOLS:
            tool_input = block.get("input")
            path = tool_input.get(EDIT_TOOLS[block["name"]]) if isinstance(tool_input, dict) else None
            if isinstance(path, str) and path:
                found.append(path)
    return found


CLAUDE = TranscriptFormat(turn_from_record, edited_files_of)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [block.get("text", "") for block in content if isinstance(block, dict) and block.get("type") == "text"]
        return "\n\n".join(part for part in parts if isinstance(part, str) and part)
    return ""


def parse_records(data: bytes, how: TranscriptFormat = CLAUDE) -> TranscriptRead:
    """Turns and edited files in the complete lines of `data`; `offset`: how many bytes those lines take (a
    line still being written is left for next time)."""
    end = data.rfind(b"\n") + 1
    read = TranscriptRead(offset=end)
    for line in data[:end].splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a damaged line is not worth losing the rest
        if read.started is None and isinstance(record, dict) and isinstance(record.get("timestamp"), str):
            read.started = record["timestamp"]
        turn = how.turn_of(record)
        if turn is not None:
            read.turns.append(turn)
        read.edited.extend(path for path in how.edited_of(record) if path not in read.edited)
    return read


def parse_turns(data: bytes) -> tuple[list[ClaudeTurn], int]:
    """Claude Code turns in the complete lines of `data`, and how many bytes those lines take."""
    read = parse_records(data)
    return read.turns, read.offset


def read_new(path: Path, offset: int, how: TranscriptFormat = CLAUDE) -> TranscriptRead:
    """Turns and edited files after `offset`; `offset` of the result: where to start next time. A file
    shorter than the offset was replaced: it is read from the start."""
    size = path.stat().st_size
    if offset > size:
        offset = 0
    with open(path, "rb") as handle:
        handle.seek(offset)
        data = handle.read()
    read = parse_records(data, how)
    read.offset += offset
    return read


def read_new_turns(path: Path, offset: int) -> tuple[list[ClaudeTurn], int]:
    """Claude Code turns after `offset`, and the offset to start from next time."""
    read = read_new(path, offset)
    return read.turns, read.offset
