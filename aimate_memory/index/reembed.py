"""A switch of embedding model, re-embedded beside the commands (docs/design.md "Embeddings from an endpoint").

When the configured model is not the one the index was built with, the refresh that notices keeps the old
index in step with the files by keywords only (its vectors belong to the old model and are never compared
with the new one's) and starts a worker process; the worker builds a new index with the new model's vectors
beside the old one, writing its progress to a small file any process can read, and swaps it in when done.
Until then every search runs on keywords and says how far the re-embedding is. One worker per index: it holds
`<index>.reembed.lock` while it runs, so a second start is a no-op and a killed worker frees it.

A worker whose build fails (the endpoint went away mid-way) writes `<index>.reembed.failed`: the syncs after it
do not start another until its backoff has passed (`RETRY_AFTER`, doubling per failure up to `RETRY_AT_MOST`),
so an endpoint that is down does not cost every command a worker process and a model load; a build that
succeeds clears it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aimate_memory.index.refresh_report import Progress, RefreshReport
from aimate_memory.index.store import IndexStore, sqlite_files
from aimate_memory.locks import file_lock, is_locked

#: Starts the worker process for one index (the system layer knows how: it has the roots and the config).
Launch = Callable[[], None]
#: Builds a new index into the file at the path given, reporting progress (IndexRefresh.build).
Build = Callable[[Path, Progress], RefreshReport]

RETRY_AFTER = 60.0  # seconds after a first failed re-embedding before a sync starts another worker
RETRY_AT_MOST = 3600.0  # the longest wait, however often it failed


@dataclass(frozen=True)
class ReembedProgress:
    """How far a running re-embedding is: chunks embedded by the new model of all the index has."""

    done: int
    total: int

    def describe(self) -> str:
        return f"{self.done} of {self.total} chunks" if self.total else "starting"


class Reembed:
    """The re-embedding of one index: its worker's lock, progress file and build file, beside the index."""

    def __init__(self, store: IndexStore, launch: Launch | None) -> None:
        self.store = store
        self.launch = launch
        base = store.db_path.name
        self.lock_path = store.db_path.with_name(base + ".reembed.lock")
        self.progress_path = store.db_path.with_name(base + ".reembed.json")
        self.build_path = store.db_path.with_name(base + ".reembed")
        self.failed_path = store.db_path.with_name(base + ".reembed.failed")

    @property
    def in_background(self) -> bool:
        """Whether a model switch is re-embedded by a worker (False: by the refresh that notices it)."""
        return self.launch is not None

    def start(self) -> str:
        """Start the worker unless one runs; what a sync says meanwhile."""
        progress = self.progress()
        wait = self.retry_in() if progress is None else 0.0
        if progress is None and self.launch is not None and wait <= 0:
            self.launch()
        done = f" ({progress.describe()})" if progress is not None else ""
        if wait > 0:
            done = f" (the last attempt failed, see state/reembed.log; trying again in {wait:.0f} s)"
        return f"the embedding model changed: re-embedding in the background{done}; keyword search until it is done"

    def retry_in(self, now: float | None = None) -> float:
        """Seconds until a worker may be started again after failed ones (0: now)."""
        try:
            found = json.loads(self.failed_path.read_text(encoding="utf-8"))
            failures, at = int(found["failures"]), float(found["at"])
        except (OSError, ValueError, KeyError, TypeError):  # none failed (or a half-written file: try)
            return 0.0
        backoff = min(RETRY_AFTER * 2.0 ** max(failures - 1, 0), RETRY_AT_MOST)
        return max(0.0, at + backoff - (time.time() if now is None else now))

    def record_failure(self) -> None:
        """A worker could not build the new index: the next syncs wait (`retry_in`) before starting another."""
        try:
            failures = int(json.loads(self.failed_path.read_text(encoding="utf-8"))["failures"])
        except (OSError, ValueError, KeyError, TypeError):
            failures = 0
        self._write_json(self.failed_path, {"failures": failures + 1, "at": time.time()})

    def progress(self) -> ReembedProgress | None:
        """The running worker's progress, or None when no worker runs (one that died leaves its lock free)."""
        if not is_locked(self.lock_path):
            return None
        try:
            found = json.loads(self.progress_path.read_text(encoding="utf-8"))
            return ReembedProgress(int(found["done"]), int(found["total"]))
        except (OSError, ValueError, KeyError, TypeError):  # not written yet, or half-replaced
            return ReembedProgress(0, 0)

    def work(self, wanted: Callable[[], bool], build: Build, swap: Callable[[Path], bool]) -> RefreshReport:
        """In the worker, one at a time: unless no longer `wanted` (another worker did it), `build` a new
        index at the build path (reporting progress), then `swap` it in (False: not wanted any more)."""
        with file_lock(self.lock_path):
            if not wanted():
                return RefreshReport()
            for leftover in sqlite_files(self.build_path):
                leftover.unlink(missing_ok=True)
            self._write_progress(0, 0)
            try:
                report = build(self.build_path, self._on_progress)
                report.rebuilt = swap(self.build_path)
            except Exception:
                self.record_failure()
                raise
            else:
                self.failed_path.unlink(missing_ok=True)
                return report
            finally:
                for leftover in [*sqlite_files(self.build_path), self.progress_path]:
                    leftover.unlink(missing_ok=True)

    def _on_progress(self, phase: str, done: int, total: int) -> None:
        if phase == "embedding":
            self._write_progress(done, total)

    def _write_progress(self, done: int, total: int) -> None:
        self._write_json(self.progress_path, {"done": done, "total": total})

    @staticmethod
    def _write_json(path: Path, found: dict[str, float]) -> None:
        partial = path.with_name(path.name + ".tmp")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(found, out)
        os.replace(partial, path)
