"""Confidence routing: whether a capture is written active, written pending, or dropped (pure)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Outcome = Literal["written", "pending", "dropped"]


@dataclass(frozen=True)
class Route:
    outcome: Outcome
    status: str | None  # frontmatter status to write; None when dropped
    reason: str


def route(confidence: float | None, write_threshold: float, pending_threshold: float) -> Route:
    """No confidence means a person typed it: always written. An agent's confidence is compared with
    the two thresholds (`capture.write_threshold`, `capture.pending_threshold`)."""
    if confidence is None:
        return Route("written", "active", "no confidence given (typed by a person) → active")
    if confidence >= write_threshold:
        return Route("written", "active", f"confidence {confidence:.2f} ≥ {write_threshold:.2f} → active")
    if confidence >= pending_threshold:
        return Route(
            "pending",
            "pending",
            f"confidence {confidence:.2f} in [{pending_threshold:.2f}, {write_threshold:.2f}) → pending review",
        )
    return Route("dropped", None, f"confidence {confidence:.2f} < {pending_threshold:.2f} → dropped")
