"""`DueCommits`: the git commits the daemon owes for writes it has answered already (docs/agents.md, "The daemon
commits after it answers").

A `remember` through the daemon writes its file (fsynced) and brings the index up to date before it answers, so
the memory is on disk and found by the next search; its commit — a dozen git processes, the slowest part of a
`remember` — is handed here (`Store.defer_commit`) and runs as the next task on the daemon's queue, in the order
the writes were made. A stop runs the commits still owed before the daemon exits (`run_all` from `Daemon._shutdown`);
a daemon killed in between leaves the file written and uncommitted, where `aimate mem review` shows it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from aimate_memory.watch.tasks import TaskQueue

log = logging.getLogger("aimate.daemon")

Commit = Callable[[], object]


class DueCommits:
    def __init__(self, tasks: TaskQueue) -> None:
        self._tasks = tasks
        self._due: list[Commit] = []
        self._lock = threading.Lock()

    def add(self, commit: Commit) -> None:
        """Owe `commit`; it runs as the next task (behind the one that made it)."""
        with self._lock:
            self._due.append(commit)
        self._tasks.put("commit", self.run_all)

    def run_all(self) -> None:
        """Run every commit owed, oldest first; one that fails is logged and the rest still run (its change
        waits in `aimate mem review`, as any uncommitted change does)."""
        while True:
            with self._lock:
                if not self._due:
                    return
                commit = self._due.pop(0)
            try:
                commit()
            except Exception:
                log.exception("a deferred commit failed; the change waits in `aimate mem review`")

    def __len__(self) -> int:
        with self._lock:
            return len(self._due)
