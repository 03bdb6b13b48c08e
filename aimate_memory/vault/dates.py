"""Dates as people type them: ISO 8601, `today`, `yesterday`, `7d`, `2w`, `3m`, `1y`, `12h`, 今天, 昨天, 3天, 2周.

Pure: the caller passes `now`. `Nd`-style values mean "N units before now"; a month is 30 days and a year
365 — these are search bounds, not calendar arithmetic."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from aimate_memory.errors import InvalidInputError
from aimate_memory.vault.model import to_datetime

_UNIT_DAYS = {
    "h": 1 / 24,
    "d": 1,
    "w": 7,
    "m": 30,
    "y": 365,
    "小时": 1 / 24,
    "天": 1,
    "周": 7,
    "个月": 30,
    "月": 30,
    "年": 365,
}
_RELATIVE = re.compile(r"(\d+(?:\.\d+)?)\s*(h|d|w|m|y|小时|天|周|个月|月|年)(?:\s*(?:ago|前|以前))?", re.IGNORECASE)
# Days back to the start of the named day.
_NAMED_DAYS = {"today": 0, "yesterday": 1, "今天": 0, "昨天": 1, "前天": 2}
HINT = "use a date (2026-03-01), a time (2026-03-01T09:00+08:00), today, yesterday, or 7d / 2w / 3m / 1y"


def parse_when(text: str, now: datetime, option: str = "date") -> datetime:
    """`text` as an aware datetime; an `InvalidInputError` naming `option` when it is none of the forms."""
    value = text.strip()
    lowered = value.lower()
    if lowered in _NAMED_DAYS:
        start = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return start - timedelta(days=_NAMED_DAYS[lowered])
    relative = _RELATIVE.fullmatch(lowered)
    if relative:
        amount, unit = float(relative.group(1)), relative.group(2)
        return now - timedelta(days=amount * _UNIT_DAYS[unit])
    parsed = to_datetime(value)
    if parsed is None:
        raise InvalidInputError(f"{option}: not a date: {text!r}", HINT)
    return parsed
