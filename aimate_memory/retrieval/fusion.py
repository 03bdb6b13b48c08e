"""Fusing the vector candidate list and the keyword candidate list into one base score (docs/design.md §7 step 2).

Pure functions over numpy arrays: a search weighs a few thousand candidates, and doing that per item in
Python cost ~15 ms of a 60 ms query at 10k memories (profiled). Ids are integers (hybrid search packs
the index position and the memory rowid into one).

Inputs are ranked lists of ``(ids, scores)``, higher = better: cosine similarity for vectors; for keywords,
hybrid search passes each memory's keyword evidence (relevance.keyword_evidence: the idf-weighted share of
the query's terms it holds), listed in FTS5 ``bm25()`` order, so bm25 chooses the candidates and breaks ties.
Ranking the keyword half by that coverage instead of by bm25 itself measured LoCoMo turn R@5 .622 → .651,
MRR .513 → .542 (docs/benchmarks.md, "Keyword half"). Each list is min-max normalized over its own
candidates, then combined per id; an id missing from a list scores 0 there.

Methods (all measured on the development retrieval benchmark, docs/benchmarks.md; scripts in scripts/research/):

- ``"weighted"`` (= ``"auto"``, the default): ``0.6·v + 0.4·k``. With our pipeline (porter + CJK-bigram
  keywords, MiniLM/USE vectors) it was the best rule on all three datasets (LoCoMo, MADial-en, MADial-zh).
- ``"maxmin"``: ``max(v, k) + 0.3·min(v, k)`` — a strong signal from either side wins, agreement adds a
  bonus (the best English rule in an earlier pipeline, docs/design.md §11; here 0.02–0.05 R@10 below weighted).
- ``"rrf"``: reciprocal-rank fusion, ``1/(60 + rank)`` per list (scaled to ≤ 1); clearly worse here.
- ``"keyword"`` / ``"vector"``: one list only (diagnostics).

**Language trust.** An embedder declares the scripts it understands; vectors of text outside them are
noise (MiniLM's Chinese vectors, docs/design.md §11). If the query's script is not understood, the vector list is
ignored for the whole query; chunks in a script the embedder cannot read never reach the vector list
(the index drops them). Such results are ranked by keywords alone, exactly as if vectors were off.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from aimate_memory.embedding.base import understands

Method = Literal["auto", "maxmin", "weighted", "rrf", "keyword", "vector"]

MAXMIN_BONUS = 0.3
VECTOR_WEIGHT = 0.6
RRF_K = 60


@dataclass(frozen=True)
class Ranked:
    """One candidate list collapsed to memories, best first: parallel arrays."""

    ids: np.ndarray  # int64
    scores: np.ndarray  # float64
    chunks: np.ndarray  # int64: the memory's best chunk (its snippet)

    def __len__(self) -> int:
        return len(self.ids)

    def take(self, positions: np.ndarray) -> Ranked:
        return Ranked(self.ids[positions], self.scores[positions], self.chunks[positions])

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[int, float]]) -> Ranked:
        """A list from ``(id, score)`` pairs already best first (tests, research scripts)."""
        pairs = list(pairs)
        ids = np.asarray([key for key, _ in pairs], dtype=np.int64)
        return cls(ids, np.asarray([s for _, s in pairs], dtype=np.float64), ids.copy())


@dataclass(frozen=True)
class Fused:
    """Every candidate of either list, best first. NaN: not in that list (or its vectors not trusted)."""

    ids: np.ndarray
    scores: np.ndarray  # base score for scoring.score()
    vector: np.ndarray  # normalized vector score used
    keyword: np.ndarray  # normalized keyword score
    # What conversation neighbours added to `scores` (hybrid._supported; None: nothing was added)
    support: np.ndarray | None = None
    # `scores` split into what each list contributed (`parts`): vector_part + keyword_part (+ dated + support) = scores
    vector_part: np.ndarray | None = None
    keyword_part: np.ndarray | None = None
    # What being said on a date the query names added to `scores` (hybrid._dated, retrieval/when.py)
    dated: np.ndarray | None = None

    def take(
        self,
        positions: np.ndarray,
        support: np.ndarray | None = None,
        scores: np.ndarray | None = None,
        dated: np.ndarray | None = None,
    ) -> Fused:
        """The candidates at `positions`, in that order (with new scores, support and date part, when given)."""

        def pick(values: np.ndarray | None) -> np.ndarray | None:
            return None if values is None else values[positions]

        return Fused(
            self.ids[positions],
            self.scores[positions] if scores is None else scores,
            self.vector[positions],
            self.keyword[positions],
            pick(self.support) if support is None else support,
            pick(self.vector_part),
            pick(self.keyword_part),
            pick(self.dated) if dated is None else dated,
        )

    def __len__(self) -> int:
        return len(self.ids)


def minmax(scores: np.ndarray) -> np.ndarray:
    """Scores scaled to [0, 1] over the list; a single candidate or all-equal scores → 1.0."""
    scores = np.asarray(scores, dtype=np.float64)
    if not len(scores):
        return scores
    lo, hi = scores.min(), scores.max()
    if hi - lo <= 1e-12:
        return np.ones_like(scores)
    scaled: np.ndarray = (scores - lo) / (hi - lo)
    return scaled


def rrf(scores: np.ndarray) -> np.ndarray:
    """Reciprocal-rank scores ``(k + 1) / (k + 1 + rank)`` for a list's scores (rank by score, best = 0)."""
    ranks = np.empty(len(scores), dtype=np.float64)
    ranks[np.argsort(-np.asarray(scores), kind="stable")] = np.arange(len(scores))
    return (RRF_K + 1) / (RRF_K + 1 + ranks)


