"""Supersede instead of duplicate (pure): is a capture new, an update of a memory, or already there?

The caller gathers the candidates — active memories of the same layer, scope and category — with the
cosine between each and the capture when a model is loaded (None otherwise); this module decides.
Keyword overlap (Jaccard over the index's own tokens, stopwords left out) stands in for the cosine
when there is none. Both thresholds were measured on tests/capture/supersede_pairs.py by
scripts/research/supersede_threshold.py.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from aimate_memory.text.scripts import is_cjk
from aimate_memory.text.stopwords import EN_STOPWORDS, ZH_STOPWORDS
from aimate_memory.text.words import tokens

Action = Literal["new", "supersede", "exists"]
_WORD = re.compile(r"[^\W_]+")


class Candidate(NamedTuple):
    memory_id: str
    text: str  # the memory's body (a capture stores the whole captured text as its body)
    cosine: float | None  # None: no model, keyword overlap decides


@dataclass(frozen=True)
class SupersedeDecision:
    action: Action
    target_id: str | None  # the memory superseded, or the one that already says it
    reason: str
    score: float | None = None


def normalize(text: str) -> str:
    """Text compared for "the same words": NFKC, case-folded, punctuation dropped, words single-spaced,
    and no space next to a CJK character ("用 Tab。" and "用tab" are the same)."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    joined = " ".join(words)
    return "".join(
        char
        for index, char in enumerate(joined)
        if not (char == " " and (is_cjk(joined[index - 1]) or is_cjk(joined[index + 1])))
    )


def keyword_set(text: str) -> frozenset[str]:
    """The index's tokens (words, CJK bigrams) without the stopwords that every sentence shares."""
    return frozenset(token for token in tokens(text) if token not in EN_STOPWORDS and token not in ZH_STOPWORDS)


def jaccard(first: str, second: str) -> float:
    a, b = keyword_set(first), keyword_set(second)
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def decide(
    new_text: str,
    candidates: Iterable[Candidate | tuple[str, str, float | None]],
    threshold: float,
    keyword_threshold: float,
) -> SupersedeDecision:
    """`exists` when a candidate says the same words; else `supersede` the most similar candidate at or
    over its threshold (cosine, or keyword overlap when it has no cosine); else `new`."""
    pool = [Candidate(*candidate) for candidate in candidates]
    wanted = normalize(new_text)
    for candidate in pool:
        if wanted and normalize(candidate.text) == wanted:
            return SupersedeDecision("exists", candidate.memory_id, f"same text as {candidate.memory_id[:8]}", 1.0)
    best = _best(new_text, pool, threshold, keyword_threshold)
    if best is None:
        return SupersedeDecision("new", None, "no similar active memory")
    candidate, score, measure, bar = best
    reason = f"{measure} {score:.2f} ≥ {bar:.2f} with {candidate.memory_id[:8]}"
    return SupersedeDecision("supersede", candidate.memory_id, reason, score)


def _best(
    new_text: str, pool: Sequence[Candidate], threshold: float, keyword_threshold: float
) -> tuple[Candidate, float, str, float] | None:
    best: tuple[Candidate, float, str, float] | None = None
    for candidate in pool:
        if candidate.cosine is not None:
            score, measure, bar = float(candidate.cosine), "cosine", threshold
        else:
            score, measure, bar = jaccard(new_text, candidate.text), "keyword overlap", keyword_threshold
        # Compared by the margin over its own bar: a cosine and a Jaccard are not on one scale.
        if score >= bar and (best is None or score - bar > best[1] - best[3]):
            best = (candidate, score, measure, bar)
    return best
