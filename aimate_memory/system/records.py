"""The shapes that cross a process boundary — the daemon's socket, the MCP server, a hook's output — one
frozen record each, with `to_dict` (JSON-ready) and `from_dict` (its inverse). The facade's own results
(`SearchHit`, `CaptureResult`, `Context`, `AppendResult`) hold live objects (a `Memory`, enums, datetimes);
these hold plain values, so the daemon's reply and an in-process answer are the same record and every face
prints one shape (docs/architecture.md, "One client").

Only the standard library at import time: a hook that the daemon answers builds these without importing
the facade."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from aimate_memory.vault.lists import split_list

# The keys of a hit's factors (`search --explain`) that add up to its shown score (`final`), with the names the
# faces show (retrieval/hybrid.py makes them): each list's share of the fused score and the conversation
# neighbours' support, each × recency × importance × use, and what placing a neighbour after the first
# results lifted it by. The order shown is the order of that score (issue 36).
SCORE_PARTS = (
    ("vector_part", "vector"),
    ("keyword_part", "keyword"),
    ("date_part", "date"),
    ("neighbour_part", "neighbours"),
    ("placement", "placement"),
)

if TYPE_CHECKING:
    from aimate_memory.capture.result import CaptureResult
    from aimate_memory.context.model import Context
    from aimate_memory.retrieval.hybrid import SearchHit, SearchResponse
    from aimate_memory.sessions.store import AppendResult
    from aimate_memory.vault.anchors import Staleness
    from aimate_memory.vault.filters import MemoryFilter
    from aimate_memory.vault.model import Memory
    from aimate_memory.vault.store import Vault

Json = dict[str, Any]

CONFLICT_FIELD = "conflicts_with"  # frontmatter: the ids a pending memory may contradict, until a person chooses


def conflicts_with(memory: Memory) -> list[str]:
    """The ids in a memory's `conflicts_with` field (empty when it has none). Here, not in system/conflicts.py:
    review and the timeline read the field without loading the conflict check (docs/design.md, "What a cold
    command loads")."""
    return split_list(memory.doc.get(CONFLICT_FIELD) if memory.doc is not None else None)


def _text(data: Mapping[str, Any], key: str) -> str | None:
    """`data[key]` as a string; None when it is missing or null."""
    return str(data[key]) if data.get(key) is not None else None


def _staleness(data: Mapping[str, Any]) -> Staleness:
    """`Staleness.from_dict`, imported here: `vault.anchors` (hashlib, its patterns) is not needed to print a
    record, only to rebuild one that says it is stale."""
    from aimate_memory.vault.anchors import Staleness

    return Staleness.from_dict(data)


def _strings(values: Any) -> tuple[str, ...]:
    return tuple(str(value) for value in values or ())


@dataclass(frozen=True)
class VaultRef:
    """A vault that answered: its scope ("project" or "global") and root folder."""

    scope: str
    root: str

    @classmethod
    def of(cls, vault: Vault) -> VaultRef:
        return cls(vault.scope.value, str(vault.root))

    def to_dict(self) -> Json:
        return {"scope": self.scope, "root": self.root}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> VaultRef:
        return cls(str(data["scope"]), str(data["root"]))


@dataclass(frozen=True)
class HitRecord:
    """One search result. `factors` (the score's parts) travel always and are shown on request (`--explain`);
    `context_of`: the id of the result this one is shown next to (its conversation neighbour)."""

    id: str
    title: str
    path: str  # vault-relative, POSIX
    scope: str
    layer: str
    category: str
    tags: tuple[str, ...]
    updated_at: str  # ISO 8601
    score: float
    snippet: str = ""
    highlights: tuple[tuple[int, int], ...] = ()
    factors: Mapping[str, float] = field(default_factory=dict)
    context_of: str | None = None
    #: an anchored file changed, moved or vanished since the memory was verified (docs/anchors.md)
    stale: Staleness | None = None
    #: "active", or "pending" (waiting for review: shown marked, never as memory; docs/design.md "Pending")
    status: str = "active"
    #: a past session's episode (what was asked, decided, left open): how a past session reaches a prompt
    episode: tuple[str, ...] = ()

    @property
    def reviewed(self) -> bool:
        """Whether the hit is a memory an assistant may be handed as such (not waiting for review)."""
        return self.status != "pending"

    @property
    def location(self) -> str:
        """`scope:path`, e.g. "project:long_term/decisions/redis.md"."""
        return f"{self.scope}:{self.path}"

    @classmethod
    def of(cls, hit: SearchHit) -> HitRecord:
        memory = hit.memory
        return cls(
            id=memory.id,
            title=memory.title,
            path=memory.rel_path.as_posix(),
            scope=memory.scope.value,
            layer=memory.layer.value,
            category=memory.category,
            tags=tuple(memory.tags),
            updated_at=memory.updated_at.isoformat(),
            score=round(hit.score, 6),
            snippet=hit.snippet,
            highlights=tuple((int(start), int(end)) for start, end in hit.highlights),
            factors={key: round(value, 6) for key, value in hit.factors.items()},
            context_of=hit.context_of,
            stale=hit.stale,
            status=memory.status,
            episode=hit.episode,
        )

    def to_dict(self, explain: bool = False) -> Json:
        """What `search --json` prints (and the daemon sends, with `explain`)."""
        data: Json = {
            "id": self.id,
            "title": self.title,
            "path": self.path,
            "layer": self.layer,
            "scope": self.scope,
            "category": self.category,
            "status": self.status,
            "tags": list(self.tags),
            "updated_at": self.updated_at,
            "score": self.score,
            "snippet": self.snippet,
            "highlights": [list(span) for span in self.highlights],
            "stale": self.stale.to_dict() if self.stale is not None else None,
        }
        if self.context_of is not None:
            data["context_of"] = self.context_of
        if self.episode:
            data["episode"] = list(self.episode)
        if explain:
            data["factors"] = dict(self.factors)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HitRecord:
        return cls(
            id=str(data["id"]),
            title=str(data["title"]),
            path=str(data["path"]),
            scope=str(data["scope"]),
            layer=str(data["layer"]),
            category=str(data.get("category") or ""),
            tags=_strings(data.get("tags")),
            updated_at=str(data.get("updated_at") or ""),
            score=float(data["score"]),
            snippet=str(data.get("snippet") or ""),
            highlights=tuple((int(span[0]), int(span[1])) for span in data.get("highlights") or ()),
            factors={str(key): float(value) for key, value in (data.get("factors") or {}).items()},
            context_of=str(data["context_of"]) if data.get("context_of") else None,
            stale=_staleness(data["stale"]) if data.get("stale") else None,
            status=str(data.get("status") or "active"),
            episode=_strings(data.get("episode")),
        )


@dataclass(frozen=True)
class SearchRecord:
    """A search's answer: the hits best first, how it searched (`mode`: "hybrid" or "keyword"), which
    vaults answered and through what (`via`: "daemon" or "in-process")."""

    query: str
    hits: tuple[HitRecord, ...]
    mode: str
    warnings: tuple[str, ...] = ()
    elapsed_ms: float = 0.0
    vaults: tuple[VaultRef, ...] = ()
    via: str = "in-process"

    @classmethod
    def of(cls, response: SearchResponse, vaults: Sequence[Vault], via: str = "in-process") -> SearchRecord:
        return cls(
            query=response.query,
            hits=tuple(HitRecord.of(hit) for hit in response.results),
            mode=response.mode,
            warnings=tuple(response.warnings),
            elapsed_ms=float(response.elapsed_ms),
            vaults=tuple(VaultRef.of(vault) for vault in vaults),
            via=via,
        )

    def to_dict(self, explain: bool = True) -> Json:
        return {
            "query": self.query,
            "results": [hit.to_dict(explain) for hit in self.hits],
            "mode": self.mode,
            "warnings": list(self.warnings),
            "elapsed_ms": self.elapsed_ms,
            "vaults": [vault.to_dict() for vault in self.vaults],
            "via": self.via,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchRecord:
        return cls(
            query=str(data.get("query") or ""),
            hits=tuple(HitRecord.from_dict(item) for item in data.get("results") or ()),
            mode=str(data.get("mode") or "keyword"),
            warnings=_strings(data.get("warnings")),
            elapsed_ms=float(data.get("elapsed_ms") or 0.0),
            vaults=tuple(VaultRef.from_dict(item) for item in data.get("vaults") or ()),
            via=str(data.get("via") or "in-process"),
        )


@dataclass(frozen=True)
class ConflictRecord:
    """An active memory a new core memory or decision may contradict (docs/design.md, "Conflicts"): which one
    (id, title, where) and why, in a few words (`reason`: "indentation: tabs here, 4 spaces there"); `slot`:
    the subject both take a side on, when the table names it; `cosine`: how close the two are in the
    multilingual space (None: no model was loaded, the table alone decided)."""

    id: str
    title: str
    path: str  # vault-relative, POSIX
    scope: str
    layer: str
    category: str
    reason: str
    slot: str | None = None
    cosine: float | None = None

    @classmethod
    def of(cls, memory: Memory, reason: str, slot: str | None = None, cosine: float | None = None) -> ConflictRecord:
        return cls(
            id=memory.id,
            title=memory.title,
            path=memory.rel_path.as_posix(),
            scope=memory.scope.value,
            layer=memory.layer.value,
            category=memory.category,
            reason=reason,
            slot=slot,
            cosine=round(cosine, 4) if cosine is not None else None,
        )

    def to_dict(self) -> Json:
        return {
            "id": self.id,
            "title": self.title,
            "path": self.path,
            "scope": self.scope,
            "layer": self.layer,
            "category": self.category,
            "reason": self.reason,
            "slot": self.slot,
            "cosine": self.cosine,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConflictRecord:
        cosine = data.get("cosine")
        return cls(
            id=str(data["id"]),
            title=str(data.get("title") or ""),
            path=str(data.get("path") or ""),
            scope=str(data.get("scope") or ""),
            layer=str(data.get("layer") or ""),
            category=str(data.get("category") or ""),
            reason=str(data.get("reason") or ""),
            slot=str(data["slot"]) if data.get("slot") else None,
            cosine=float(cosine) if cosine is not None else None,
        )


@dataclass(frozen=True)
class CaptureRecord:
    """What `remember` did: `action` written | pending | dropped | exists | conflict; `memory` the memory's
    public fields (`Memory.public_dict()`) or None when nothing was kept; `supersedes` the id it replaced;
    `conflicts` the active memories it may contradict (with action conflict: it was written pending, for the
    person to choose in `aimate mem review`)."""

    action: str
    memory: Mapping[str, Any] | None
    supersedes: str | None
    reason: str
    conflicts: tuple[ConflictRecord, ...] = ()

    @property
    def memory_id(self) -> str:
        return str((self.memory or {}).get("id") or "")

    def line(self) -> str:
        """The human lines of `remember`: what happened, then why —
        `remembered 3f2a1c0d as core/preference (global): 我习惯用 Tab 缩进` / `  why: core/preference: …`."""
        memory = self.memory
        if memory is None:
            return f"not remembered: {self.reason}"
        short, title = self.memory_id[:8], memory.get("title")
        where = f"{memory.get('layer')}/{memory.get('category')} ({memory.get('scope')})"
        verbs = {"written": "remembered", "pending": "pending review:", "exists": "already remembered"}
        if memory.get("status") == "pending":
            verbs["exists"] = "already waiting for review:"  # said again before the person decided
        line = f"{verbs.get(self.action, self.action)} {short} as {where}: {title}"
        if self.supersedes:
            line += f" (supersedes {self.supersedes[:8]})"
        if self.action == "conflict":
            line = f"pending review: {short} as {where}: {title}\n{self._conflict_lines()}"
        return f"{line}\n  why: {self.reason}"

    def _conflict_lines(self) -> str:
        """What a person reads about a conflict: the memories it may contradict, and the three ways out."""
        short = self.memory_id[:8]
        others = ", ".join(conflict.id[:8] for conflict in self.conflicts)
        lines = [f'  may contradict {c.id[:8]} "{c.title}" ({c.reason})' for c in self.conflicts]
        lines += [
            f"  keep this one: aimate mem review --accept {short}   ({others} becomes superseded)",
            *(
                [f"  replace one:   aimate mem review --accept {short} --replace ID   (the others stay)"]
                if len(self.conflicts) > 1
                else []
            ),
            f"  keep both:     aimate mem review --accept {short} --keep-both",
            f"  keep the old:  aimate mem review --reject {short}",
        ]
        return "\n".join(lines)

    @classmethod
    def of(cls, result: CaptureResult) -> CaptureRecord:
        data = result.to_dict()
        return cls.from_dict(data)

    def to_dict(self) -> Json:
        return {
            "action": self.action,
            "memory": dict(self.memory) if self.memory is not None else None,
            "supersedes": self.supersedes,
            "reason": self.reason,
            "conflicts": [conflict.to_dict() for conflict in self.conflicts],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CaptureRecord:
        memory = data.get("memory")
        return cls(
            action=str(data.get("action") or ""),
            memory=dict(memory) if isinstance(memory, Mapping) else None,
            supersedes=str(data["supersedes"]) if data.get("supersedes") else None,
            reason=str(data.get("reason") or ""),
            conflicts=tuple(
                ConflictRecord.from_dict(item) for item in data.get("conflicts") or () if isinstance(item, Mapping)
            ),
        )


@dataclass(frozen=True)
class ContextRecord:
    """A built context: its `text` within `budget` tokens, the sections placed (each `Section.to_dict()`),
    and warnings ({"kind", "message"}: core memories left out, session usage, captures to review)."""

    text: str
    sections: tuple[Mapping[str, Any], ...]
    total_tokens: int
    budget: int
    warnings: tuple[Mapping[str, str], ...]

    @property
    def warning_messages(self) -> list[str]:
        return [str(warning.get("message")) for warning in self.warnings]

    @classmethod
    def of(cls, context: Context) -> ContextRecord:
        return cls.from_dict(context.to_dict())

    def to_dict(self) -> Json:
        return {
            "sections": [dict(section) for section in self.sections],
            "total_tokens": self.total_tokens,
            "budget": self.budget,
            "warnings": [dict(warning) for warning in self.warnings],
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ContextRecord:
        return cls(
            text=str(data.get("text") or ""),
            sections=tuple(dict(section) for section in data.get("sections") or () if isinstance(section, Mapping)),
            total_tokens=int(data.get("total_tokens") or 0),
            budget=int(data.get("budget") or 0),
            warnings=tuple(
                {str(key): str(value) for key, value in warning.items()}
                for warning in data.get("warnings") or ()
                if isinstance(warning, Mapping)
            ),
        )


@dataclass(frozen=True)
class AppendRecord:
    """A turn appended to a session: its number, the window after it (`usage`: share of
    `session.max_tokens`), whether it trimmed the window (and into which summary memory)."""

    turns: int
    window_tokens: int
    usage: float
    trimmed: bool
    summary_id: str | None
    warnings: tuple[str, ...] = ()

    @classmethod
    def of(cls, result: AppendResult) -> AppendRecord:
        return cls.from_dict(result.to_dict())

    def to_dict(self) -> Json:
        return {
            "turns": self.turns,
            "window_tokens": self.window_tokens,
            "usage": self.usage,
            "trimmed": self.trimmed,
            "summary_id": self.summary_id,
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AppendRecord:
        return cls(
            turns=int(data.get("turns") or 0),
            window_tokens=int(data.get("window_tokens") or 0),
            usage=float(data.get("usage") or 0.0),
            trimmed=bool(data.get("trimmed")),
            summary_id=str(data["summary_id"]) if data.get("summary_id") else None,
            warnings=_strings(data.get("warnings")),
        )


def memory_fields(memory: Memory) -> Json:
    """A memory as it is seen outside the process: its public fields and its body."""
    return {**memory.public_dict(), "body": memory.body}


def json_default(value: Any) -> Any:
    """How a value JSON does not know is written: times in ISO 8601, paths and the rest as text, enums by
    value (`json.dumps(..., default=json_default)`)."""
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "value"):
        return value.value
    return str(value)


def frontmatter_fields(memory: Memory) -> Json:
    """All frontmatter keys as JSON-safe values, including the ones the tool does not know."""
    if memory.doc is None:
        return {}
    plain: Json = json.loads(json.dumps(dict(memory.doc.meta), default=json_default, ensure_ascii=False))
    return plain


def where_to_dict(where: MemoryFilter | None) -> Json:
    """A search filter as JSON (enums by value, times as ISO 8601): how it crosses the daemon's socket."""
    if where is None:
        return {}
    out: Json = {}
    for key, value in vars(where).items():
        if isinstance(value, tuple):
            out[key] = [getattr(item, "value", item) for item in value]
        elif hasattr(value, "isoformat"):
            out[key] = value.isoformat()
        else:
            out[key] = value
    return out


def where_from_dict(data: Mapping[str, Any]) -> MemoryFilter:
    """`where_to_dict` undone; ValueError (or KeyError, TypeError) for a value that is not one."""
    from aimate_memory.vault.filters import MemoryFilter
    from aimate_memory.vault.layout import Layer, Scope
    from aimate_memory.vault.model import to_datetime

    kwargs: dict[str, Any] = {}
    for key, value in (data or {}).items():
        if key == "layers":
            kwargs[key] = tuple(Layer(item) for item in value)
        elif key == "scopes":
            kwargs[key] = tuple(Scope(item) for item in value)
        elif key in ("categories", "tags", "statuses"):
            kwargs[key] = tuple(value)
        elif key.endswith(("_after", "_before")):
            kwargs[key] = to_datetime(value) if value else None
        elif key in ("path_glob", "extra"):
            kwargs[key] = value
        elif key == "anchored":
            kwargs[key] = bool(value)
    return MemoryFilter(**kwargs)


@dataclass(frozen=True)
class TimelineEvent:
    """One thing that happened to one memory (docs/usage.md, "Timeline"). `kind`: capture (added by an
    assistant or a hook: its `source` says which) | add | edit | accepted | expired | promoted | archived |
    superseded | moved | removed. `when`: ISO 8601 (a commit's author date, or the file's time); `day` its
    date as written there; `session`: the session (else the conversation thread) the memory came from;
    `commit`: None for what no commit holds — `pending` (an uncommitted change, waiting in review) or a
    vault outside git (its files' own times)."""

    when: str
    day: str
    kind: str
    memory_id: str
    title: str
    layer: str
    scope: str
    session: str | None
    commit: str | None
    path: str  # vault-relative, POSIX; the new path for a move
    old_path: str | None = None
    source: str | None = None
    subject: str = ""  # the commit's subject line
    pending: bool = False

    def to_dict(self) -> Json:
        return {
            "when": self.when,
            "day": self.day,
            "kind": self.kind,
            "memory_id": self.memory_id,
            "title": self.title,
            "layer": self.layer,
            "scope": self.scope,
            "session": self.session,
            "commit": self.commit,
            "path": self.path,
            "old_path": self.old_path,
            "source": self.source,
            "subject": self.subject,
            "pending": self.pending,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TimelineEvent:
        return cls(
            when=str(data["when"]),
            day=str(data.get("day") or str(data["when"])[:10]),
            kind=str(data["kind"]),
            memory_id=str(data.get("memory_id") or ""),
            title=str(data.get("title") or ""),
            layer=str(data.get("layer") or ""),
            scope=str(data.get("scope") or ""),
            session=_text(data, "session"),
            commit=_text(data, "commit"),
            path=str(data.get("path") or ""),
            old_path=_text(data, "old_path"),
            source=_text(data, "source"),
            subject=str(data.get("subject") or ""),
            pending=bool(data.get("pending")),
        )


@dataclass(frozen=True)
class TimelineRecord:
    """What the assistant learned and what changed, newest first. `truncated`: `limit` left older events
    out; `warnings`: vaults read from their files only (not in git), and the like."""

    events: tuple[TimelineEvent, ...]
    truncated: bool = False
    warnings: tuple[str, ...] = ()

    def by_day(self) -> dict[str, tuple[TimelineEvent, ...]]:
        """The events by `day`, newest day first, each day's events newest first."""
        return _grouped(self.events, lambda event: event.day)

    def by_session(self) -> dict[str | None, tuple[TimelineEvent, ...]]:
        """The events by `session`, the session with the newest event first (None: outside any session)."""
        return _grouped(self.events, lambda event: event.session)

    def to_dict(self) -> Json:
        return {
            "events": [event.to_dict() for event in self.events],
            "truncated": self.truncated,
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TimelineRecord:
        return cls(
            events=tuple(TimelineEvent.from_dict(item) for item in data.get("events") or ()),
            truncated=bool(data.get("truncated")),
            warnings=_strings(data.get("warnings")),
        )


K = TypeVar("K")


def _grouped(events: Sequence[TimelineEvent], key: Callable[[TimelineEvent], K]) -> dict[K, tuple[TimelineEvent, ...]]:
    groups: dict[K, list[TimelineEvent]] = {}
    for event in events:  # newest first, so each group's first event is its newest
        groups.setdefault(key(event), []).append(event)
    return {name: tuple(items) for name, items in groups.items()}


@dataclass(frozen=True)
class LinkedMemory:
    """A memory another one points to (`related`, the supersede chain, thread neighbours), resolved:
    `ref` as written; `missing` when nothing in the vaults has it (a dangling reference)."""

    ref: str
    id: str | None = None
    title: str | None = None
    status: str | None = None
    layer: str | None = None
    scope: str | None = None
    path: str | None = None
    missing: bool = False

    @classmethod
    def of(cls, ref: str, memory: Memory | None) -> LinkedMemory:
        if memory is None:
            return cls(ref, missing=True)
        return cls(
            ref,
            memory.id,
            memory.title,
            memory.status,
            memory.layer.value,
            memory.scope.value,
            memory.rel_path.as_posix(),
        )

    def to_dict(self) -> Json:
        return {
            "ref": self.ref,
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "layer": self.layer,
            "scope": self.scope,
            "path": self.path,
            "missing": self.missing,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LinkedMemory:
        return cls(
            ref=str(data.get("ref") or ""),
            id=_text(data, "id"),
            title=_text(data, "title"),
            status=_text(data, "status"),
            layer=_text(data, "layer"),
            scope=_text(data, "scope"),
            path=_text(data, "path"),
            missing=bool(data.get("missing")),
        )


def _links(items: Any) -> tuple[LinkedMemory, ...]:
    return tuple(LinkedMemory.from_dict(item) for item in items or () if isinstance(item, Mapping))


@dataclass(frozen=True)
class MemoryDetailsRecord:
    """Everything a memory's page shows, in one call (docs/usage.md, "Details").

    `memory`: its public fields and body (`memory_fields`); `frontmatter`: every key as written, the ones the
    tool does not know included; `history`: its commits across moves, newest first (`HistoryEntry.to_dict()`;
    empty with `history_note` saying why when its vault is not in git); `supersedes`: what it replaced,
    nearest first, back to the oldest; `superseded_by`: what replaced it, nearest first, to the newest;
    `thread_before`/`thread_after`: its neighbours in its conversation thread, nearest first; `related`:
    its `related` references resolved (dangling ones `missing`); `anchors`: that frontmatter field as written
    (None when absent); `stale`: what changed in the anchored code (`Staleness.to_dict()`, docs/anchors.md)
    or None."""

    memory: Mapping[str, Any]
    frontmatter: Mapping[str, Any]
    location: str  # scope:path
    history: tuple[Mapping[str, Any], ...] = ()
    history_note: str = ""
    supersedes: tuple[LinkedMemory, ...] = ()
    superseded_by: tuple[LinkedMemory, ...] = ()
    thread_before: tuple[LinkedMemory, ...] = ()
    thread_after: tuple[LinkedMemory, ...] = ()
    related: tuple[LinkedMemory, ...] = ()
    anchors: Any = None
    stale: Any = None

    def to_dict(self) -> Json:
        return {
            "memory": dict(self.memory),
            "frontmatter": dict(self.frontmatter),
            "location": self.location,
            "history": [dict(entry) for entry in self.history],
            "history_note": self.history_note,
            "supersedes": [link.to_dict() for link in self.supersedes],
            "superseded_by": [link.to_dict() for link in self.superseded_by],
            "thread_before": [link.to_dict() for link in self.thread_before],
            "thread_after": [link.to_dict() for link in self.thread_after],
            "related": [link.to_dict() for link in self.related],
            "anchors": self.anchors,
            "stale": self.stale,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MemoryDetailsRecord:
        return cls(
            memory=dict(data.get("memory") or {}),
            frontmatter=dict(data.get("frontmatter") or {}),
            location=str(data.get("location") or ""),
            history=tuple(dict(item) for item in data.get("history") or () if isinstance(item, Mapping)),
            history_note=str(data.get("history_note") or ""),
            supersedes=_links(data.get("supersedes")),
            superseded_by=_links(data.get("superseded_by")),
            thread_before=_links(data.get("thread_before")),
            thread_after=_links(data.get("thread_after")),
            related=_links(data.get("related")),
            anchors=data.get("anchors"),
            stale=data.get("stale"),
        )
