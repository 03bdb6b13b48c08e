"""Which memories a list or a search is about: one filter serves `list`, `search` and the API."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from datetime import datetime

from aimate_memory.errors import InvalidInputError
from aimate_memory.vault.layout import STATUSES, Layer, Scope
from aimate_memory.vault.lists import split_list
from aimate_memory.vault.model import Memory

LIVE_STATUSES = ("active", "pending")
# A session transcript is a search result once its session has ended (`ended`, then `archived` in its month
# folder): while it runs the assistant holds it in its own window, and its turns — the person's question
# itself — would outrank the memory asked about (docs/design.md, "Sessions").
ENDED_SESSION_STATUSES = ("ended", "archived")


@dataclass(frozen=True)
class MemoryFilter:
    layers: tuple[Layer, ...] = ()
    scopes: tuple[Scope, ...] = ()
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # every tag must be present
    statuses: tuple[str, ...] = LIVE_STATUSES  # () = any status
    # The statuses a session transcript must have instead (None: `statuses` applies to sessions too); search
    # sets ENDED_SESSION_STATUSES.
    session_statuses: tuple[str, ...] | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    updated_after: datetime | None = None
    updated_before: datetime | None = None
    path_glob: str | None = None
    #: only memories with anchors (docs/anchors.md): what `stale` looks at
    anchored: bool = False
    #: the file hashes (sha256 of the bytes, the index's `file_hash`) of project memories the person has not
    #: trusted (vault/trust.py): left out of what the index gives. Read by the index only: a file scan has no
    #: ledger to ask (`matches` ignores it)
    withheld: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)

    def matches(self, memory: Memory) -> bool:
        checks = (
            not self.layers or memory.layer in self.layers,
            not self.scopes or memory.scope in self.scopes,
            not self.categories or memory.category in self.categories,
            not self.tags or set(self.tags) <= set(memory.tags),
            self._status_matches(memory),
            self.created_after is None or memory.created_at >= self.created_after,
            self.created_before is None or memory.created_at < self.created_before,
            self.updated_after is None or memory.updated_at >= self.updated_after,
            self.updated_before is None or memory.updated_at < self.updated_before,
            self.path_glob is None or fnmatch.fnmatch(memory.rel_path.as_posix(), self.path_glob),
            not self.anchored or bool(memory.anchors),
        )
        return all(checks)

    def _status_matches(self, memory: Memory) -> bool:
        if self.session_statuses is not None and memory.layer is Layer.SESSION:
            return memory.status in self.session_statuses
        return not self.statuses or memory.status in self.statuses


def parse_layer(value: str | Layer) -> Layer:
    """A layer from its name (or an alias) — or the enum itself, so the API takes what a caller writes."""
    if isinstance(value, Layer):
        return value
    aliases = {
        "short": "short_term",
        "long": "long_term",
        "sessions": "session",
        "short-term": "short_term",
        "long-term": "long_term",
    }
    try:
        return Layer(aliases.get(str(value).strip(), str(value).strip()))
    except ValueError:
        raise InvalidInputError(
            f"unknown layer '{value}'", f"use one of: {', '.join(layer.value for layer in Layer)}"
        ) from None


def parse_scope(value: str | Scope) -> Scope:
    if isinstance(value, Scope):
        return value
    try:
        return Scope(str(value).strip())
    except ValueError:
        raise InvalidInputError(f"unknown scope '{value}'", "use global or project") from None


def parse_status(value: str) -> str:
    status = str(value).strip()
    if status not in STATUSES:
        raise InvalidInputError(f"unknown status '{status}'", f"use one of: {', '.join(STATUSES)}")
    return status


def parse_statuses(value: str | None) -> tuple[str, ...]:
    if value is None:
        return LIVE_STATUSES
    if value == "all":
        return ()
    return tuple(parse_status(part) for part in split_list(value))
