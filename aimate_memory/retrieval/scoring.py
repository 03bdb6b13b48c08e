"""Seed 002's ranking weights, as a pure function (docs/design.md §7 step 3).

    final = base × decay^(days/30) × (0.8 + 0.2·importance/5) × (1 + 0.1·log10(access_count + 1))

``days`` counts from ``updated_at``; core memories never decay. Every factor is returned so
``search --explain`` can show why a memory ranks where it does. The same code scores one memory
(plain numbers) or every candidate of a search at once (numpy arrays).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

import numpy as np

DEFAULT_IMPORTANCE = 3
NON_DECAYING_LAYERS = ("core",)


@dataclass(frozen=True)
class ScoreFactors:
    """Each field is a float for one memory, or an array with one value per candidate."""

    base: Any  # fused relevance (0..~1.3)
    recency: Any  # decay^(days/30); 1.0 for core
    importance: Any  # 0.8 + 0.2·importance/5  (0.84 … 1.0)
    access: Any  # 1 + 0.1·log10(access_count + 1)
    final: Any
    days: Any  # age used for recency (0 for core)

    def as_dict(self, position: int | None = None) -> dict[str, float]:
        """The factors as plain floats: of one memory, or of the candidate at ``position``."""

        def pick(value: Any) -> Any:
            return value if position is None else value[position]

        return {f.name: float(pick(getattr(self, f.name))) for f in fields(self)}


def days_between(then: datetime, now: datetime) -> float:
    """Days from ``then`` to ``now`` (fractional; never negative, so clock skew cannot boost a memory)."""
    return max(0.0, (now - then).total_seconds() / 86400.0)


def score(
    base: Any,
    *,
    days: Any,
    importance: Any = DEFAULT_IMPORTANCE,
    access_count: Any = 0,
    layer: Any = "long_term",
    decay: float,
) -> ScoreFactors:
    """The final score and its factors, for one memory or for arrays of candidates. `decay` per 30 days is
    config `retrieval.decay` (its default lives in config/defaults.py only).

    Out-of-range inputs are clamped rather than rejected (hand-edited frontmatter): importance to 1..5
    (None → 3), access_count to ≥ 0, days to ≥ 0, decay to (0, 1].
    """
    scalar = np.ndim(base) == 0
    imp = np.asarray(importance if importance is not None else DEFAULT_IMPORTANCE, dtype=np.float64)
    imp = np.clip(np.where(np.isnan(imp), DEFAULT_IMPORTANCE, imp), 1.0, 5.0)
    count = np.maximum(0.0, np.nan_to_num(np.asarray(access_count if access_count is not None else 0, dtype=float)))
    d = np.where(np.isin(layer, NON_DECAYING_LAYERS), 0.0, np.maximum(0.0, np.asarray(days, dtype=np.float64)))
    k = min(1.0, max(1e-6, float(decay)))
    recency = k ** (d / 30.0)
    importance_f = 0.8 + 0.2 * imp / 5.0
    access_f = 1.0 + 0.1 * np.log10(count + 1)
    final = np.asarray(base, dtype=np.float64) * recency * importance_f * access_f
    values = (base, recency, importance_f, access_f, final, d)
    if scalar:
        return ScoreFactors(*(float(value) for value in values))
    return ScoreFactors(*(np.asarray(value, dtype=np.float64) for value in values))
