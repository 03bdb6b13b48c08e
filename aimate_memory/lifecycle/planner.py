"""The lifecycle policy as a pure function: vault state + access tallies + now + policy → actions (docs/design.md §5).

Nothing here reads a file or a clock; `maintenance.py` gathers the inputs and `executor.py` applies the
plan. Each action carries the reason that ends up in the maintenance commit message.

Rules, per memory that is not already under `archive/`:

1. **promote** (short_term, not a task): explicit uses in the journal (docs/lifecycle.md "Uses") ≥
   `short_term.promote_threshold`, falling on ≥ `short_term.promote_min_days` different days →
   `long_term/<category>/` with `type: long_term`, the category mapped by `PROMOTED_CATEGORY`, `expires_at`
   removed, `source: promotion`. A task is never promoted: it is done (`aimate mem done`) or expires.
   Use beats age: a memory that earned promotion is promoted even when its TTL ran out in the same run
   (the run is hourly; the two only meet when the daemon was off).
2. **expire** (short_term): `expires_at` (else `created_at` + `short_term.default_ttl_days`) ≤ now →
   `archive/short_term/…` with `status: expired`.
3. **archive** (long_term): last use (the journal's, else a legacy `accessed_at`, else `updated_at`) at
   least `long_term.archive_after_days` ago and importance < `long_term.archive_exempt_importance` →
   `archive/long_term/…` with `status: archived`.
4. **archive_session** (session): a file under `sessions/` other than `sessions/current.md`, with
   `status: ended` or an `ended_at` key, that is not yet in its month folder → `sessions/YYYY-MM/<name>`
   (month of `started_at`, else `created_at`) with `status: archived`. Sessions stay in the session layer:
   the month folders *are* the session archive (docs/design.md §3, §5).
5. **archive_superseded** (any layer, core included): `status: superseded` (a capture replaced it, see
   `capture/supersede.py`) and not changed for `long_term.archive_after_days` (its `updated_at` is when it
   was superseded) → `archive/…`, status kept. Importance does not exempt it: what replaced it carries
   the importance now, and git and `superseded_by` keep the chain.

Uses are never written into a file: a read changes nothing git or review shows (issue 39). Every memory
gets at most one action per run. Live core memories never move.
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

# Which long-term category a promoted short-term memory joins: notes and context summaries are knowledge.
# Any other (person-made) category keeps its name.
PROMOTED_CATEGORY: dict[str, str] = {"note": "knowledge", "context": "knowledge"}
# A task is work to do, not knowledge: reading it often means it is still open, never that it became how the
# project works. It is closed when done (`aimate mem done`) or expires (docs/lifecycle.md "Uses").
NEVER_PROMOTED = frozenset({"task"})
LIVE = ("active", "pending")
SESSION_MONTH = re.compile(r"^\d{4}-\d{2}$")


class Kind:
    EXPIRE = "expire"
    PROMOTE = "promote"
    ARCHIVE = "archive"
    ARCHIVE_SESSION = "archive_session"
    ARCHIVE_SUPERSEDED = "archive_superseded"
    MERGE = "merge"  # dedupe survivor: union of tags, highest importance
    SUPERSEDE = "supersede"  # dedupe loser → archive/ as superseded

    MOVES = frozenset({EXPIRE, PROMOTE, ARCHIVE, ARCHIVE_SESSION, ARCHIVE_SUPERSEDED, SUPERSEDE})
    ORDER = (EXPIRE, PROMOTE, ARCHIVE, ARCHIVE_SESSION, ARCHIVE_SUPERSEDED, MERGE, SUPERSEDE)


@dataclass(frozen=True)
class Policy:
    default_ttl_days: float = 14
    promote_threshold: int = 5
    promote_min_days: int = 3
    archive_after_days: float = 90
    archive_exempt_importance: int = 4

    @classmethod
    def from_config(cls, config: Config) -> Policy:
        return cls(
            default_ttl_days=float(config.get("short_term.default_ttl_days")),
            promote_threshold=int(config.get("short_term.promote_threshold")),
            promote_min_days=int(config.get("short_term.promote_min_days")),
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
    sessions). `tallies`: each memory's explicit uses (the journal)."""
    actions: list[Action] = []
    for memory in memories:
        # A hand-made file without an id is known by a path-derived id; a move writes it, so the memory
        # keeps its identity (and its uses in the journal) when it moves.
        fields: dict[str, Any] = {"id": memory.id} if memory.provisional_id else {}
        # Archived memories never move again; core memories never move.
        action = None if memory.archived else _move_for(memory, tallies.get(memory.id), fields, now, policy)
        if action is not None:
            actions.append(action)
    rank = {kind: position for position, kind in enumerate(Kind.ORDER)}
    actions.sort(key=lambda action: (rank[action.kind], action.rel_path.as_posix()))
    return actions


def last_use(memory: Memory, tally: AccessTally | None) -> datetime:
    """When the memory was last read: the journal's last use, a legacy `accessed_at` (files written before
    uses left the frontmatter), else its last change."""
    known = [when for when in (tally.last if tally else None, memory.accessed_at) if when is not None]
    return max(known) if known else memory.updated_at


def promotion_due(memory: Memory, tally: AccessTally | None, policy: Policy) -> bool:
    """Used often enough, on enough different days (one sitting re-reading a note is not lasting use)."""
    if memory.category in NEVER_PROMOTED or tally is None:
        return False
    return tally.count >= policy.promote_threshold and len(tally.days) >= policy.promote_min_days


def _move_for(
    memory: Memory, tally: AccessTally | None, counters: dict[str, Any], now: datetime, policy: Policy
) -> Action | None:
    if memory.layer is Layer.SESSION:
        return _session_action(memory, counters, now)
    if memory.status == "superseded":
        return _superseded_action(memory, counters, now, policy)
    if memory.status not in LIVE:
        return None
    if memory.layer is Layer.SHORT_TERM:
        if tally is not None and promotion_due(memory, tally, policy):
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
            reason = (
                f"used {tally.count} times on {len(tally.days)} days (threshold {policy.promote_threshold} on "
                f"{policy.promote_min_days}): {memory.category} → {category}"
            )
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
        last_used = last_use(memory, tally)
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
