"""What a client sends a hook on stdin, and what the hook prints back, per client and event.

Claude Code sends `{"session_id", "transcript_path", "cwd", "hook_event_name", "source" | "prompt" | …}` and
reads `{"hookSpecificOutput": {"hookEventName": …, "additionalContext": …}, "systemMessage": …}` from
SessionStart and UserPromptSubmit (the system message is shown to the user). Codex sends the same fields
(plus `model`, `turn_id`; `transcript_path` may be null) and reads the same output (openai/codex
`codex-rs/hooks/schema`). Kimi Code CLI sends the same common fields without a transcript, and takes plain
text; Kimi Code 2.1 sends `prompt` as the message's content parts, `[{"type": "text", "text": …}]` (checked
2026-11-28 with a `tee` in the hook command: `kimi -p` on Node 24), which count as the text of their
text parts."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from pathlib import Path


class Client(str, Enum):
    CLAUDE = "claude"
    CODEX = "codex"
    KIMI = "kimi"


class HookKind(str, Enum):
    """Our three hook commands; `session-end` serves both PreCompact and SessionEnd."""

    SESSION_START = "session-start"
    PROMPT = "prompt"
    SESSION_END = "session-end"


# The event name a client expects back in hookSpecificOutput when the payload does not say.
DEFAULT_EVENT = {
    HookKind.SESSION_START: "SessionStart",
    HookKind.PROMPT: "UserPromptSubmit",
    HookKind.SESSION_END: "SessionEnd",
}
# Claude Code reads additionalContext only from these events.
CONTEXT_EVENTS = {"SessionStart", "UserPromptSubmit"}


@dataclass(frozen=True)
class HookEvent:
    kind: HookKind
    event_name: str
    session_id: str
    cwd: Path | None
    transcript_path: Path | None
    source: str | None
    prompt: str | None

    @property
    def ends_session(self) -> bool:
        """SessionEnd closes our session; PreCompact (or Codex's per-turn Stop) only saves the turns so far."""
        return self.kind is HookKind.SESSION_END and self.event_name == "SessionEnd"


def parse_event(kind: HookKind, stdin_text: str) -> HookEvent:
    """The payload as a HookEvent; ValueError when it is not a JSON object."""
    payload = json.loads(stdin_text)
    if not isinstance(payload, dict):
        raise ValueError(f"hook payload is a JSON {type(payload).__name__}, not an object")

    def text(key: str) -> str | None:
        value = payload.get(key)
        return value if isinstance(value, str) and value else None

    def path(key: str) -> Path | None:
        value = text(key)
        return Path(value).expanduser() if value else None

    return HookEvent(
        kind=kind,
        event_name=text("hook_event_name") or DEFAULT_EVENT[kind],
        session_id=text("session_id") or "unknown",
        cwd=path("cwd"),
        transcript_path=path("transcript_path"),
        source=text("source"),
        prompt=text("prompt") or _parts_text(payload.get("prompt")),
    )


def _parts_text(value: object) -> str | None:
    """The text of a list of content parts (`{"type": "text", "text": …}`); None when there is none."""
    if not isinstance(value, list):
        return None
    texts = [part["text"] for part in value if isinstance(part, dict) and isinstance(part.get("text"), str)]
    joined = "\n".join(text for text in texts if text)
    return joined or None


def render_output(client: Client, event: HookEvent, context: str, *, notice: str = "") -> str:
    """What the hook prints: nothing when there is nothing to add. `notice` is for the person: Claude Code
    shows a `systemMessage` to the user; Kimi prints the text, where the caller has already put it."""
    if not context.strip():
        return ""
    if client is Client.KIMI:
        return context.rstrip() + "\n"
    if event.event_name not in CONTEXT_EVENTS:
        return ""
    output: dict[str, object] = {
        "hookSpecificOutput": {"hookEventName": event.event_name, "additionalContext": context.rstrip()}
    }
    if notice.strip():
        output["systemMessage"] = notice.strip()
    return json.dumps(output, ensure_ascii=False) + "\n"
