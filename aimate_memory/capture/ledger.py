"""What the person said in which sessions, as hashes in the global state folder (never committed, never synced,
no text kept): a statement heard again in another session is evidence that it holds, so that session's end
proposes it first and whatever the model's confidence (docs/design.md, "Capture from a conversation").

The prompt hook notes each prompt's statements as they are said (`capture/heard.py`, cue tables only: a few
milliseconds); a session's end notes all of its turns too (a session the hook did not see), then reads how
many other sessions heard each of its statements.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from aimate_memory.locks import file_lock
from aimate_memory.vault.atomic import atomic_write_text

LEDGER_FILE = "heard_statements.json"
MAX_STATEMENTS = 5000  # statements kept, the most recently heard last
MAX_SESSIONS = 8  # sessions kept per statement: more says nothing new


def _hashed(text: str, size: int) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:size]


class HeardLedger:
    """`note(session, keys)` after a turn or a session; `sessions_besides(session)` to count the evidence. A
    key is a statement's normalized words (`Heard.key`); stored hashed, like the session."""

    def __init__(self, state_dir: Path) -> None:
        self._path = state_dir / LEDGER_FILE

    def note(self, session: str, keys: Iterable[str]) -> None:
        """Record that `session` heard the statements of `keys` (each once per session)."""
        wanted = [_hashed(key, 24) for key in dict.fromkeys(keys)]
        if not wanted:
            return
        tag = _hashed(session, 12)
        with file_lock(self._path.with_name(LEDGER_FILE + ".lock")):
            known = self._read()
            for statement in wanted:
                heard_in = [other for other in known.pop(statement, []) if other != tag]
                known[statement] = [*heard_in, tag][-MAX_SESSIONS:]  # re-inserted: the most recent last
            kept = dict(list(known.items())[-MAX_STATEMENTS:])
            self._path.parent.mkdir(parents=True, exist_ok=True)
            # Not synced to disk: a write lost in a crash costs evidence, and the hook stays fast.
            atomic_write_text(self._path, json.dumps(kept) + "\n", durable=False)

    def sessions_besides(self, session: str) -> dict[str, int]:
        """Per hashed statement, the number of sessions other than `session` that heard it (only those with
        one or more); `count(key)` reads it for a statement's key."""
        tag = _hashed(session, 12)
        return {statement: n for statement, tags in self._read().items() if (n := len(set(tags) - {tag}))}

    @staticmethod
    def hashed(key: str) -> str:
        return _hashed(key, 24)

    def _read(self) -> dict[str, list[str]]:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except (FileNotFoundError, ValueError):
            return {}  # a damaged ledger costs the evidence of earlier sessions, never a failed hook
        if not isinstance(data, dict):
            return {}
        return {str(k): [str(t) for t in v] for k, v in data.items() if isinstance(v, list)}
