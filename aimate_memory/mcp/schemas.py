"""What each tool returns, as TypedDicts: the SDK turns them into each tool's `outputSchema`, and the
result's `structuredContent` is checked against it. Each is filled from the record that crossed the
boundary (`system.records`: `HitRecord`, `CaptureRecord.to_dict()`, `ContextRecord.to_dict()`,
`AppendRecord.to_dict()`, `memory_fields`); a test holds each TypedDict to its record's keys."""

from __future__ import annotations

from typing import Any

from typing_extensions import NotRequired, TypedDict


class StaleOutput(TypedDict):
    """Why a memory may be out of date (`vault.anchors.Staleness.to_dict()`): a file it cites `what`
    (changed | moved | deleted) since `since` (the date it was verified), in `commits` commits."""

    path: str
    what: str
    since: str
    commits: int
    moved_to: NotRequired[str]
    more: NotRequired[int]  # other anchored files of the same memory that changed too
    deleted_at: NotRequired[str]


class AnchorOutput(TypedDict):
    path: str  # project-relative; a folder ends in "/"
    blob: str  # git blob id when verified
    verified_at: str | None


class SearchItem(TypedDict):
    id: str
    title: str
    location: str  # scope:path, e.g. "project:long_term/decisions/….md"
    layer: str
    category: str
    status: str  # "active", or "pending": a capture waiting for the person's review, not yet a memory
    tags: list[str]
    updated_at: str
    score: float
    snippet: str
    stale: StaleOutput | None  # possibly out of date: a file it cites changed since it was verified


class VaultOutput(TypedDict):
    scope: str  # "project" or "global"
    root: str  # the vault's folder


class SearchResult(TypedDict):
    query: str
    mode: str  # "hybrid" (meaning + keywords) or "keyword" (no model)
    via: str  # "daemon" or "in-process"
    vaults: list[VaultOutput]  # which vaults answered: a model and a person can tell which memory this is
    results: list[SearchItem]
    warnings: list[str]


class MemoryOutput(TypedDict):
    id: str
    title: str
    location: str
    path: str
    scope: str
    layer: str
    category: str
    tags: list[str]
    status: str
    importance: int
    created_at: str
    updated_at: str
    expires_at: str | None
    related: list[str]
    source: str
    body: str
    anchors: list[AnchorOutput]  # the project files it cites, as verified (docs/anchors.md)
    stale: StaleOutput | None  # possibly out of date: a file it cites changed since it was verified


class ContextItemOutput(TypedDict):
    id: str
    title: str
    scope: NotRequired[str]
    path: NotRequired[str]  # the file in its vault; the context's text names memories by id only
    tokens: int
    score: NotRequired[float | None]
    stale: NotRequired[StaleOutput | None]
    cut: NotRequired[bool]  # shortened to fit (at a sentence end, marked …)


class LeftOutItem(TypedDict):
    id: str
    title: str


class ContextSection(TypedDict):
    layer: str
    scope: str
    tokens: int
    allowance: NotRequired[int]  # tokens the section could use
    items: list[ContextItemOutput]
    left_out: NotRequired[list[LeftOutItem]]  # did not fit, even cut


class ContextResult(TypedDict):
    text: str
    sections: list[ContextSection]
    total_tokens: int
    budget: int | None
    warnings: list[Any]


class ConflictOutput(TypedDict):
    """An active memory the new one may contradict (`system.records.ConflictRecord.to_dict()`)."""

    id: str
    title: str
    path: str
    scope: str
    layer: str
    category: str
    reason: str
    slot: str | None
    cosine: float | None


class RememberResult(TypedDict):
    action: str  # written | pending | dropped | exists | conflict
    memory: dict[str, Any] | None
    supersedes: str | None
    reason: str
    conflicts: list[ConflictOutput]  # with action conflict: what it may contradict (it was saved pending)


class ForgetResult(TypedDict):
    id: str
    title: str
    status: str
    location: str  # where the memory now lives (under archive/)


class AppendOutput(TypedDict):
    turns: int
    window_tokens: int
    usage: Any  # the contract leaves these two open (a share of the window, a count or a flag)
    trimmed: Any
    summary_id: str | None
    warnings: list[Any]
