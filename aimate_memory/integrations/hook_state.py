"""Per-session bookkeeping of the hooks in `$AIMATE_HOME/state/hooks.json`: how far each client session's
transcript has been read, and whether its first prompt already got the session context (Kimi)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from aimate_memory.locks import file_lock
from aimate_memory.vault.atomic import atomic_write_text

STATE_FILE = "hooks.json"
MAX_SESSIONS = 200  # the oldest entries go first; a session that old has long ended


@dataclass
class SessionMark:
    offset: int = 0
    primed: bool = False
    seen: str = ""  # ISO time of the last hook run, to forget the oldest
    # The person's own words of the session's last prompts (integrations/hooks.py `_prompt_query`): a
    # follow-up ("and the other one?") is searched with what it follows.
    recent: list[str] = field(default_factory=list)


@contextlib.contextmanager
def session_mark(state_dir: Path, session_id: str, now: str) -> Iterator[SessionMark]:
    """The mark of one session, locked for the block and saved after it (also when it changed nothing:
    `seen` moves on)."""
    path = state_dir / STATE_FILE
    with file_lock(state_dir / (STATE_FILE + ".lock")):
        sessions = _load(path)
        mark = SessionMark(**sessions.get(session_id, {}))
        yield mark
        mark.seen = now
        sessions[session_id] = asdict(mark)
        newest = sorted(sessions.items(), key=lambda item: item[1].get("seen", ""), reverse=True)[:MAX_SESSIONS]
        atomic_write_text(path, json.dumps({"sessions": dict(newest)}, ensure_ascii=False, indent=1) + "\n")


def known_session(state_dir: Path, session_id: str) -> bool:
    """Whether a hook has kept a mark for this session (read a transcript of it, or primed it): a peek
    without the lock, for a hook deciding it has nothing to do."""
    return session_id in _load(state_dir / STATE_FILE)


def _load(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}  # a damaged state file costs re-reading transcripts, never a failed hook
    sessions = data.get("sessions") if isinstance(data, dict) else None
    if not isinstance(sessions, dict):
        return {}
    fields = set(SessionMark.__dataclass_fields__)
    return {
        key: {name: value for name, value in entry.items() if name in fields}
        for key, entry in sessions.items()
        if isinstance(entry, dict)
    }
