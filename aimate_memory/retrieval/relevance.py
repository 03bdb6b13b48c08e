"""Absolute relevance: how well a memory answers a query, on a 0–1 scale that means the same for every query.

A search used to rescale each candidate list so its best item was 1.0 (min-max), so the best answer to a
question the vault knows nothing about also scored ~1.0, and the weakest candidate fell to 0 and was
dropped. Here every part is measured against a fixed yardstick instead:

- **vector evidence**: the best chunk's cosine, mapped linearly from the cosine an *unrelated* text
  typically has (→ 0) to the one a clear paraphrase has (→ 1), per embedder half (:data:`CALIBRATION`:
  the MiniLM+USE ensemble for Latin queries, USE alone for anything with CJK; see
  embedding/auto_provider.py for why the two halves have different scales).
- **keyword evidence**: the memory's bm25 divided by the bm25 of an ideal match — a chunk of average
  length holding every query term once, which is ``Σ idf`` of the query's terms (FTS5's own bm25
  formula). A term the vault has never seen is the rarest of all, so missing it costs the most; a term
  found in half the vault has idf ~0 and counts for nothing. Capped at 1 (repeats can exceed the ideal).
- **relevance** ``0.6·vector + 0.4·keyword`` (the weights fusion.py measured best); keyword evidence
  alone when the query's vectors are not trusted (no model, or a script the embedder cannot read).

The final score is relevance × recency × importance × use (scoring.py). Below the relevance floor
(``retrieval.min_similarity``) nothing is returned: an unrelated query gets no results.
Calibration and floor were measured on the dev bench (docs/benchmarks.md, "Relevance floor").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from aimate_memory.retrieval.fusion import VECTOR_WEIGHT

# FTS5's bm25() floors a non-positive idf (a term in more than half the rows) at this value.
FTS5_MIN_IDF = 1e-6


@dataclass(frozen=True)
class Calibration:
    """Cosines that map to vector evidence 0 (an unrelated text's) and 1 (a clear paraphrase's)."""

    unrelated: float
    same: float

    def evidence(self, cosines: np.ndarray) -> np.ndarray:
        scaled = (np.asarray(cosines, dtype=np.float64) - self.unrelated) / (self.same - self.unrelated)
        return np.clip(scaled, 0.0, 1.0)


# By the query's script: a Latin query is embedded by both models (0.8·MiniLM + 0.2·USE cosines), anything
# with CJK by USE alone. Measured on the dev bench (scripts/eval_floor.py --calibrate): see the module doc.
CALIBRATION: dict[str, Calibration] = {
    "latin": Calibration(unrelated=0.10, same=0.70),
    "cjk": Calibration(unrelated=0.10, same=0.70),
}


def calibration_for(query_script: str) -> Calibration:
    """The yardstick for a query's cosines: the ensemble for Latin, USE for CJK and mixed text."""
    return CALIBRATION["latin" if query_script == "latin" else "cjk"]


def vector_evidence(cosines: np.ndarray, query_script: str) -> np.ndarray:
    """0–1 evidence from raw cosines of a query's candidates."""
    return calibration_for(query_script).evidence(cosines)


def bm25_idf(postings: Sequence[int] | np.ndarray, rows: int) -> np.ndarray:
    """FTS5's idf of terms found in ``postings`` of ``rows`` chunks: ``log((N − n + ½)/(n + ½))``, ≥ 1e-6."""
    n = np.asarray(postings, dtype=np.float64)
    idf = np.log((rows - n + 0.5) / (n + 0.5)) if rows > 0 else np.zeros_like(n)
    return np.where(idf > 0, idf, FTS5_MIN_IDF)


def ideal_bm25(postings: Sequence[int] | np.ndarray, rows: int) -> float:
    """bm25 of a chunk of average length holding each term once: ``Σ idf`` (tf factor 1 at avgdl)."""
    return float(bm25_idf(postings, rows).sum())


def keyword_evidence(bm25: np.ndarray, ideal: np.ndarray | float) -> np.ndarray:
    """0–1 evidence: bm25 (positive, higher = better) as a share of the ideal match's."""
    bm25 = np.asarray(bm25, dtype=np.float64)
    ideal = np.asarray(ideal, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(ideal > 0, bm25 / ideal, 0.0)
    return np.clip(np.nan_to_num(share), 0.0, 1.0)


def combine(vector: np.ndarray | float, keyword: np.ndarray | float, vectors_trusted: bool = True) -> np.ndarray:
    """Relevance from the two evidences (missing = 0)."""
    k = np.nan_to_num(np.asarray(keyword, dtype=np.float64))
    if not vectors_trusted:
        return k
    v = np.nan_to_num(np.asarray(vector, dtype=np.float64))
    return VECTOR_WEIGHT * v + (1.0 - VECTOR_WEIGHT) * k


def passes(relevance: np.ndarray, floor: float) -> np.ndarray:
    """Which candidates are results: relevance at or above the floor (0: every candidate)."""
    return np.asarray(relevance, dtype=np.float64) >= floor
