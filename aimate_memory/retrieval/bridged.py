"""A query's terms with their translations into the other script as alternatives (text/bridge.py), for the
keyword half of a search (docs/design.md §7, "Across languages").

A memory holds a query term when it holds the term itself or any of its translations: "event" is held by
"事件总线使用 Kafka" through 事件, and the three translations of "event" do not count as three more terms
(that diluted a memory's share of the query's terms until it fell under the relevance floor). A Chinese
query's terms are its character bigrams: a headword the lexicon knows gives its English words to every
bigram it covers (数据库 → "database" for 数据 and 据库). The query's own terms and their idf weights are
unchanged, so in a vault written in one script nothing but the other script's memories can gain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from aimate_memory.index.textproc import query_terms
from aimate_memory.text import bridge
from aimate_memory.text.words import word_parts

Term = tuple[str, bool]


@dataclass(frozen=True)
class BridgedTerms:
    terms: list[Term]  # the query's own terms
    extra: list[Term]  # the translations that are not among them
    alternatives: list[list[int]]  # per own term: positions in `extra` of its translations

    @classmethod
    def alone(cls, terms: list[Term]) -> BridgedTerms:
        """The query's own terms without translations (no memory in the other script to find)."""
        return cls(list(terms), [], [[] for _ in terms])

    def widened(self, matched: np.ndarray) -> np.ndarray:
        """``matched[own + extra, chunk]`` → ``matched[own, chunk]``, a term held when any alternative is."""
        own = np.array(matched[: len(self.terms)], dtype=bool)
        for position, others in enumerate(self.alternatives):
            if others:
                own[position] |= matched[[len(self.terms) + other for other in others]].any(axis=0)
        return own

    def documents(self, documents: np.ndarray) -> np.ndarray:
        """Chunks holding each own term (``documents[own + extra]`` → per own term), for its idf: a term the
        vault has never seen counts the chunks holding its translations instead (at most their sum), so a
        question asked in the other language is weighted by how rare its words are in the vault. A term the
        vault holds keeps its own count: within one language the weights do not change."""
        own = np.array(documents[: len(self.terms)], dtype=np.float64)
        for position, others in enumerate(self.alternatives):
            if others and own[position] == 0:
                own[position] = float(np.sum(documents[[len(self.terms) + other for other in others]]))
        return own


def bridged_terms(query: str, terms: list[Term]) -> BridgedTerms:
    """`terms` (the query's, from `query_terms`) with their translations from the lexicon."""
    found: dict[Term, list[Term]] = {term: [] for term in terms}
    for part, is_cjk_run in word_parts(query):
        if is_cjk_run:
            for start, head in bridge.headwords(part):
                english = query_terms(" ".join(bridge.english_of(head)))
                for at in range(start, start + len(head) - 1):
                    if (part[at : at + 2], False) in found:
                        found[(part[at : at + 2], False)] += english
        elif (part, False) in found:
            found[(part, False)] += query_terms(" ".join(bridge.chinese_of(part)))
    extra: dict[Term, int] = {}
    alternatives = []
    for term in terms:
        others = [other for other in dict.fromkeys(found[term]) if other not in found]
        alternatives.append([extra.setdefault(other, len(extra)) for other in others])
    return BridgedTerms(list(terms), list(extra), alternatives)
