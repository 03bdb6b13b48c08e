"""Cross-process locks: advisory `flock` on a small lock file, released by the kernel if the holder dies
(so a kill -9 never leaves a stale lock). Used for the index writer, maintenance runs, the access journal
and the daemon's project registry."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) for the duration of the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def is_locked(path: Path) -> bool:
    """Whether some process holds `path`'s lock (`file_lock`) now: a probe that never waits and never
    creates the file."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also releases the probe's own shared lock
    return False
