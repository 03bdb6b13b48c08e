"""What each page shows, gathered through the facade and the client the CLI uses (no rule of its own: review
is `system.git`, the preview is `build_context`, search is the client's `search`, an edit is `set_fields`),
turned into plain values for the templates. Runs on the page's one worker thread (SQLite connections belong
to the thread that opened them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from aimate_memory.errors import AimateError, InvalidInputError
from aimate_memory.system.records import (
    SCORE_PARTS,
    ContextRecord,
    HitRecord,
    LinkedMemory,
    MemoryDetailsRecord,
    SearchRecord,
    TimelineEvent,
    TimelineRecord,
)
from aimate_memory.vault.dates import parse_optional_when
from aimate_memory.vault.filters import MemoryFilter, parse_layer, parse_scope, parse_statuses
from aimate_memory.vault.layout import Layer, Scope, location_of
from aimate_memory.vault.lists import split_list

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.system.client import RoutedClient
    from aimate_memory.system.history import ReviewItem
    from aimate_memory.vault.model import Memory

BROWSE_LIMIT = 200  # memories listed without a query, newest first
SEARCH_LIMIT = 20
# The fields the edit form holds, in its order; the body is edited beside them (`set_fields(..., body=…)`).
EDITABLE = ("title", "layer", "category", "tags", "importance", "status")
# Keys other parts of the tool may add to a memory or a review item (issue 27): shown as flags when present.
FLAG_KEYS = {
    "stale": "flag.stale",
    "conflict": "flag.conflict",
    "conflicts": "flag.conflict",
    "conflicts_with": "flag.conflict",
}


# -- shared -----------------------------------------------------------------------------------------


def flags_of(*sources: Mapping[str, Any] | None) -> list[str]:
    """The word keys of the flags (`stale`, `conflict`) the records carry, when they carry any."""
    found: list[str] = []
    for source in sources:
        for key, word in FLAG_KEYS.items():
            if source and source.get(key) and word not in found:
                found.append(word)
    return found


def short_time(value: str | None) -> str:
    """An ISO time as `YYYY-MM-DD HH:MM` (as written, no zone arithmetic)."""
    return (value or "").replace("T", " ")[:16]


# -- review -----------------------------------------------------------------------------------------


@dataclass
class ReviewCard:
    """One pending change as the memory it is."""

    scope: str
    path: str
    old_path: str | None
    kind: str  # pending | added | modified | deleted | renamed | conflict
    memory_id: str
    title: str
    layer: str
    category: str
    tags: list[str]
    fields: list[tuple[str, str, str]]  # name, before, after
    body_diff: list[tuple[str, str]]  # (+ | - | " ", line)
    diff: str
    secrets: list[str]
    flags: list[str]
    # The active memories a pending capture may contradict, when the review record names them (issue 27 §4):
    # each {"id", "title", "reason", …}; accepting the capture supersedes them.
    conflicts: list[Mapping[str, Any]] = field(default_factory=list)

    parse_error: str | None = None  # the file does not parse: nothing to accept until it does
    # A session's proposal (docs/design.md, "Capture from a conversation"): the session and turn its words
    # came from, and how many times the person said it (1 when once); None for anything else.
    proposal: Mapping[str, Any] | None = None

    @property
    def can_accept(self) -> bool:
        return self.kind not in ("conflict", "broken")


def review_cards(system: MemorySystem) -> list[ReviewCard]:
    """Every pending change (`system.git.pending_changes`, as `aimate mem review` lists them)."""
    return [_card(system, item) for item in system.git.pending_changes()]


def _card(system: MemorySystem, item: ReviewItem) -> ReviewCard:
    change = item.change
    data = item.to_dict()
    memory = _load(system, item.scope, change.path) if change.status not in ("deleted", "conflict") else None
    where = location_of(change.path)
    kind = change.status
    if change.memory_status == "pending" and change.status in ("added", "modified", "renamed"):
        kind = "pending"
    if change.parse_error is not None and change.status != "conflict":
        kind = "broken"
    return ReviewCard(
        scope=item.scope,
        path=change.path.as_posix(),
        old_path=change.old_path.as_posix() if change.old_path else None,
        kind=kind,
        memory_id=change.memory_id or "",
        title=change.title or change.path.as_posix(),
        layer=memory.layer.value if memory else (where.layer.value if where.layer else ""),
        category=memory.category if memory else (where.category or ""),
        tags=list(memory.tags) if memory else [],
        fields=[(key, _shown(before), _shown(after)) for key, (before, after) in change.fields.items()],
        body_diff=[_diff_line(line) for line in change.body_diff.splitlines()],
        diff=change.diff,
        secrets=[f"{s.location}: {s.kind}: {s.excerpt_masked}" for s in change.secrets],
        flags=flags_of(data, _meta(memory)),
        conflicts=[item for item in data.get("conflicts") or () if isinstance(item, Mapping)],
        parse_error=change.parse_error,
        proposal=_proposal(_meta(memory)) if kind == "pending" else None,
    )


def _proposal(meta: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """Where a session's proposal came from, for its card: the session (short id), the turn, times said."""
    session, turn = meta.get("session"), meta.get("turn")
    if meta.get("source") != "session" or session is None:
        return None
    said = meta.get("said")
    return {"session": str(session)[:8], "turn": turn, "said": said if isinstance(said, int) and said > 1 else 1}


