"""Forgiving parameters, pure: aliases, tag lists, relative times in English and Chinese."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from aimate_memory.errors import InvalidInputError
from aimate_memory.mcp.params import normalize_arguments, parse_since, split_list

SEARCH = ("query", "limit", "layer", "scope", "tags", "since")
REMEMBER = ("text", "confidence", "scope")
APPEND = ("role", "content")
NOW = datetime(2026, 11, 24, 15, 30, tzinfo=timezone(timedelta(hours=8)))


@pytest.mark.parametrize(
    ("given", "accepted", "expected"),
    [
        ({"q": "缓存", "k": 3}, SEARCH, {"query": "缓存", "limit": 3}),
        ({"query": "cache", "top_k": 5, "tag": "redis"}, SEARCH, {"query": "cache", "limit": 5, "tags": "redis"}),
        # the canonical name wins; the alias stays as an (ignored) extra
        ({"query": "会话", "q": "other"}, SEARCH, {"query": "会话", "q": "other"}),
        # `content` is memory_remember's `text`, but memory_session_append's own parameter
        ({"content": "我们用 Redis"}, REMEMBER, {"text": "我们用 Redis"}),
        ({"role": "user", "content": "hello"}, APPEND, {"role": "user", "content": "hello"}),
        ({"role": "user", "text": "你好"}, APPEND, {"role": "user", "content": "你好"}),
        ({"memory_id": "0958"}, ("id",), {"id": "0958"}),
        # an alias whose target the tool lacks is left alone
        ({"k": 3}, ("id",), {"k": 3}),
        (None, SEARCH, {}),
    ],
)
def test_normalize_arguments(given, accepted, expected) -> None:
    assert normalize_arguments(given, accepted) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, []),
        ("cache,redis", ["cache", "redis"]),
        (" cache , redis ,", ["cache", "redis"]),
        ("缓存，数据库、会话", ["缓存", "数据库", "会话"]),
        (["cache", " 缓存 ", ""], ["cache", "缓存"]),
        ("", []),
    ],
)
def test_split_list(value, expected) -> None:
    assert split_list(value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("7d", NOW - timedelta(days=7)),
        ("7 days ago", NOW - timedelta(days=7)),
        ("2w", NOW - timedelta(weeks=2)),
        ("24h", NOW - timedelta(hours=24)),
        ("3mo", NOW - timedelta(days=90)),
        ("3天", NOW - timedelta(days=3)),
        ("3天前", NOW - timedelta(days=3)),
        ("2周", NOW - timedelta(weeks=2)),
        ("1个月", NOW - timedelta(days=30)),
        ("today", NOW.replace(hour=0, minute=0)),
        ("Yesterday", NOW.replace(hour=0, minute=0) - timedelta(days=1)),
        ("昨天", NOW.replace(hour=0, minute=0) - timedelta(days=1)),
        (None, None),
        ("  ", None),
    ],
)
def test_parse_since_relative(value, expected) -> None:
    assert parse_since(value, NOW) == expected


def test_parse_since_absolute() -> None:
    parsed = parse_since("2026-01-02", NOW)
    assert parsed is not None and (parsed.year, parsed.month, parsed.day) == (2026, 1, 2)
    assert parse_since("2026-01-02T03:04:05+00:00", NOW) == datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


@pytest.mark.parametrize("value", ["soon", "上周五", "7 parsecs"])
def test_parse_since_rejects_with_a_hint(value: str) -> None:
    with pytest.raises(InvalidInputError) as caught:
        parse_since(value, NOW)
    assert value in caught.value.message
    assert caught.value.hint and "7d" in caught.value.hint
