"""Forgiving parameters, pure: argument aliases. Tag lists and dates are read by the parsers every face
shares (vault/lists.py, vault/dates.py), tested through every face in tests/properties/test_shared_parsers.py."""

from __future__ import annotations

import pytest

from aimate_memory.mcp.params import normalize_arguments

SEARCH = ("query", "limit", "layer", "scope", "tags", "since")
REMEMBER = ("text", "confidence", "scope")
APPEND = ("role", "content")


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
