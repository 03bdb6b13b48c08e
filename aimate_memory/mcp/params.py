"""Forgiving tool parameters, pure: clients and models spell arguments differently (`q` or `query`, `k` or
`limit`). Nothing here touches a disk or the SDK, so every rule is tested as data in, data out. Values are
read by the parsers every face shares: tags and lists by `vault/lists.py`, "since" by `vault/dates.py`."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

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
