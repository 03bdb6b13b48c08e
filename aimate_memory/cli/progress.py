"""A progress bar that shows up only when work takes over a second (docs/design.md §6), on stderr; and the
index refresh a command makes before it reads, shown with it (`refreshed`). Without typer or rich at import
time: rich loads only when a bar is shown, so the commands the fast path answers in process (`cli.served`)
refresh the same way the typer commands do."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from aimate_memory.cli.faults import describe_fault
from aimate_memory.cli.plain import print_warning
from aimate_memory.errors import NotFoundError

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from aimate_memory.system import MemorySystem

SHOW_AFTER_SECONDS = 1.0


class LazyProgress:
    def __init__(self) -> None:
        self._started = time.monotonic()
        self._progress: Progress | None = None
        self._tasks: dict[str, TaskID] = {}

    def __call__(self, phase: str, done: int, total: int) -> None:
        if self._progress is None:
            if time.monotonic() - self._started < SHOW_AFTER_SECONDS:
                return
            if not sys.stderr.isatty():
                return  # no bar where no one watches: rich is not imported (a slow refresh in a script, a test)
            from aimate_memory.cli.render import err_console  # rich: only once a bar may be shown

            if not err_console.is_terminal:
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


class ShownRefresh:
    """The CLI's freshness (`system.client.Freshness`): `refreshed`, with its progress and warnings."""

    def refresh(self, system: MemorySystem) -> None:
        refreshed(system)

    def close(self) -> None:
        pass


def refreshed(system: MemorySystem, no_refresh: bool = False) -> MemorySystem:
    """Read commands refresh the index first (milliseconds when nothing changed), and say what went wrong."""
    if no_refresh:
        if not system.store.has_index:
            # Reading would create an empty index.db and fail on its missing tables.
            raise NotFoundError("there is no index yet", "run `aimate mem index`, or drop --no-refresh")
        return system
    try:
        with LazyProgress() as progress:
            reports = system.refresh(progress)
    except Exception as exc:
        # The index cannot be written (read-only, disk full, a size limit): read it as it is rather than fail.
        fault = describe_fault(exc)
        if fault is None or not system.store.has_index:
            raise
        print_warning(f"the index could not be updated ({fault[0]}); showing it as it was — {fault[1]}")
        system.close()  # a failed write can leave the connection unusable: reads reopen the file
        return system
    for report in reports.values():
        for warning in report.warnings:
            print_warning(warning)
    errors = sum(report.errors for report in reports.values())
    if errors:
        print_warning(f"{errors} file(s) could not be indexed; run `aimate mem diagnose`")
    return system


def opener(project: Path | None, global_only: bool, search_for: str | None) -> Callable[[], MemorySystem]:
    """How a command that embeds `search_for` opens the facade here: its model loading at once, and a cache
    that must be built first said on stderr (`say_models_missing`) rather than waited for in silence."""

    def open_here() -> MemorySystem:
        from aimate_memory.system.opening import open_system

        return open_system(project, global_only, search_for, say_models_missing=say_models_missing)

    return open_here


def say_models_missing(names: list[str]) -> None:
    """A command answered here loads models whose cache `init` did not build here (another cache folder, or an
    upgrade changed its format): it builds it first, and says so — on stderr, `--json` keeps its output."""
    from aimate_memory.cli.plain import say

    say(
        f"preparing the embedding models ({', '.join(names)}) once, before this command: a few seconds "
        "(`aimate mem init` builds them ahead)",
        sys.stderr,
    )


def prepare_models_ahead(system: MemorySystem) -> None:
    """Build the embedding models' cache now, saying so, rather than inside the first search (`init`,
        `install`; system/models.py). A model that cannot be prepared is a warning: search tries again. Printed
    plainly (no rich): `init` is answered without typer or rich (`cli.served`)."""
    from aimate_memory.cli.plain import say
    from aimate_memory.errors import AimateError
    from aimate_memory.system.models import models_to_prepare, prepare_models

    names = models_to_prepare(system)
    if not names:
        return
    say(f"preparing the embedding models ({', '.join(names)}) once, so the first search does not wait: a few seconds")
    try:
        with LazyProgress() as progress:
            seconds = prepare_models(system, names, progress)
    except (AimateError, OSError) as exc:
        print_warning(f"the embedding models could not be prepared now ({exc}); the first search will try again")
        return
    say(f"embedding models ready ({seconds:.1f} s)")
