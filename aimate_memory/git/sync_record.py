"""What the last sync of the global vault did, kept in `$AIMATE_HOME/state/sync.json` (0600) by whoever ran it —
the daemon's auto-sync or `aimate mem sync` — for `sync --status` and for the next session start, which shows
a failure to the person (docs/agents.md, "Sync that runs itself")."""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from aimate_memory.vault.atomic import atomic_write_text

RECORD_FILE = "sync.json"


@dataclass
class SyncRecord:
    at: str  # ISO 8601, when it finished
    ok: bool
    by: str  # "daemon" (auto-sync) or "cli"
    summary: str = ""  # SyncResult.summary() when it ran
    error: str = ""  # the error's line (and hint) when it failed
    left_out: list[str] = field(default_factory=list)  # uncommitted files it did not send
    last_ok: str | None = None  # when a sync last succeeded (kept across failures)
    result: Any = field(default=None, repr=False, compare=False)  # the SyncResult, in memory only

    def notice(self) -> str:
        """The session start's line for a failed sync; empty when the last one succeeded."""
        if self.ok:
            return ""
        since = f" (last successful sync {self.last_ok})" if self.last_ok else ""
        how = "automatic sync" if self.by == "daemon" else "sync"
        return f"AIMate: the {how} of your memory with git.remote failed at {self.at}{since}: {self.error}"


def read_record(state_dir: Path) -> SyncRecord | None:
    with contextlib.suppress(OSError, ValueError, TypeError):
        data = json.loads((state_dir / RECORD_FILE).read_text(encoding="utf-8"))
        return SyncRecord(
            **{key: data[key] for key in SyncRecord.__dataclass_fields__ if key in data and key != "result"}
        )
    return None


def write_record(state_dir: Path, record: SyncRecord) -> None:
    """Atomic, 0600 (the error can name the remote); a failure keeps the time of the last success."""
    if not record.ok and record.last_ok is None:
        previous = read_record(state_dir)
        record.last_ok = previous.at if previous and previous.ok else (previous.last_ok if previous else None)
    if record.ok:
        record.last_ok = record.at
    with contextlib.suppress(OSError):
        state_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write_text(state_dir / RECORD_FILE, json.dumps(as_dict(record), ensure_ascii=False, indent=2) + "\n")
        (state_dir / RECORD_FILE).chmod(0o600)


def as_dict(record: SyncRecord | None) -> dict[str, Any] | None:
    if record is None:
        return None
    data = asdict(record)
    data.pop("result")
    return data
