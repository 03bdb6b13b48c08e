"""Dates as people (and models) type them, the one parser every face uses (CLI `--since`, MCP `since`, the API).

Accepted: ISO 8601 (`2026-03-01`, `2026-03-01T09:00+08:00`); a named day (`today`, `yesterday`, 今天, 昨天,
前天) meaning its midnight; or an amount and a unit meaning that long before `now`: `7d`, `2 weeks`,
`3 days ago`, `last 2 weeks`, `3天`, `3天前`, `三天前`, `3天以来`, `两周内`, `最近3天`, `半个月`.

Units (the table below): `m` is **minutes**, months are `mo` / `month` / 月 / 个月. Docker, kubectl,
journalctl, Go durations and `sleep` all read `3m` as three minutes, so a person or a model used to them
means minutes; a month is rare enough in a search bound to be spelled out (docs/usage.md, "Dates").
A month is 30 days and a year 365 — these are search bounds, not calendar arithmetic.

Pure: the caller passes `now`."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Final

from aimate_memory.errors import InvalidInputError
from aimate_memory.vault.model import to_datetime

_MINUTE: Final = timedelta(minutes=1)
_HOUR: Final = timedelta(hours=1)
_DAY: Final = timedelta(days=1)
_WEEK: Final = timedelta(weeks=1)
_MONTH: Final = timedelta(days=30)
_YEAR: Final = timedelta(days=365)

# Every spelling of a unit → its length. Matched whole and case-insensitively.
UNITS: Final[dict[str, timedelta]] = {
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes", "分钟", "分"), _MINUTE),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours", "小时", "个小时", "钟头", "个钟头"), _HOUR),
    **dict.fromkeys(("d", "day", "days", "天", "日"), _DAY),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks", "周", "星期", "个星期", "礼拜", "个礼拜"), _WEEK),
    **dict.fromkeys(("mo", "mon", "mos", "month", "months", "月", "个月"), _MONTH),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years", "年"), _YEAR),
}

# Whole days named in words: how many days back their midnight is.
NAMED_DAYS: Final[dict[str, int]] = {"today": 0, "今天": 0, "yesterday": 1, "昨天": 1, "前天": 2}

# Chinese numerals as people write amounts of time: 三天前, 两周, 十五天, 二十天, 半个月.
_CHINESE_DIGITS: Final[dict[str, int]] = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_AMOUNT = r"\d+(?:\.\d+)?|半|[零一二两三四五六七八九十]+"
# "last 7 days", "past 2 weeks", 最近3天, 过去两周, 近3天 — and "3 days ago", 3天前, 3天以前, 3天以来, 3天内.
_RELATIVE: Final = re.compile(
    rf"(?:(?:last|past)\s+|最近|过去|近)?\s*({_AMOUNT})\s*([a-z]+|[\u4e00-\u9fff]+?)\s*(?:ago|以前|前|以来|之内|内)?"
)

HINT: Final = "use a date (2026-03-01), today, yesterday, or a time back: 30m, 12h, 7d, 2w, 3mo, 1y, 3天, 两周前"


def parse_when(text: str, now: datetime, option: str = "date") -> datetime:
    """`text` as an aware datetime; an `InvalidInputError` naming `option` when it is none of the forms."""
    value = text.strip()
    lowered = value.lower()
    if lowered in NAMED_DAYS:
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return midnight - timedelta(days=NAMED_DAYS[lowered])
    relative = _RELATIVE.fullmatch(lowered)
    if relative and relative.group(2) in UNITS:
        amount = _amount(relative.group(1))
        if amount is not None:
            return now - amount * UNITS[relative.group(2)]
    parsed = to_datetime(value)
    if parsed is None:
        raise InvalidInputError(f"{option}: not a date or a time back: {text!r}", HINT)
    return parsed


def parse_optional_when(text: str | None, now: datetime, option: str = "date") -> datetime | None:
    """`parse_when`, with nothing given (None, or only blanks: what a client sends for "unset") → None."""
    if text is None or not str(text).strip():
        return None
    return parse_when(str(text), now, option)


def _amount(text: str) -> float | None:
    """`7`, `1.5`, `半` (a half), or a Chinese number up to 99 (三, 十五, 二十, 两)."""
    if text[0].isdigit():
        return float(text)
    if text == "半":
        return 0.5
    tens, ten, units = text.partition("十")
    if not ten:
        return float(_CHINESE_DIGITS[text]) if len(text) == 1 else None
    if len(tens) > 1 or len(units) > 1:
        return None
    return float((_CHINESE_DIGITS[tens] if tens else 1) * 10 + (_CHINESE_DIGITS[units] if units else 0))
