"""The calendar dates a query names, and how close a memory's time is to them (docs/design.md, "Dates a query
names").

"What did we decide on 3 June 2023?", "what came up in August 2023?", "2023年6月3日说了什么": a person who names
a day or a month is asking about what was said then, and a memory knows when it was said (`created_at`; a
capture or an import of a conversation keeps the conversation's time). Ranking raises a candidate by
`DATE_WEIGHT` × its closeness to the named period (retrieval/hybrid.py `_dated`): 1 inside it, falling
linearly to 0 over the period's `slack` on either side, since people misremember by a few days and a
conversation that ran past midnight or in another time zone lands on the next day.

Recognised (pure, no clock): a day — `October 13, 2023`, `13 October 2023`, `3 June, 2023`, `Oct 13 2023`,
`2023-06-03`, `2023年6月3日` / `2023年6月3号`; a month — `October 2023`, `Oct 2023`, `2023-06`, `2023年6月`.
Not recognised, on purpose: a bare year (a whole year ranks nothing apart in a vault of a year's talk), a day
or month without its year (which year is a guess), and relative times ("last week": relative to when the
question was asked, which a search does not know for a memory's own words). Times are read as UTC days; the
slack covers the difference of a time zone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Final

import numpy as np

# How much a candidate said within the named period gains, as a share of its own fused score (a memory said
# then and matching the words doubles its neighbours' support, neighbours.SUPPORT = 0.2, and falls short of
# outranking a clearly better match: a date narrows the question, it does not replace it).
DATE_WEIGHT: Final = 0.5
DAY_SLACK: Final = timedelta(days=7)
MONTH_SLACK: Final = timedelta(days=15)

_MONTHS: Final[dict[str, int]] = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH: Final = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY: Final = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR: Final = r"(?P<year>(?:19|20)\d\d)"
# Each form with the parts it names; the first that matches a span wins (day forms before month forms).
_FORMS: Final = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b",  # October 13, 2023
        rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b",  # 13 October 2023, 3 June, 2023
        r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]?\d)(?:-(?P<day>[0-3]?\d))?\b",  # 2023-06-03, 2023-06
        r"(?P<year>(?:19|20)\d\d)\s*年\s*(?P<month>[01]?\d)\s*月(?:\s*(?P<day>[0-3]?\d)\s*[日号])?",  # 2023年6月3日
        rf"\b{_MONTH},?\s+{_YEAR}\b",  # October 2023
    )
)


@dataclass(frozen=True)
class Period:
    """A named day or month: [start, end) in UTC, and how far outside it closeness falls to 0."""

    start: datetime
    end: datetime
    slack: timedelta

    def closeness(self, timestamps: np.ndarray) -> np.ndarray:
        """Per epoch-seconds timestamp: 1 inside the period, linearly to 0 at `slack` outside it."""
        ts = np.asarray(timestamps, dtype=np.float64)
        outside = np.maximum(self.start.timestamp() - ts, ts - self.end.timestamp()).clip(min=0.0)
        closeness: np.ndarray = np.clip(1.0 - outside / self.slack.total_seconds(), 0.0, 1.0)
        return closeness


def named_periods(query: str) -> list[Period]:
    """Every day or month `query` names with its year, in order of appearance, each once."""
    found: dict[tuple[int, int], Period] = {}
    taken: list[tuple[int, int]] = []
    for form in _FORMS:
        for match in form.finditer(query):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue  # part of a longer date already read ("October 2023" inside "October 13, 2023")
            period = _period(match)
            if period is not None:
                taken.append(match.span())
                found.setdefault(match.span(), period)
    return [found[span] for span in sorted(found)]


def closeness(periods: list[Period], timestamps: np.ndarray) -> np.ndarray:
    """Per timestamp, its closeness to the nearest of `periods` (0 when there are none)."""
    out = np.zeros(len(timestamps))
    for period in periods:
        out = np.maximum(out, period.closeness(timestamps))
    return out


def _period(match: re.Match[str]) -> Period | None:
    month_text, day_text = match.group("month"), match.groupdict().get("day")
    month = _MONTHS.get(month_text.lower().rstrip(".")) if not month_text.isdigit() else int(month_text)
    try:
        if day_text is not None:
            start = datetime(int(match.group("year")), month or 0, int(day_text), tzinfo=timezone.utc)
            return Period(start, start + timedelta(days=1), DAY_SLACK)
        start = datetime(int(match.group("year")), month or 0, 1, tzinfo=timezone.utc)
    except ValueError:  # "2023-13", "February 30, 2023": not a date
        return None
    after = start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1)
    return Period(start, after, MONTH_SLACK)
