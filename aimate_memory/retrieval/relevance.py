"""Absolute relevance: how well a memory answers a query, on a 0–1 scale that means the same for every query.

A search used to rescale each candidate list so its best item was 1.0 (min-max), so the best answer to a
question the vault knows nothing about also scored ~1.0, and the weakest candidate fell to 0 and was
dropped. Here every part is measured against a fixed yardstick instead:

- **vector evidence**: the best chunk's cosine, mapped linearly from the cosine an *unrelated* text
  typically has (→ 0) to the one a clear paraphrase has (→ 1), per embedder half (:data:`CALIBRATION`:
  the MiniLM+USE ensemble for Latin queries, USE alone for anything with CJK; see
  embedding/auto_provider.py for why the two halves have different scales).
- **keyword evidence**: the share of the query's terms (stopwords already dropped) the memory's best
  keyword chunk holds, each weighted by its idf in the vault. A term the vault has never seen is the
  rarest of all, so missing it costs the most. (bm25 divided by an ideal match's bm25 was tried first:
  FTS5's idf is ~0 for a term in half the rows, so in a small vault a perfect match scored ~0.)
- **relevance** ``0.6·vector + 0.4·keyword`` (the weights fusion.py measured best); keyword evidence
  alone when the query's vectors are not trusted (no model, or a script the embedder cannot read).

The final score is relevance × recency × importance × use (scoring.py). Below the relevance floor
(``retrieval.min_relevance``) nothing is returned: an unrelated query gets no results.
Calibration and floor were measured on the dev bench (docs/benchmarks.md, "Relevance floor").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from aimate_memory.retrieval.fusion import VECTOR_WEIGHT, Ranked


@dataclass(frozen=True)
class Calibration:
    """Cosines that map to vector evidence 0 (an unrelated text's) and 1 (a clear paraphrase's)."""

    unrelated: float
    same: float

    def evidence(self, cosines: np.ndarray) -> np.ndarray:
        scaled = (np.asarray(cosines, dtype=np.float64) - self.unrelated) / (self.same - self.unrelated)
        return np.clip(scaled, 0.0, 1.0)


# By the query's script: a Latin query is embedded by both models (0.8·MiniLM + 0.2·USE cosines), anything
# with CJK by USE alone. Round values, not fitted: the floor was then chosen on the dev bench with them
# (docs/benchmarks.md, "Relevance floor"); an unrelated query's best cosine sits below 0.10 (so for
# "quantum chromodynamics lattice" against a vault about Redis and tests).
CALIBRATION: dict[str, Calibration] = {
    "latin": Calibration(unrelated=0.10, same=0.70),
    "cjk": Calibration(unrelated=0.10, same=0.70),
}
# Across scripts (an English query and a Chinese memory, or the other way round) only USE reads both, and
# the ensemble's cosine is USE's scaled by √(1 − w) (embedding/auto_provider.py), so the cosine is first
# divided by that (`cross_scale`). USE's cross-language cosines of unrelated texts sit higher than within
# one language; on MADial's translated pairs (scripts/eval_floor.py --dataset madial-zh-en / madial-en-zh,
# floor 0.1) this yardstick keeps R@10 .479 / .500 of .520 / .554 and answers 76 % / 82 % of questions asked
# against another user's memories; unrelated=0.10 kept all recall and answered 100 %, 0.30 kept .345 / .401.
CROSS_SCRIPT = Calibration(unrelated=0.20, same=0.70)


def calibration_for(query_script: str) -> Calibration:
    """The yardstick for a query's cosines: the ensemble for Latin, USE for CJK and mixed text."""
    return CALIBRATION["latin" if query_script == "latin" else "cjk"]


def vector_evidence(cosines: np.ndarray, query_script: str) -> np.ndarray:
    """0–1 evidence from raw cosines of a query's candidates."""
    return calibration_for(query_script).evidence(cosines)


def term_weights(postings: Sequence[int] | np.ndarray, rows: int) -> np.ndarray:
    """How informative each query term is in an index of ``rows`` chunks, ``postings`` of which hold it:
    the smoothed idf ``log(1 + (N − n + ½)/(n + ½))``. Unlike FTS5's bm25 idf it never reaches 0, so a
    term found in half of a small vault still counts (a fresh vault of three memories is a real vault)."""
    n = np.asarray(postings, dtype=np.float64)
    return np.log1p((max(rows, 0) - n + 0.5) / (n + 0.5))


