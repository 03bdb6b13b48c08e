"""The fields a person may set, and how a typed-in value becomes a frontmatter value."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from aimate_memory.errors import InvalidInputError
from aimate_memory.vault.filters import parse_layer, parse_status
from aimate_memory.vault.lists import split_list
from aimate_memory.vault.model import to_datetime
from aimate_memory.vault.validate import check_writable_text

SETTABLE_FIELDS = (
    "title",
    "tags",
    "importance",
    "status",
    "category",
    "layer",
    "expires_at",
    "related",
    "confidence",
)
# Letters and digits of any script (Chinese categories are fine), `-` and `_`; no dots, no slashes.
CATEGORY_NAME = re.compile(r"[\w-]+")


def coerce_field(key: str, value: Any) -> Any:
    """Validate one field; strings from the command line are converted (`tags=a,b` → [a, b], vault/lists.py).
    `None` or an empty string clears an optional field."""
    if key not in SETTABLE_FIELDS:
        raise InvalidInputError(f"cannot set '{key}'", f"settable fields: {', '.join(SETTABLE_FIELDS)}")
    if key in ("expires_at", "related", "confidence") and (value is None or value == ""):
        return None
    coerced = _COERCERS[key](value)
    # Every text a field holds, list items too: a NUL in a tag had been written into the YAML.
    for text in coerced if isinstance(coerced, list) else [coerced]:
        if isinstance(text, str):
            check_writable_text({key: text})
    return coerced


def _text(key: str) -> Callable[[Any], str]:
    def coerce(value: Any) -> str:
        text = str(value).strip() if value is not None else ""
        if not text:
            raise InvalidInputError(f"{key} cannot be empty", f"give a value: {key}=…")
        return text

    return coerce


def _importance(value: Any) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        number = 0
    if not 1 <= number <= 5:
        raise InvalidInputError(f"importance must be a whole number from 1 to 5, got {value!r}", "e.g. importance=4")
    return number


def _category(value: Any) -> str:
    category = _text("category")(value)
    # A category names a folder under its layer: a name, never a path (`a/../../b` would leave the vault).
    if not CATEGORY_NAME.fullmatch(category):
        raise InvalidInputError(
            f"category must be a name (letters, digits, - or _), got {category!r}", "e.g. category=decision"
        )
    return category


def _layer(value: Any) -> str:
    return parse_layer(str(value)).value


def _datetime(value: Any) -> Any:
    parsed = to_datetime(value)
    if parsed is None:
        raise InvalidInputError(f"not a date/time: {value!r}", "use ISO 8601, e.g. 2026-03-01T09:00:00+08:00")
    return parsed


def _confidence(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = -1.0
    if not 0.0 <= number <= 1.0:
        raise InvalidInputError(f"confidence must be between 0 and 1, got {value!r}", "e.g. confidence=0.9")
    return number


_COERCERS = {
    "title": _text("title"),
    "category": _category,
    "layer": _layer,
    "tags": split_list,
    "related": split_list,
    "importance": _importance,
    "status": parse_status,
    "expires_at": _datetime,
    "confidence": _confidence,
}


def parse_assignments(pairs: list[str]) -> dict[str, Any]:
    """`["importance=5", "tags=a,b"]` → {"importance": 5, "tags": ["a", "b"]}."""
    fields: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidInputError(f"expected key=value, got '{pair}'", "e.g. aimate mem set ID importance=5")
        fields[key.strip()] = coerce_field(key.strip(), raw)
    return fields
