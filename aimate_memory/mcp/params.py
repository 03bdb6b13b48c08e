"""Forgiving tool parameters, pure: clients and models spell arguments differently (`q` or `query`, `k` or
`limit`, tags as a list or as "a, b"), and "since" is often relative ("7d", "昨天"). Nothing here touches a
disk or the SDK, so every rule is tested as data in, data out."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from datetime import datetime, timedelta
from typing import Any

from aimate_memory.errors import InvalidInputError
from aimate_memory.vault.model import to_datetime

# Other names clients and models use for a parameter → its name in our tools. A key is renamed only when the
# tool has no parameter of that name and the canonical one was not given too (`content` is a real parameter
# of memory_session_append, an alias of `text` in memory_remember).
ARGUMENT_ALIASES: dict[str, str] = {
    "q": "query",
    "search": "query",
    "k": "limit",
    "n": "limit",
    "top_k": "limit",
    "topK": "limit",
    "max_results": "limit",
    "tag": "tags",
    "memory_id": "id",
    "ref": "id",
    "content": "text",
    "message": "content",
    "text": "content",
    "max_tokens": "budget",
    "token_budget": "budget",
    "layers": "layer",
    "type": "kind",
    "category": "kind",
}

# Commas, Chinese commas and the enumeration comma all separate tags ("缓存，redis、会话").
TAG_SEPARATORS = re.compile(r"[,，、;；]")

# "7d", "2 weeks", "3天", "2周": a number and a unit. Months are 30 days; a year 365 (a filter, not a calendar).
RELATIVE_UNITS: dict[str, timedelta] = {
    "m": timedelta(minutes=1),
    "min": timedelta(minutes=1),
    "mins": timedelta(minutes=1),
    "minute": timedelta(minutes=1),
    "minutes": timedelta(minutes=1),
    "分钟": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "hour": timedelta(hours=1),
    "hours": timedelta(hours=1),
    "小时": timedelta(hours=1),
    "d": timedelta(days=1),
    "day": timedelta(days=1),
    "days": timedelta(days=1),
    "天": timedelta(days=1),
    "日": timedelta(days=1),
    "w": timedelta(weeks=1),
    "week": timedelta(weeks=1),
    "weeks": timedelta(weeks=1),
    "周": timedelta(weeks=1),
    "星期": timedelta(weeks=1),
    "个星期": timedelta(weeks=1),
    "mo": timedelta(days=30),
    "month": timedelta(days=30),
    "months": timedelta(days=30),
    "个月": timedelta(days=30),
    "月": timedelta(days=30),
    "y": timedelta(days=365),
    "year": timedelta(days=365),
    "years": timedelta(days=365),
    "年": timedelta(days=365),
}
RELATIVE_PATTERN = re.compile(r"^(\d+(?:\.\d+)?)\s*([a-zA-Z\u4e00-\u9fff]+?)(?:\s*(?:ago|前|以来|内))?$")

# Whole days named in words: how many days back their midnight is.
NAMED_DAYS: dict[str, int] = {"today": 0, "今天": 0, "yesterday": 1, "昨天": 1, "前天": 2}

SINCE_HINT = "use YYYY-MM-DD, ISO 8601, or a relative time: 24h, 7d, 2w, 3mo, today, yesterday, 3天, 2周"


def normalize_arguments(arguments: Mapping[str, Any] | None, accepted: Collection[str]) -> dict[str, Any]:
    """`arguments` with alias names replaced by the tool's own (`accepted`); unknown keys are kept
    (the SDK ignores them) and an explicit canonical argument always wins over its alias."""
    given = dict(arguments or {})
    normalized: dict[str, Any] = {}
    for key, value in given.items():
        canonical = key if key in accepted else ARGUMENT_ALIASES.get(key, key)
        if canonical != key and (canonical not in accepted or canonical in given):
            canonical = key
        normalized.setdefault(canonical, value)
    return normalized


def split_list(value: list[str] | str | None) -> list[str]:
    """Tags (or layers) as a list, or as one string separated by commas (ASCII or Chinese)."""
    if value is None:
        return []
    items = TAG_SEPARATORS.split(value) if isinstance(value, str) else [str(item) for item in value]
    return [item.strip() for item in items if item and item.strip()]


def parse_since(value: str | None, now: datetime) -> datetime | None:
    """An absolute date/time, or a time relative to `now` ("7d", "2 weeks", "3天", "yesterday")."""
    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    lowered = text.lower()
    if lowered in NAMED_DAYS:
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return midnight - timedelta(days=NAMED_DAYS[lowered])
    match = RELATIVE_PATTERN.match(lowered)
    if match and match.group(2) in RELATIVE_UNITS:
        return now - float(match.group(1)) * RELATIVE_UNITS[match.group(2)]
    parsed = to_datetime(text)
    if parsed is None:
        raise InvalidInputError(f"since: not a date or a relative time: {text!r}", SINCE_HINT)
    return parsed
