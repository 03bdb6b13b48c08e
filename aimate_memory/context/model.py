"""Records of a context for a prompt, JSON-ready in the shape `aimate mem context --json` prints:
`{"sections": [{"layer", "scope", "tokens", "allowance", "items": [{"id", "title", "scope", "path", "tokens",
"score", "cut"}], "left_out": [{"id", "title"}]}],
"total_tokens", "budget", "warnings": [{"kind", "message"}], "text"}` (the text names memories by id only;
the paths are here, for a client that opens the files)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aimate_memory.vault.anchors import Staleness


@dataclass(frozen=True)
class ContextItem:
    id: str
    title: str
    body: str
    scope: str  # "global" | "project"
    rel_path: str  # vault-relative POSIX path
    score: float | None = None  # relevance to the query, when there was one
    stale: Staleness | None = None  # an anchored file changed since it was verified (docs/anchors.md)


@dataclass(frozen=True)
class SectionRequest:
    """One section to fill, items best first (budget.py `allocate` says how the budget is shared).
    `required` (core): filled first, each item whole or named in a warning, within the core cap; its
    `ratio` is not used. Any other section's `ratio` is its share of what core left, against the other
    sections' ratios. `keep_tail`: an item cut to fit keeps its end instead of its start (the session
    window: the newest turns matter most). `summary_tokens`: a one-line item longer than this is shown as its
    summary line — its first clauses within it, marked `…` — and its id finds the rest (a session start;
    docs/design.md, "What a session start shows of a long memory")."""

    layer: str
    scope: str
    items: list[ContextItem]
    ratio: float = 0.0
    heading: str | None = None
    required: bool = False
    keep_tail: bool = False
    summary_tokens: int | None = None


@dataclass(frozen=True)
class PlacedItem:
    item: ContextItem
    text: str  # the shown text (render.py `shown_text`): whole, or cut at a sentence boundary
    tokens: int  # of the item's rendered block (render.py `render_item`)
    cut: bool = False

    def to_dict(self) -> dict[str, Any]:
        item = self.item
        return {
            "id": item.id,
            "title": item.title,
            "scope": item.scope,
            "path": item.rel_path,
            "tokens": self.tokens,
            "score": item.score,
            "stale": item.stale.to_dict() if item.stale is not None else None,
            "cut": self.cut,
        }


@dataclass
class Section:
    layer: str
    scope: str
    heading: str
    allowance: int  # tokens this section could use (its share + what other sections left)
    items: list[PlacedItem] = field(default_factory=list)
    tokens: int = 0  # of the rendered section, heading included (0 when it has no item)
    skipped: list[ContextItem] = field(default_factory=list)  # did not fit, even cut
    duplicates: list[str] = field(default_factory=list)  # ids already placed by an earlier section
    required: bool = False

    @property
    def wants_more(self) -> bool:
        """Items wait that more room would place, or place whole."""
        return bool(self.skipped) or any(placed.cut for placed in self.items)

    def to_dict(self) -> dict[str, Any]:
        return {
            "layer": self.layer,
            "scope": self.scope,
            "tokens": self.tokens,
            "allowance": self.allowance,
            "items": [placed.to_dict() for placed in self.items],
            "left_out": [{"id": item.id, "title": item.title} for item in self.skipped],
        }


@dataclass(frozen=True)
class ContextWarning:
    kind: str  # core_over_budget, session_usage, pending_captures, …
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "message": self.message}


@dataclass
class Context:
    sections: list[Section]
    total_tokens: int
    budget: int
    warnings: list[ContextWarning]
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "sections": [section.to_dict() for section in self.sections],
            "total_tokens": self.total_tokens,
            "budget": self.budget,
            "warnings": [warning.to_dict() for warning in self.warnings],
            "text": self.text,
        }