def _diff_line(line: str) -> tuple[str, str]:
    """A body diff line as (sign, text); "… 3 more lines" has no sign."""
    return (line[:1], line[1:]) if line[:1] in ("+", "-") else (" ", line)


def _load(system: MemorySystem, scope: str, path: PurePosixPath) -> Memory | None:
    try:
        return system.store.vault_for(Scope(scope)).load(path, read_only=True)
    except (AimateError, OSError, ValueError):
        return None  # not a memory the vault can read: the change is shown from its path


def _meta(memory: Memory | None) -> dict[str, Any]:
    return dict(memory.doc.meta) if memory is not None and memory.doc is not None else {}


def _shown(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


# -- context ----------------------------------------------------------------------------------------


@dataclass
class SectionBar:
    layer: str
    scope: str
    used: int
    allowance: int
    items: list[Mapping[str, Any]]
    left_out: list[Mapping[str, Any]]

    @property
    def percent(self) -> float:
        """Used, as a share of the section's allowance (0–100)."""
        return round(100.0 * self.used / self.allowance, 1) if self.allowance > 0 else (100.0 if self.used else 0.0)


@dataclass
class ContextView:
    query: str
    record: ContextRecord
    bars: list[SectionBar] = field(default_factory=list)

    @property
    def used(self) -> int:
        return self.record.total_tokens

    def share(self, tokens: int) -> float:
        """`tokens` as a share of the whole budget (0–100), for the stacked bar."""
        return round(100.0 * tokens / self.record.budget, 3) if self.record.budget > 0 else 0.0


def context_view(system: MemorySystem, query: str | None, budget: str | None) -> ContextView:
    """The context as an assistant would get it (session start without a query, prompt time with one). The
    budget defaults to the hooks' one (`hooks.context_budget`), what a session start is given."""
    wanted = _budget(budget) or int(system.config.get("hooks.context_budget"))
    query = (query or "").strip()
    record = ContextRecord.of(system.build_context(query or None, wanted))
    bars = [
        SectionBar(
            str(section.get("layer")),
            str(section.get("scope")),
            int(section.get("tokens") or 0),
            int(section.get("allowance") or 0),
            list(section.get("items") or ()),
            list(section.get("left_out") or ()),
        )
        for section in record.sections
    ]
    return ContextView(query, record, bars)


def _budget(value: str | None) -> int | None:
    text = (value or "").strip()
    if not text:
        return None
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number <= 0:
        raise InvalidInputError(f"a token budget must be a positive whole number, got {text!r}", "e.g. 3000")
    return number


# -- search and browse ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filters:
    """The search form as typed (strings), and the filter it means (the CLI's parsers)."""

    query: str = ""
    layer: str = ""
    scope: str = ""
    category: str = ""
    tags: str = ""
    since: str = ""
    status: str = ""

    @classmethod
    def of(cls, params: Mapping[str, str]) -> Filters:
        """From the address: `/search?q=…&layer=…&scope=…&category=…&tags=…&since=…&status=…`."""
        values = {name: (params.get(name) or "").strip() for name in ("layer", "scope", "category", "tags", "since")}
        return cls(query=(params.get("q") or "").strip(), status=(params.get("status") or "").strip(), **values)

    def where(self, now: datetime) -> MemoryFilter:
        return MemoryFilter(
            layers=(parse_layer(self.layer),) if self.layer else (),
            scopes=(parse_scope(self.scope),) if self.scope else (),
            categories=tuple(split_list(self.category)),
            tags=tuple(split_list(self.tags)),
            statuses=parse_statuses(self.status or None),
            updated_after=parse_optional_when(self.since or None, now, "since"),
        )


@dataclass
class SearchView:
    filters: Filters
    hits: list[HitRecord] = field(default_factory=list)
    memories: list[Memory] = field(default_factory=list)
    record: SearchRecord | None = None
    total: int = 0
    layers: Sequence[str] = tuple(layer.value for layer in Layer)


def search_view(client: RoutedClient, filters: Filters) -> SearchView:
    """With a query, the client's search (the daemon's when one runs) with each score's factors; without one,
    the memories the filters match, newest first (`list`)."""
    system = client.local.system
    where = filters.where(system.clock.now())
    view = SearchView(filters)
    if filters.query:
        client.require_vault()
        view.record = client.search(filters.query, SEARCH_LIMIT, where)
        view.hits = list(view.record.hits)
        return view
    system = client.local.fresh()
    view.memories = system.list(where, limit=BROWSE_LIMIT)
    view.total = system.count(where) if len(view.memories) == BROWSE_LIMIT else len(view.memories)
    return view


# How a score is explained (the CLI's `--explain`): the evidence, the relevance made of it, the weights.
EVIDENCE = (("similarity", "cosine"), ("vector", "vector"), ("keyword", "keyword"))
WEIGHTS = (("recency", "recency"), ("importance", "importance"), ("access", "use"))


def explanation(factors: Mapping[str, float]) -> list[tuple[str, str]]:
    """(label, value) pairs: the evidence, the relevance, each weight, the parts that add up to the score."""
    rows = [(label, f"{factors[key]:.3f}") for key, label in EVIDENCE if key in factors]
    rows.append(("relevance", f"{factors.get('relevance', 0.0):.3f}"))
    rows += [(f"weight: {label}", f"{factors[key]:.3f}") for key, label in WEIGHTS if key in factors]
    rows += [(f"+ {label}", f"{factors[key]:.3f}") for key, label in SCORE_PARTS if key in factors]
    rows.append(("= final", f"{factors.get('final', 0.0):.3f}"))
    rows.append(("days old", f"{factors.get('days', 0.0):.0f}"))
    return rows


# -- one memory -------------------------------------------------------------------------------------


@dataclass
class MemoryView:
    """`system.details` (the memory, its history across moves, supersede chain, thread neighbours, related,
    anchors and stale) with what the template lists."""

    details: MemoryDetailsRecord
    frontmatter: list[tuple[str, str]]
    flags: list[str]
    anchors: list[str]

    @property
    def memory(self) -> Mapping[str, Any]:
        return self.details.memory

    @property
    def thread(self) -> list[LinkedMemory]:
        """Its conversation in order: the neighbours before it (oldest first), itself, the ones after."""
        memory = self.details.memory
        itself = LinkedMemory(str(memory.get("id")), str(memory.get("id")), str(memory.get("title")))
        if not self.details.thread_before and not self.details.thread_after:
            return []
        return [*reversed(self.details.thread_before), itself, *self.details.thread_after]


def memory_view(system: MemorySystem, ref: str) -> MemoryView:
    """A memory's page: `system.details` (counted as a use, like `show`)."""
    details = system.details(ref)
    anchors = details.anchors if isinstance(details.anchors, list) else [details.anchors] if details.anchors else []
    return MemoryView(
        details=details,
        frontmatter=[(str(key), _shown(_plain(value))) for key, value in details.frontmatter.items()],
        flags=flags_of(details.frontmatter, {"stale": details.stale}),
        anchors=[_shown(_plain(anchor)) for anchor in anchors],
    )


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return ", ".join(f"{key}: {_plain(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value.isoformat() if hasattr(value, "isoformat") else value


# -- timeline ---------------------------------------------------------------------------------------

TIMELINE_LIMIT = 500  # events shown, newest first (the record says when older ones were left out)


@dataclass
class TimelineView:
    since: str
    scope: str
    by: str  # day | session
    record: TimelineRecord
    groups: list[tuple[str | None, tuple[TimelineEvent, ...]]]


def timeline_view(system: MemorySystem, since: str | None, scope: str | None, by: str | None) -> TimelineView:
    """`system.timeline` grouped by day (default) or by session."""
    since, scope = (since or "").strip(), (scope or "").strip()
    grouping = "session" if by == "session" else "day"
    record = system.timeline(since or None, TIMELINE_LIMIT, scope or None)
    groups = record.by_session() if grouping == "session" else record.by_day()
    return TimelineView(since, scope, grouping, record, [(name, events) for name, events in groups.items()])


def edit_values(memory: Memory) -> dict[str, str]:
    """The edit form's fields, filled from the memory."""
    return {
        "title": memory.title,
        "layer": memory.layer.value,
        "category": memory.category,
        "tags": ", ".join(memory.tags),
        "importance": str(memory.importance),
        "status": memory.status,
        "body": memory.body,
    }


def save_edit(system: MemorySystem, ref: str, form: Mapping[str, str]) -> Memory:
    """The edit form saved: the fields that differ from the file and the body, in one `set_fields` (the
    validation of `aimate mem set`: nothing is written when one value is refused)."""
    memory = system.get(ref)
    before = edit_values(memory)
    changed = {key: form[key] for key in EDITABLE if key in form and form[key].strip() != before[key].strip()}
    body = form.get("body")
    if body is not None:
        body = body.replace("\r\n", "\n")
    if not changed and (body is None or body.strip("\n") == memory.body.strip("\n")):
        return memory
    return system.set_fields(memory.id, changed, body=body)
