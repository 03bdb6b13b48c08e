"""Routing: whether a capture is written active, written pending, or dropped (pure).

Two rules decide (docs/design.md, "Capture"):
- an agent's confidence against the two thresholds (`capture.write_threshold`, `capture.pending_threshold`);
- consent (issue 25): nothing a model or a paste says becomes core without a person's accept. A capture that
  does not come from a person typing it (`PERSON_SOURCES`, no confidence) and lands in core is written
  pending, for `aimate mem review`, however sure the model is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from aimate_memory.vault.layout import Layer

Outcome = Literal["written", "pending", "dropped"]
# Who a person is: `aimate mem remember` typed at a terminal (`--source cli`, the default) or `add`.
PERSON_SOURCES = frozenset({"cli", "manual"})
# Sources whose every capture waits for review: what a finished session proposes (capture/distill.py).
REVIEW_SOURCES = frozenset({"session"})


@dataclass(frozen=True)
class Route:
    outcome: Outcome
    status: str | None  # frontmatter status to write; None when dropped
    reason: str


def typed_by_person(confidence: float | None, source: str) -> bool:
    """A person typed it: no confidence (an agent states one) and a source a person uses."""
    return confidence is None and source in PERSON_SOURCES


def route(
    confidence: float | None,
    write_threshold: float,
    pending_threshold: float,
    *,
    layer: Layer | None = None,
    source: str = "cli",
) -> Route:
    """No confidence means no doubt: written active, unless consent asks for review (a model's capture
    into core). An agent's confidence is compared with the two thresholds."""
    if typed_by_person(confidence, source):
        return Route("written", "active", "typed by a person → active")
    routed = _by_confidence(confidence, write_threshold, pending_threshold)
    if routed.status == "active" and source in REVIEW_SOURCES:
        return Route(
            "pending",
            "pending",
            f"{routed.reason}; proposed by {source} → pending until a person accepts it (aimate mem review)",
        )
    if routed.status == "active" and layer is Layer.CORE and not typed_by_person(confidence, source):
        return Route(
            "pending",
            "pending",
            f"{routed.reason}; from {source}, not typed by a person, into core → pending until a person accepts "
            "it (aimate mem review)",
        )
    return routed


def _by_confidence(confidence: float | None, write_threshold: float, pending_threshold: float) -> Route:
    if confidence is None:
        return Route("written", "active", "no confidence given → active")
    if confidence >= write_threshold:
        return Route("written", "active", f"confidence {confidence:.2f} ≥ {write_threshold:.2f} → active")
    if confidence >= pending_threshold:
        return Route(
            "pending",
            "pending",
            f"confidence {confidence:.2f} in [{pending_threshold:.2f}, {write_threshold:.2f}) → pending review",
        )
    return Route("dropped", None, f"confidence {confidence:.2f} < {pending_threshold:.2f} → dropped")
