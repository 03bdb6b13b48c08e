"""Time as a dependency, so lifecycle rules are tested by moving a clock instead of sleeping."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware."""
        ...


class SystemClock:
    def now(self) -> datetime:
        # Local offset, seconds precision: the timestamps people read in frontmatter.
        return datetime.now().astimezone().replace(microsecond=0)


class FixedClock:
    """A clock tests can set and advance."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        return self._now

    def advance(self, **delta: float) -> None:
        self._now += timedelta(**delta)