def parts(method: str, v: np.ndarray | float, k: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """What the vector (v) and the keyword (k) score each contribute to the fused score: it is their sum, so
    `search --explain` can show a score as the parts that add up to it (issue 36)."""
    v, k = np.asarray(v, dtype=np.float64), np.asarray(k, dtype=np.float64)
    zero = np.zeros(np.broadcast(v, k).shape)
    if method == "maxmin":  # the stronger side counts whole, the weaker adds its bonus
        stronger = v >= k
        return np.where(stronger, v, MAXMIN_BONUS * v), np.where(stronger, MAXMIN_BONUS * k, k)
    if method == "weighted":
        return VECTOR_WEIGHT * v + zero, (1.0 - VECTOR_WEIGHT) * k + zero
    if method == "rrf":
        return 0.5 * v + zero, 0.5 * k + zero
    if method == "keyword":
        return zero, k + zero
    if method == "vector":
        return v + zero, zero
    raise ValueError(f"unknown fusion method {method!r}")


def combine(method: str, v: np.ndarray | float, k: np.ndarray | float) -> np.ndarray | float:
    """The fused score from normalized vector (v) and keyword (k) scores (arrays or single values)."""
    vector_part, keyword_part = parts(method, v, k)
    total = vector_part + keyword_part
    return float(total) if np.ndim(total) == 0 else total


def fuse(
    vector: Ranked,
    keyword: Ranked,
    *,
    method: Method = "auto",
    query_script: str = "latin",
    vector_languages: Iterable[str] = ("latin", "cjk"),
    normalized: bool = False,
) -> Fused:
    """Base scores for every candidate, best first (ties broken by keyword, then by first appearance in
    the keyword list, then the vector list). ``normalized``: the lists' scores are already on a 0–1
    scale (relevance.py's absolute evidence), so they are combined as they are, not min-max scaled."""
    if method == "auto":
        method = "weighted"
    if not understands(vector_languages, query_script):
        vector = vector.take(np.zeros(0, dtype=np.int64))
    if method != "keyword" and not len(vector):
        method = "keyword"
    elif method != "vector" and not len(keyword):
        method = "vector"

    # Ties go to the earliest appearance; np.unique keeps the first index of each id.
    everything = np.concatenate([keyword.ids, vector.ids])
    ids, first = np.unique(everything, return_index=True)
    normalize = _unchanged if normalized else rrf if method == "rrf" else minmax
    v = _spread(ids, vector.ids, normalize(vector.scores))
    k = _spread(ids, keyword.ids, normalize(keyword.scores))
    keep = ~np.isnan(k) if method == "keyword" else ~np.isnan(v) if method == "vector" else slice(None)
    ids, first, v, k = ids[keep], first[keep], v[keep], k[keep]
    vector_part, keyword_part = parts(method, np.nan_to_num(v), np.nan_to_num(k))
    scores = vector_part + keyword_part
    order = np.lexsort((first, -np.nan_to_num(k), -scores))
    return Fused(ids[order], scores[order], v[order], k[order], None, vector_part[order], keyword_part[order])


def _unchanged(scores: np.ndarray) -> np.ndarray:
    return np.asarray(scores, dtype=np.float64)


def _spread(ids: np.ndarray, list_ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` (per id of a list) placed at those ids' positions in sorted ``ids``; NaN elsewhere."""
    out = np.full(len(ids), np.nan)
    out[np.searchsorted(ids, list_ids)] = values
    return out


def best_per_memory(memory_ids: np.ndarray, chunk_ids: np.ndarray, scores: np.ndarray) -> Ranked:
    """Collapse chunk hits to memories: a memory scores its best chunk, which becomes its snippet.
    Best first; ties keep the order of the hits. Do this for each list *before* :func:`fuse`."""
    scores = np.asarray(scores, dtype=np.float64)
    by_score = np.argsort(-scores, kind="stable")
    _, first = np.unique(np.asarray(memory_ids)[by_score], return_index=True)
    best = by_score[np.sort(first)]
    return Ranked(np.asarray(memory_ids, dtype=np.int64)[best], scores[best], np.asarray(chunk_ids)[best])
