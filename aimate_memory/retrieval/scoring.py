"""Seed 002's ranking weights, as a pure function (DESIGN §7 step 3).

    final = base × decay^(days/30) × (0.8 + 0.2·importance/5) × (1 + 0.1·log10(access_count + 1))

``days`` counts from ``updated_at``; core memories never decay. Every factor is returned so
``search --explain`` can show why a memory ranks where it does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

DEFAULT_DECAY = 0.95  # per 30 days (config key retrieval.decay)
DEFAULT_IMPORTANCE = 3
NON_DECAYING_LAYERS = frozenset({"core"})


@dataclass(frozen=True)
class ScoreFactors:
    base: float  # fused relevance (0..~1.3)
    recency: float  # decay^(days/30); 1.0 for core
    importance: float  # 0.8 + 0.2·importance/5  (0.84 … 1.0)
    access: float  # 1 + 0.1·log10(access_count + 1)
    final: float
    days: float  # age used for recency (0 for core)

    def as_dict(self) -> dict[str, float]:
        return {
            "base": self.base,
            "recency": self.recency,
            "importance": self.importance,
            "access": self.access,
            "days": self.days,
            "final": self.final,
        }


def days_between(then: datetime, now: datetime) -> float:
    """Days from ``then`` to ``now`` (fractional; never negative, so clock skew cannot boost a memory)."""
    return max(0.0, (now - then).total_seconds() / 86400.0)


def score(
    base: float,
    *,
    days: float,
    importance: int | float | None = DEFAULT_IMPORTANCE,
    access_count: int | None = 0,
    layer: str = "long_term",
    decay: float = DEFAULT_DECAY,
) -> ScoreFactors:
    """The final score of one memory and its factors.

    Out-of-range inputs are clamped rather than rejected (hand-edited frontmatter): importance to 1..5
    (None → 3), access_count to ≥ 0, days to ≥ 0, decay to (0, 1].
    """
    imp = DEFAULT_IMPORTANCE if importance is None else min(5.0, max(1.0, float(importance)))
    count = max(0, int(access_count or 0))
    d = 0.0 if layer in NON_DECAYING_LAYERS else max(0.0, float(days))
    k = min(1.0, max(1e-6, float(decay)))
    recency = k ** (d / 30.0)
    importance_f = 0.8 + 0.2 * imp / 5.0
    access_f = 1.0 + 0.1 * math.log10(count + 1)
    final = base * recency * importance_f * access_f
    return ScoreFactors(base, recency, importance_f, access_f, final, d)
