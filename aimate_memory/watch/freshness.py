"""Freshness for a long-lived face without a daemon (the MCP server): a file watcher says what changed, so
a read syncs those paths rather than stat-walking the whole vault first (docs/benchmarks.md, "Warm MCP").

The first read of a vault syncs it whole (what changed while nobody watched) and starts watching it; each
later read syncs the paths whose events arrived since — delivered by the watcher after their debounce, or
still settling (taken at once) — after a barrier (`Watcher.barrier`) that makes sure the events of a write
made a moment ago have arrived: a change made by hand is seen by the very next read. A lost-events overflow or a dead
observer means one whole sync again. Events are collected on the watcher's threads; the index is only
touched by the thread that reads (SQLite connections belong to their thread)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from aimate_memory.watch.watcher import DEBOUNCE_SECONDS, Watcher

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem


class WatchedFreshness:
    """`system.client.Freshness` from file events."""

    def __init__(self, debounce: float = DEBOUNCE_SECONDS) -> None:
        self._debounce = debounce
        self._watcher: Watcher | None = None
        self._lock = threading.Lock()
        self._delivered: dict[str, set[str]] = {}  # vault root → paths due since the last read
        self._full: set[str] = set()  # vault roots whose events were lost
        self._watched: set[str] = set()

    def refresh(self, system: MemorySystem) -> None:
        watcher = self._started()
        for vault in system.vaults:
            key = str(vault.root)
            if key not in self._watched:
                watcher.add(key, vault.root)  # first: nothing written during the whole sync is missed
                self._watched.add(key)
                system.store.refresh_vault(vault)
                continue
            seen_all = watcher.barrier(key)  # a write made a moment ago is among the events taken next
            settling, overflowed = watcher.take(key)
            with self._lock:
                paths = self._delivered.pop(key, set()) | settling
                full = overflowed or not seen_all or key in self._full
                self._full.discard(key)
            if full:
                system.store.refresh_vault(vault)
            elif paths:
                system.store.refresh_vault(vault, paths)

    def _started(self) -> Watcher:
        if self._watcher is None:
            self._watcher = Watcher(self._on_dirty, debounce=self._debounce)
            self._watcher.start()
        return self._watcher

    def _on_dirty(self, key: str, paths: set[str], full: bool) -> None:
        with self._lock:
            if full:
                self._full.add(key)
            self._delivered.setdefault(key, set()).update(paths)

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        self._watched.clear()
