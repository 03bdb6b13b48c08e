"""Which vaults have a sync queued, and which paths that sync must look at.

File events arrive faster than syncs run: while a vault's sync waits in the task queue, later changes are
merged into it instead of queueing another (one queued sync per vault). A sync that must walk the whole
vault (start, lost events) absorbs every path list. No I/O: a thread-safe record, tested without a disk.
"""

from __future__ import annotations

import threading


class PendingRefreshes:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._paths: dict[str, set[str] | None] = {}  # vault key → paths to look at; None = the whole vault
        self._queued: set[str] = set()

    def add(self, key: str, paths: set[str] | None) -> bool:
        """Record what changed in vault `key` (None: anything may have). True when no sync of `key` is
        queued yet — the caller queues one; False when the queued one will cover it."""
        with self._lock:
            pending = self._paths.get(key, set())
            self._paths[key] = None if paths is None or pending is None else pending | paths
            if key in self._queued:
                return False
            self._queued.add(key)
            return True

    def has(self, key: str) -> bool:
        """Whether changes of `key` are recorded and not taken yet (their sync may still wait in the queue)."""
        with self._lock:
            return key in self._paths

    def started(self, key: str) -> None:
        """The queued sync of `key` starts: changes from now on need a sync of their own."""
        with self._lock:
            self._queued.discard(key)

    def take(self, key: str) -> set[str] | None:
        """The paths recorded for `key`, forgotten here; None = walk the whole vault (also when nothing
        was recorded: a sync nobody asked paths for looks everywhere)."""
        with self._lock:
            return self._paths.pop(key, None)
