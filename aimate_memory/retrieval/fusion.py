"""Fusing the vector candidate list and the keyword candidate list into one base score (DESIGN §7 step 2).

Inputs are ``(id, raw_score)`` pairs, higher = better: cosine similarity for vectors, *negated* FTS5
``bm25()`` for keywords (bm25() is lower-is-better). Each list is min-max normalized over its own
candidates, then combined per id; an id missing from a list scores 0 there.

Methods (all measured on ../shared/bench, see scripts/research/):

- ``"weighted"`` (= ``"auto"``, the default): ``0.6·v + 0.4·k``. With our pipeline (porter + CJK-bigram
  keywords, MiniLM/USE vectors) it was the best rule on all three datasets (LoCoMo, MADial-en, MADial-zh).
- ``"maxmin"``: ``max(v, k) + 0.3·min(v, k)`` — a strong signal from either side wins, agreement adds a
  bonus (the best English rule in an earlier pipeline, DESIGN §11; here 0.02–0.05 R@10 below weighted).
- ``"rrf"``: reciprocal-rank fusion, ``1/(60 + rank)`` per list (scaled to ≤ 1); clearly worse here.
- ``"keyword"`` / ``"vector"``: one list only (diagnostics).

**Language trust.** An embedder declares the scripts it understands; vectors of text outside them are
noise (MiniLM maps every Chinese character to [UNK]). If the query's script is not understood, the
vector list is ignored for the whole query; if a document's script is not understood, its vector score
is ignored (it can still be found by keywords). Such results are ranked by keywords alone, exactly as
if vectors were off.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

K = TypeVar("K", bound=Hashable)
Method = Literal["auto", "maxmin", "weighted", "rrf", "keyword", "vector"]

MAXMIN_BONUS = 0.3
VECTOR_WEIGHT = 0.6
RRF_K = 60

_SCRIPT_NEEDS = {"latin": frozenset({"latin"}), "cjk": frozenset({"cjk"}), "mixed": frozenset({"latin", "cjk"})}


@dataclass(frozen=True)
class Fused:
    id: Hashable
    score: float  # base score for scoring.score()
    vector: float | None  # normalized vector score used (None: not a vector candidate or not trusted)
    keyword: float | None  # normalized keyword score (None: not a keyword candidate)


def understands(languages: Iterable[str], script: str) -> bool:
    """Whether an embedder declaring ``languages`` can read text of ``script`` (latin/cjk/mixed)."""
    return _SCRIPT_NEEDS.get(script, frozenset({script})) <= frozenset(languages)


def minmax(pairs: Sequence[tuple[K, float]]) -> dict[K, float]:
    """Scores scaled to [0, 1] over the list; a single candidate or all-equal scores → 1.0.
    A repeated id keeps its best score."""
    best: dict[K, float] = {}
    for key, s in pairs:
        if key not in best or s > best[key]:
            best[key] = float(s)
    if not best:
        return {}
    lo, hi = min(best.values()), max(best.values())
    if hi - lo <= 1e-12:
        return dict.fromkeys(best, 1.0)
    span = hi - lo
    return {key: (s - lo) / span for key, s in best.items()}


def _rrf(pairs: Sequence[tuple[K, float]]) -> dict[K, float]:
    out: dict[K, float] = {}
    for rank, (key, _) in enumerate(sorted(pairs, key=lambda p: -p[1])):
        out.setdefault(key, (RRF_K + 1) / (RRF_K + 1 + rank))
    return out


def combine(method: str, v: float, k: float) -> float:
    """The fused score of one id from its normalized vector (v) and keyword (k) scores."""
    if method == "maxmin":
        return max(v, k) + MAXMIN_BONUS * min(v, k)
    if method == "weighted":
        return VECTOR_WEIGHT * v + (1.0 - VECTOR_WEIGHT) * k
    if method == "rrf":
        return 0.5 * (v + k)
    if method == "keyword":
        return k
    if method == "vector":
        return v
    raise ValueError(f"unknown fusion method {method!r}")


def fuse(
    vector: Sequence[tuple[K, float]],
    keyword: Sequence[tuple[K, float]],
    *,
    method: Method = "auto",
    query_script: str = "latin",
    vector_languages: Iterable[str] = ("latin", "cjk"),
    doc_script: Mapping[K, str] | Callable[[K], str] | None = None,
    min_similarity: float | None = None,
) -> list[Fused]:
    """Base scores for every candidate, best first (ties broken by keyword, then by first appearance).

    ``doc_script`` gives each vector candidate's script (a mapping or a function); None means every
    document is trusted. ``min_similarity`` drops vector candidates below that raw cosine first.
    """
    langs = frozenset(vector_languages)
    if method == "auto":
        method = "weighted"
    if not understands(langs, query_script):
        vector = []
    else:
        if min_similarity is not None:
            vector = [(key, s) for key, s in vector if s >= min_similarity]
        if doc_script is not None:
            lookup = doc_script.get if isinstance(doc_script, Mapping) else doc_script
            vector = [(key, s) for key, s in vector if understands(langs, lookup(key) or "latin")]

    norm = _rrf if method == "rrf" else minmax
    vn = norm(vector)
    kn = norm(keyword)
    if method != "keyword" and not vn:
        method_used = "keyword"
    elif method != "vector" and not kn:
        method_used = "vector"
    else:
        method_used = method

    order: dict[K, int] = {}
    for key, _ in [*keyword, *vector]:
        order.setdefault(key, len(order))
    out: list[Fused] = []
    for key in order:
        v, k = vn.get(key), kn.get(key)
        s = combine(method_used, v or 0.0, k or 0.0)
        if method_used == "keyword" and k is None:
            continue
        if method_used == "vector" and v is None:
            continue
        out.append(Fused(key, s, v, k))
    out.sort(key=lambda f: (-f.score, -(f.keyword or 0.0), order[f.id]))
    return out


def best_per_memory(
    hits: Iterable[tuple[Hashable, Hashable, float]],
) -> tuple[list[tuple[Hashable, float]], dict[Hashable, Hashable]]:
    """Collapse chunk hits ``(memory_id, chunk_id, score)`` to memories: a memory scores its best chunk.

    Returns ``([(memory_id, score)…] best first, {memory_id: best chunk_id})`` — the best chunk is the
    snippet. Do this for each list *before* :func:`fuse`.
    """
    best: dict[Hashable, tuple[float, Hashable]] = {}
    for mem, chunk, s in hits:
        if mem not in best or s > best[mem][0]:
            best[mem] = (float(s), chunk)
    ranked = sorted(best.items(), key=lambda kv: -kv[1][0])
    return [(m, sc) for m, (sc, _) in ranked], {m: c for m, (_, c) in best.items()}
