"""Codex's rollout transcript (`~/.codex/sessions/…/rollout-*.jsonl`, the `transcript_path` its hooks send):
one `{"timestamp", "type", "payload"}` record a line (openai/codex `codex-rs/protocol`, RolloutItem).

- The conversation is in `event_msg` records: `user_message` (what the person typed, without the
  environment context Codex adds to the model's input) and `agent_message` (the assistant's reply).
  `response_item` messages repeat both, with Codex's own instructions as user input: not read.
- Edits are `apply_patch` calls: a `custom_tool_call` whose `input` is the patch, or a `function_call`
  whose JSON `arguments` carry it as `input`. A patch names its files on `*** Add File: …`,
  `*** Update File: …`, `*** Delete File: …` and `*** Move to: …` lines."""

from __future__ import annotations

import json
import re
from typing import Any

from aimate_memory.integrations.claude_transcript import ClaudeTurn, TranscriptFormat

MESSAGE_ROLES = {"user_message": "user", "agent_message": "assistant"}
PATCH_TOOL = "apply_patch"
PATCH_FILE = re.compile(r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$", re.MULTILINE)


def turn_from_record(record: Any) -> ClaudeTurn | None:
    payload = _payload(record, "event_msg")
    role = MESSAGE_ROLES.get(str(payload.get("type"))) if payload else None
    message = payload.get("message") if payload else None
    if role is None or not isinstance(message, str) or not message.strip():
        return None
    return ClaudeTurn(role, message.strip())


def edited_files_of(record: Any) -> list[str]:
    payload = _payload(record, "response_item")
    if not payload or payload.get("name") != PATCH_TOOL:
        return []
    patch: Any = None
    if payload.get("type") == "custom_tool_call":
        patch = payload.get("input")
    elif payload.get("type") == "function_call":
        try:
            arguments = json.loads(str(payload.get("arguments") or "{}"))
        except ValueError:
            return []
        patch = arguments.get("input") if isinstance(arguments, dict) else None
    return PATCH_FILE.findall(patch) if isinstance(patch, str) else []


def _payload(record: Any, kind: str) -> dict[str, Any] | None:
    if not isinstance(record, dict) or record.get("type") != kind:
        return None
    payload = record.get("payload")
    return payload if isinstance(payload, dict) else None


CODEX = TranscriptFormat(turn_from_record, edited_files_of)
