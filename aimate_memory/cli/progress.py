"""A progress bar that shows up only when work takes over a second (docs/design.md §6), on stderr."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from aimate_memory.cli.render import err_console

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

SHOW_AFTER_SECONDS = 1.0


class LazyProgress:
    def __init__(self) -> None:
        self._started = time.monotonic()
        self._progress: Progress | None = None
        self._tasks: dict[str, TaskID] = {}

    def __call__(self, phase: str, done: int, total: int) -> None:
        if self._progress is None:
            if time.monotonic() - self._started < SHOW_AFTER_SECONDS or not err_console.is_terminal:
                return
            # Imported here, not at the top: every command builds a LazyProgress, few ever show it, and
            # rich.progress cost 33-50 ms of each cold start (python -X importtime, 2026-11-25, load ~5).
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=err_console,
                transient=True,
            )
            self._progress.start()
        if phase not in self._tasks:
            self._tasks[phase] = self._progress.add_task(phase, total=total)
        self._progress.update(self._tasks[phase], completed=done, total=total)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __enter__(self) -> LazyProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
