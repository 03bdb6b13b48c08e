"""Sync that runs itself (docs/agents.md, "Sync that runs itself"): with `git.remote` set, the daemon pulls and
pushes the global vault — `git/sync.py`'s one sync, so the same merge rules and never a force-push —

- every `sync.interval` seconds;
- `sync.debounce` seconds after the global vault last changed (a burst of writes is one sync);
- when the remote moved: every `sync.poll` seconds one `git ls-remote` (no objects) compares the remote's
  branch with where this device last synced it, so a change pushed by another device arrives within seconds.

Each sync runs as a task on the daemon's one queue (never beside an index write) and leaves its record in
`state/sync.json` (`git/sync_record.py`): `aimate mem sync --status` reads it, and the next session start
shows a failure. A failure is logged and retried at the next trigger; it never stops the daemon."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.watch.tasks import Result, TaskQueue

log = logging.getLogger("aimate.daemon")


class AutoSync:
    def __init__(self, tasks: TaskQueue, global_system: Callable[[], MemorySystem]) -> None:
        self._tasks = tasks
        self._system = global_system
        self._debounce: threading.Timer | None = None
        self._lock = threading.Lock()
        self._queued = False
        self.remote: str | None = None
        self.debounce_seconds = 0.0

    def start(self) -> None:
        """Read the config; with a remote, sync once now and start the timer thread. Without one, nothing."""
        config = self._system().config
        self.remote = config.get("git.remote")
        if not self.remote:
            return
        interval, poll = float(config.get("sync.interval")), float(config.get("sync.poll"))
        self.debounce_seconds = float(config.get("sync.debounce"))
        log.info(
            "auto-sync on: every %.0f s, %.1f s after a change, remote checked every %.0f s",
            interval,
            self.debounce_seconds,
            poll,
        )
        self.queue("start")
        threading.Thread(target=self._timer, args=(interval, poll), name="aimate-autosync", daemon=True).start()

    def changed(self) -> None:
        """The global vault changed: sync once it has been quiet for `sync.debounce` seconds."""
        if not self.remote:
            return
        with self._lock:
            if self._debounce is not None:
                self._debounce.cancel()
            self._debounce = threading.Timer(self.debounce_seconds, self.queue, args=("change",))
            self._debounce.daemon = True
            self._debounce.start()

    def queue(self, why: str) -> None:
        """One sync queued at a time: a trigger while one waits in the queue is already covered by it."""
        with self._lock:
            if self._queued or self._tasks.stopping.is_set():
                return
            self._queued = True
        self._tasks.put(f"auto-sync ({why})", self.run)

    def run(self) -> Result:
        with self._lock:
            self._queued = False
        try:
            record = self._system().git.sync_recorded("daemon")
        except Exception as exc:  # recorded by the facade (an AimateError) or here; the next trigger retries
            log.warning("auto-sync failed: %s", getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}")
            return {"ok": False, "error": str(exc)}
        result = record.result
        if result is not None and (result.pulled or result.pushed or result.conflicts or result.left_out):
            log.info("auto-sync: %s", record.summary)
        return {"ok": True, "summary": record.summary}

    def _timer(self, interval: float, poll: float) -> None:
        """Wake every `poll` seconds (or `interval` when polling is off) until the daemon stops."""
        step = poll if 0 < poll < interval else interval
        waited = 0.0
        while not self._tasks.stopping.wait(step):
            waited += step
            if waited >= interval:
                waited = 0.0
                self.queue("timer")
            elif self._moved():
                self.queue("remote moved")

    def _moved(self) -> bool:
        try:
            return self._system().git.remote_moved()
        except Exception as exc:  # a check that cannot run is not a reason to stop checking
            log.info("auto-sync: could not check the remote: %s", exc)
            return False
