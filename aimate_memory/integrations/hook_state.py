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
    started: str = ""  # ISO time of the transcript's first record: when the session began (its episode)
    # Where a session-start hook saw it, so the next one can close it if its client died (`idle_sessions`).
    transcript: str = ""
    cwd: str = ""
    client: str = ""
    ended: bool = False
    # The person's own words of the session's last prompts (integrations/hooks.py `_prompt_query`): a
    # follow-up ("and the other one?") is searched with what it follows.
    recent: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class IdleSession:
    session_id: str
    client: str
    transcript: Path


def idle_sessions(state_dir: Path, cwd: Path, current: str, idle_seconds: float, now: float) -> list[IdleSession]:
    """Sessions a hook saw start in `cwd` that never ended and whose transcript has not changed for
    `idle_seconds`: their client died without a SessionEnd. The transcript's mtime is the liveness signal
    (every turn writes it), so a window left open over lunch is not taken for dead unless it is."""
    found = []
    for session_id, entry in _load(state_dir / STATE_FILE).items():
        mark = SessionMark(**entry)
        if session_id == current or mark.ended or not mark.transcript or mark.cwd != str(cwd):
            continue
        transcript = Path(mark.transcript)
        try:
            quiet = now - transcript.stat().st_mtime
        except OSError:
            continue
        if quiet >= idle_seconds:
            found.append(IdleSession(session_id, mark.client, transcript))
    return found


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