def keyword_evidence(matched: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """0–1 evidence per chunk: the idf-weighted share of the query's terms it holds.
    ``matched[term, chunk]`` says whether the chunk holds the term."""
    matched = np.asarray(matched, dtype=np.float64)
    total = float(np.sum(weights))
    if total <= 0 or not matched.size:
        return np.zeros(matched.shape[1] if matched.ndim == 2 else 0)
    evidence: np.ndarray = np.clip(np.asarray(weights, dtype=np.float64) @ matched / total, 0.0, 1.0)
    return evidence


def combine(vector: np.ndarray | float, keyword: np.ndarray | float, vectors_trusted: bool = True) -> np.ndarray:
    """Relevance from the two evidences (missing = 0)."""
    k = np.nan_to_num(np.asarray(keyword, dtype=np.float64))
    if not vectors_trusted:
        return k
    v = np.nan_to_num(np.asarray(vector, dtype=np.float64))
    return VECTOR_WEIGHT * v + (1.0 - VECTOR_WEIGHT) * k


@dataclass(frozen=True)
class Evidence:
    """Per candidate (aligned with the ids it was made for): NaN where a list did not have it."""

    vector: np.ndarray  # 0–1 vector evidence
    keyword: np.ndarray  # 0–1 keyword evidence
    relevance: np.ndarray  # 0–1, what the floor and the shown score use


def aligned(ids: np.ndarray, list_ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` (one per ``list_ids``) placed at the positions of the same ids in ``ids`` (any order);
    NaN for ids the list does not have."""
    out = np.full(len(ids), np.nan)
    if not len(ids) or not len(list_ids):
        return out
    order = np.argsort(ids, kind="stable")
    at = np.minimum(np.searchsorted(ids[order], list_ids), len(ids) - 1)
    found = ids[order][at] == list_ids
    out[order[at[found]]] = np.asarray(values, dtype=np.float64)[found]
    return out


def cross_script_evidence(cosines: np.ndarray, cross_scale: float) -> np.ndarray:
    """0–1 evidence from the cosines of memories in the other script (see `CROSS_SCRIPT`)."""
    return CROSS_SCRIPT.evidence(np.asarray(cosines, dtype=np.float64) * cross_scale)


def on_own_scale(cosines: Ranked, cross: np.ndarray | None, query_script: str, cross_scale: float) -> Ranked:
    """The vector list with each other-script memory's cosine said as the same-script cosine of equal evidence
    (`CROSS_SCRIPT` → the query's calibration, linear, not clipped), for fusion to rank by. In a vault written
    in both languages the ensemble's cosine of an English question and a Chinese memory is USE's × √(1 − w)
    (embedding/auto_provider.py) and sat far under every English memory's; in a one-script vault the map is
    the same for every candidate, which min-max fusion undoes, so the ranking there does not change."""
    if cross is None or not cross.any():
        return cosines
    own = calibration_for(query_script)
    span = (own.same - own.unrelated) / (CROSS_SCRIPT.same - CROSS_SCRIPT.unrelated)
    mapped = own.unrelated + (cosines.scores * cross_scale - CROSS_SCRIPT.unrelated) * span
    return Ranked(cosines.ids, np.where(cross, mapped, cosines.scores), cosines.chunks)


def evidence(
    ids: np.ndarray,
    cosines: Ranked,
    keyword: Ranked,
    query_script: str,
    vectors_trusted: bool,
    cross: np.ndarray | None = None,
    cross_scale: float = 1.0,
) -> Evidence:
    """The evidence for each of ``ids`` from the vector list (raw cosines) and the keyword list (0–1 evidence).
    ``cross[i]``: the vector list's i-th memory is in the other script than the query (Latin vs CJK)."""
    if vectors_trusted:
        values = vector_evidence(cosines.scores, query_script)
        if cross is not None and cross.any():
            values = np.where(cross, cross_script_evidence(cosines.scores, cross_scale), values)
        v = aligned(ids, cosines.ids, values)
    else:
        v = np.full(len(ids), np.nan)
    k = aligned(ids, keyword.ids, keyword.scores)
    return Evidence(v, k, combine(v, k, vectors_trusted))


def passes(relevance: np.ndarray, floor: float) -> np.ndarray:
    """Which candidates are results: relevance at or above the floor (0: every candidate)."""
    return np.asarray(relevance, dtype=np.float64) >= floor
