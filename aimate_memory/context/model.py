"""Records of a context for a prompt, JSON-ready in the shape `aimate mem context --json` prints:
`{"sections": [{"layer", "scope", "tokens", "items": [{"id", "title", "tokens", "score"}]}],
"total_tokens", "budget", "warnings": [{"kind", "message"}], "text"}`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ContextItem:
    id: str
    title: str
    body: str
    scope: str  # "global" | "project"
    rel_path: str  # vault-relative POSIX path
    score: float | None = None  # relevance to the query, when there was one

    @property
    def tag(self) -> str:
        """Provenance for the reader of the prompt: `[3f2a1c0d global:core/preferences.md]`."""
        return f"[{self.id[:8]} {self.scope}:{self.rel_path}]"


@dataclass(frozen=True)
class SectionRequest:
    """One section to fill, items best first. `ratio` × the total budget is its own share; what earlier
    sections leave unused is added. `required` (core): an item that does not fit is named in a warning.
    `keep_tail`: an item cut to fit keeps its end instead of its start (the session window: the newest
    turns matter most)."""

    layer: str
    scope: str
    items: list[ContextItem]
    ratio: float
    heading: str | None = None
    required: bool = False
    keep_tail: bool = False


@dataclass(frozen=True)
class PlacedItem:
    item: ContextItem
    text: str  # the body as placed: whole, or cut at a sentence boundary
    tokens: int  # of the item's rendered block (title line, tag, text)
    cut: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.item.id, "title": self.item.title, "tokens": self.tokens, "score": self.item.score}


@dataclass
class Section:
    layer: str
    scope: str
    heading: str
    allowance: int  # tokens this section could use (its share + what earlier sections left)
    items: list[PlacedItem] = field(default_factory=list)
    tokens: int = 0  # of the rendered section, heading included (0 when it has no item)
    skipped: list[ContextItem] = field(default_factory=list)  # did not fit, even cut
    duplicates: list[str] = field(default_factory=list)  # ids already placed by an earlier section
    required: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "layer": self.layer,
            "scope": self.scope,
            "tokens": self.tokens,
            "items": [placed.to_dict() for placed in self.items],
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
