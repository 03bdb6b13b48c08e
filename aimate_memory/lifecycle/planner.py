"""The lifecycle policy as a pure function: vault state + access tallies + now + policy → actions (docs/design.md §5).

Nothing here reads a file or a clock; `maintenance.py` gathers the inputs and `executor.py` applies the
plan. Each action carries the reason that ends up in the maintenance commit message.

Rules, per memory that is not already under `archive/`:

1. **promote** (short_term): accesses in frontmatter + the journal ≥ `short_term.promote_threshold` →
   `long_term/<category>/` with `type: long_term`, the category mapped by `PROMOTED_CATEGORY`, `expires_at`
   removed, `source: promotion`. Use beats age: a memory that earned promotion is promoted even when its
   TTL ran out in the same run (the run is hourly; the two only meet when the daemon was off).
2. **expire** (short_term): `expires_at` (else `created_at` + `short_term.default_ttl_days`) ≤ now →
   `archive/short_term/…` with `status: expired`.
3. **archive** (long_term): last use (`accessed_at`, journal included, else `updated_at`) at least
   `long_term.archive_after_days` ago and importance < `long_term.archive_exempt_importance` →
   `archive/long_term/…` with `status: archived`.
4. **archive_session** (session): a file under `sessions/` other than `sessions/current.md`, with
   `status: ended` or an `ended_at` key, that is not yet in its month folder → `sessions/YYYY-MM/<name>`
   (month of `started_at`, else `created_at`) with `status: archived`. Sessions stay in the session layer:
   the month folders *are* the session archive (docs/design.md §3, §5).
5. **archive_superseded** (any layer, core included): `status: superseded` (a capture replaced it, see
   `capture/supersede.py`) and not changed for `long_term.archive_after_days` (its `updated_at` is when it
   was superseded) → `archive/…`, status kept. Importance does not exempt it: what replaced it carries
   the importance now, and git and `superseded_by` keep the chain.
6. **fold** (any layer): journal accesses not carried by a move above → `access_count`/`accessed_at`
   written as absolute values (so applying the same action twice is harmless), `updated_at` untouched.

Moves carry the folded counters in their `fields`, so every memory gets at most one action per run.
Live core memories never move.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from aimate_memory.lifecycle.journal import AccessTally
from aimate_memory.vault.layout import Layer, archive_path_for, folder_for, memory_file_name
from aimate_memory.vault.model import Memory, to_datetime

if TYPE_CHECKING:
    from aimate_memory.config.loader import Config

# Which long-term category a promoted short-term memory joins. A task used again and again is part of
# how the project works (long_term/projects); notes and context summaries are knowledge. Any other
# (person-made) category keeps its name.
PROMOTED_CATEGORY: dict[str, str] = {"task": "project", "note": "knowledge", "context": "knowledge"}
LIVE = ("active", "pending")
SESSION_MONTH = re.compile(r"^\d{4}-\d{2}$")


class Kind:
    EXPIRE = "expire"
    PROMOTE = "promote"
    ARCHIVE = "archive"
    ARCHIVE_SESSION = "archive_session"
    ARCHIVE_SUPERSEDED = "archive_superseded"
    FOLD = "fold"
    MERGE = "merge"  # dedupe survivor: union of tags, highest importance, summed count
    SUPERSEDE = "supersede"  # dedupe loser → archive/ as superseded

    MOVES = frozenset({EXPIRE, PROMOTE, ARCHIVE, ARCHIVE_SESSION, ARCHIVE_SUPERSEDED, SUPERSEDE})
    ORDER = (EXPIRE, PROMOTE, ARCHIVE, ARCHIVE_SESSION, ARCHIVE_SUPERSEDED, FOLD, MERGE, SUPERSEDE)


@dataclass(frozen=True)
class Policy:
    default_ttl_days: float = 14
    promote_threshold: int = 5
    archive_after_days: float = 90
    archive_exempt_importance: int = 4

    @classmethod
    def from_config(cls, config: Config) -> Policy:
        return cls(
            default_ttl_days=float(config.get("short_term.default_ttl_days")),
            promote_threshold=int(config.get("short_term.promote_threshold")),
            archive_after_days=float(config.get("long_term.archive_after_days")),
            archive_exempt_importance=int(config.get("long_term.archive_exempt_importance")),
        )


@dataclass(frozen=True)
class Action:
    """One change to one memory file. `fields` are absolute values (None removes a key)."""

    kind: str
    memory_id: str
    rel_path: PurePosixPath
    target_rel_path: PurePosixPath | None
    fields: Mapping[str, Any] = field(default_factory=dict)
    reason: str = ""
    title: str = ""

    @property
    def is_move(self) -> bool:
        return self.target_rel_path is not None and self.target_rel_path != self.rel_path

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "memory_id": self.memory_id,
            "path": self.rel_path.as_posix(),
            "target": self.target_rel_path.as_posix() if self.target_rel_path else None,
            "fields": {key: _json_value(value) for key, value in self.fields.items()},
            "reason": self.reason,
            "title": self.title,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Action:
        fields = {key: _from_json_value(key, value) for key, value in dict(data.get("fields") or {}).items()}
        target = data.get("target")
        return cls(
            kind=str(data["kind"]),
            memory_id=str(data["memory_id"]),
            rel_path=PurePosixPath(str(data["path"])),
            target_rel_path=PurePosixPath(str(target)) if target else None,
            fields=fields,
            reason=str(data.get("reason") or ""),
            title=str(data.get("title") or ""),
        )


def plan(
    memories: Iterable[Memory],
    tallies: Mapping[str, AccessTally],
    now: datetime,
    policy: Policy,
) -> list[Action]:
    """The lifecycle actions due at `now`, in the order of docs/design.md §5 (expire, promote, archive,
    sessions, fold)."""
    actions: list[Action] = []
    for memory in memories:
        tally = tallies.get(memory.id)
        counters = _counters(memory, tally)
        if memory.provisional_id:
            # A hand-made file without an id is known by a path-derived id; write it, so the memory keeps
            # its identity when it moves (and a resumed run can find it).
            counters["id"] = memory.id
        # Archived memories only get their counters folded; core memories never move.
        action = None if memory.archived else _move_for(memory, counters, now, policy)
        if action is not None:
            actions.append(action)
        elif tally is not None:
            actions.append(
                Action(
                    Kind.FOLD,
                    memory.id,
                    memory.rel_path,
                    None,
                    counters,
                    f"accessed {tally.count} time(s) since the last run",
                    memory.title,
                )
            )
    rank = {kind: position for position, kind in enumerate(Kind.ORDER)}
    actions.sort(key=lambda action: (rank[action.kind], action.rel_path.as_posix()))
    return actions


def _counters(memory: Memory, tally: AccessTally | None) -> dict[str, Any]:
    if tally is None:
        return {}
    last = tally.last if memory.accessed_at is None else max(memory.accessed_at, tally.last)
    return {"access_count": memory.access_count + tally.count, "accessed_at": last}


def _move_for(memory: Memory, counters: dict[str, Any], now: datetime, policy: Policy) -> Action | None:
    if memory.layer is Layer.SESSION:
        return _session_action(memory, counters, now)
    if memory.status == "superseded":
        return _superseded_action(memory, counters, now, policy)
    if memory.status not in LIVE:
        return None
    count = counters.get("access_count", memory.access_count)
    if memory.layer is Layer.SHORT_TERM:
        if count >= policy.promote_threshold:
            category = PROMOTED_CATEGORY.get(memory.category, memory.category)
            folder = folder_for(Layer.LONG_TERM, category)
            name = memory_file_name(memory.created_at, category, memory.title)
            fields = {
                **counters,
                "type": Layer.LONG_TERM.value,
                "category": category,
                "expires_at": None,
                "source": "promotion",
                "promoted_at": now,
            }
            reason = f"accessed {count} times (threshold {policy.promote_threshold}): {memory.category} → {category}"
            return Action(Kind.PROMOTE, memory.id, memory.rel_path, folder / name, fields, reason, memory.title)
        expires = memory.expires_at or memory.created_at + timedelta(days=policy.default_ttl_days)
        if expires <= now:
            fields = {**counters, "archived_at": now}
            fields["status"] = "expired"
            reason = f"expired {expires.date().isoformat()} (short-term TTL)"
            target = archive_path_for(memory.rel_path)
            return Action(Kind.EXPIRE, memory.id, memory.rel_path, target, fields, reason, memory.title)
        return None
    if memory.layer is Layer.LONG_TERM:
        if memory.importance >= policy.archive_exempt_importance:
            return None
        last_used = counters.get("accessed_at") or memory.accessed_at or memory.updated_at
        idle = now - last_used
        if idle >= timedelta(days=policy.archive_after_days):
            fields = {**counters, "status": "archived", "archived_at": now}
            reason = f"unused for {idle.days} days (since {last_used.date().isoformat()})"
            target = archive_path_for(memory.rel_path)
            return Action(Kind.ARCHIVE, memory.id, memory.rel_path, target, fields, reason, memory.title)
    return None


def _superseded_action(memory: Memory, counters: dict[str, Any], now: datetime, policy: Policy) -> Action | None:
    idle = now - memory.updated_at
    if idle < timedelta(days=policy.archive_after_days):
        return None
    fields = {**counters, "archived_at": now}
    replaced_by = memory.doc.get("superseded_by") if memory.doc is not None else None
    by = f" by {str(replaced_by)[:8]}" if replaced_by else ""
    reason = f"superseded{by} {idle.days} days ago (since {memory.updated_at.date().isoformat()})"
    target = archive_path_for(memory.rel_path)
    return Action(Kind.ARCHIVE_SUPERSEDED, memory.id, memory.rel_path, target, fields, reason, memory.title)


def session_ended(memory: Memory) -> bool:
    doc = memory.doc
    ended_at = doc.get("ended_at") if doc is not None else None
    return memory.status == "ended" or bool(ended_at)


def session_month_folder(memory: Memory) -> PurePosixPath:
    doc = memory.doc
    started = to_datetime(doc.get("started_at")) if doc is not None else None
    when = started or memory.created_at
    return PurePosixPath(Layer.SESSION.folder, when.strftime("%Y-%m"))


def _session_action(memory: Memory, counters: dict[str, Any], now: datetime) -> Action | None:
    parts = memory.rel_path.parts
    if memory.rel_path == PurePosixPath(Layer.SESSION.folder, "current.md") or not session_ended(memory):
        return None
    if len(parts) == 3 and SESSION_MONTH.match(parts[1]):
        return None  # already in a month folder: archived
    folder = session_month_folder(memory)
    fields = {**counters, "status": "archived", "archived_at": now}
    reason = f"session ended; archived under {folder.as_posix()}/"
    target = folder / memory.rel_path.name
    return Action(Kind.ARCHIVE_SESSION, memory.id, memory.rel_path, target, fields, reason, memory.title)


def summarize(actions: Iterable[Action]) -> str:
    """`expired 3, promoted 1, archived 2` (zero counts left out)."""
    counts: dict[str, int] = {}
    for action in actions:
        counts[action.kind] = counts.get(action.kind, 0) + 1
    words = (
        (Kind.EXPIRE, "expired"),
        (Kind.PROMOTE, "promoted"),
        (Kind.ARCHIVE, "archived"),
        (Kind.ARCHIVE_SESSION, "sessions archived"),
        (Kind.ARCHIVE_SUPERSEDED, "superseded archived"),
        (Kind.MERGE, "merged"),
        (Kind.SUPERSEDE, "superseded"),
        (Kind.FOLD, "access counts folded"),
    )
    parts = [f"{word} {counts[kind]}" for kind, word in words if counts.get(kind)]
    return ", ".join(parts) or "nothing to do"


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [_json_value(item) for item in value]
    return value


_TIME_KEYS = frozenset({"accessed_at", "archived_at", "promoted_at", "updated_at", "created_at", "expires_at"})


def _from_json_value(key: str, value: Any) -> Any:
    if key in _TIME_KEYS and isinstance(value, str):
        return to_datetime(value)
    return value
