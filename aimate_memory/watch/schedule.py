"""Scheduled maintenance: a timer thread that queues a run every `maintenance.interval_minutes`, counting
from the last run (remembered in `state/maintenance.last` across restarts). It waits blocked on the
daemon's stop event — no polling."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

MIN_FIRST_DELAY = 5.0  # seconds: an overdue run waits for the start-up sync and warm-up first


def first_delay(interval: float, last_run: datetime | None, now: datetime) -> float:
    """Seconds until the first run after a start: what is left of the interval since the last run."""
    if last_run is None:
        return interval
    return max(MIN_FIRST_DELAY, interval - (now - last_run).total_seconds())


def read_last_run(path: Path) -> datetime | None:
    """When the last run was (timezone-aware; a time without an offset is taken as local), or None."""
    with contextlib.suppress(OSError, ValueError):
        return datetime.fromisoformat(path.read_text().strip()).astimezone()
    return None


def record_run(path: Path, when: datetime) -> None:
    with contextlib.suppress(OSError):
        path.write_text(when.isoformat() + "\n")


def start_timer(stopping: threading.Event, first: float, interval: float, queue_run: Callable[[], object]) -> None:
    """Call `queue_run` after `first` seconds, then every `interval` seconds, until `stopping` is set."""

    def repeat() -> None:
        delay = first
        while not stopping.wait(delay):
            queue_run()
            delay = interval

    threading.Thread(target=repeat, name="aimate-maintenance", daemon=True).start()
