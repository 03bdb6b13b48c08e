"""The turns a Claude Code transcript (JSONL, one record a line) gained since a byte offset.

User records hold a string or content blocks; assistant records hold blocks. Only text blocks are turns:
tool calls, tool results and thinking are not conversation. Meta records (command output Claude Code
injects), sidechains (sub-agents) and compaction summaries are skipped."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROLES = ("user", "assistant")
SKIP_FLAGS = ("isMeta", "isSidechain", "isCompactSummary")


@dataclass(frozen=True)
class ClaudeTurn:
    role: str
    content: str


def turn_from_record(record: Any) -> ClaudeTurn | None:
    if not isinstance(record, dict) or record.get("type") not in ROLES:
        return None
    if any(record.get(flag) for flag in SKIP_FLAGS):
        return None
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    text = _text_of(content).strip()
    return ClaudeTurn(record["type"], text) if text else None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [block.get("text", "") for block in content if isinstance(block, dict) and block.get("type") == "text"]
        return "\n\n".join(part for part in parts if isinstance(part, str) and part)
    return ""


def parse_turns(data: bytes) -> tuple[list[ClaudeTurn], int]:
    """Turns in the complete lines of `data`, and how many bytes those lines take (a line still being
    written is left for next time)."""
    end = data.rfind(b"\n") + 1
    turns = []
    for line in data[:end].splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a damaged line is not worth losing the rest
        turn = turn_from_record(record)
        if turn is not None:
            turns.append(turn)
    return turns, end


def read_new_turns(path: Path, offset: int) -> tuple[list[ClaudeTurn], int]:
    """Turns after `offset`, and the offset to start from next time. A file shorter than the offset was
    replaced: it is read from the start."""
    size = path.stat().st_size
    if offset > size:
        offset = 0
    with open(path, "rb") as handle:
        handle.seek(offset)
        data = handle.read()
    turns, consumed = parse_turns(data)
    return turns, offset + consumed
