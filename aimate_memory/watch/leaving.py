"""When a daemon leaves on its own (docs/agents.md, "When the daemon leaves"): its home is gone — the folder
deleted, or another folder now at its path — or it was autostarted and has served nothing for
`daemon.idle_exit_minutes`. A daemon a person started (`aimate mem daemon start`, a user service) is theirs
to stop and never leaves for being idle.

Why a timer and not an event: a deleted home takes the watched vault with it, but the watcher's events are
per vault and may never come (a home without a vault, a home moved away). One look every
`daemon.leave_check_seconds` (a `stat` of the home) costs nothing measurable and bounds how long an orphaned
daemon stays (test runs left nine of them, 235 MB each, issue 38)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class HomeMark:
    """The home as the daemon found it at start: its folder's device and inode."""

    device: int
    inode: int

    @classmethod
    def of(cls, home: Path) -> HomeMark:
        info = os.stat(home)
        return cls(info.st_dev, info.st_ino)

    def still_there(self, home: Path) -> bool:
        """The same folder is still at `home` (not deleted, not replaced by a new one of the same name)."""
        try:
            info = os.stat(home)
        except OSError:
            return False
        return (info.st_dev, info.st_ino) == (self.device, self.inode)


def reason_to_leave(home_there: bool, autostarted: bool, idle_seconds: float, idle_limit_seconds: float) -> str | None:
    """Why the daemon should exit now, or None to stay. `idle_limit_seconds` ≤ 0: never for being idle."""
    if not home_there:
        return "its home folder was deleted or replaced"
    if autostarted and idle_limit_seconds > 0 and idle_seconds >= idle_limit_seconds:
        return f"autostarted and idle for {idle_seconds / 60:.0f} min (daemon.idle_exit_minutes)"
    return None
