"""Hybrid search over the project and global indexes (docs/design.md §7).

Candidates come from FTS5 (bm25; the query's terms and their translations into the other script,
bridged.py) and from the vectors (a sign-bit scan of every chunk, exact cosines for the nearest, estimated
ones for the rest of a deep list); each list is collapsed to its best chunk per memory and filtered in SQL.
The lists are fused (fusion.py) and weighted by recency, importance and use (scoring.py): that is the score
ranked by and the score shown (docs/design.md §7, "One order"). Their absolute 0–1 evidence makes a
relevance that means the same for every query (relevance.py): candidates below the relevance floor
(``retrieval.min_relevance``) are not results, so an unrelated query gets none. Contenders for the top whose
vector score was only estimated are then scored exactly and everything is ranked again. Without vectors (no
model, no sqlite-vec, an index built by another model) it is keyword search, with one warning saying why.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import TypeVar

import numpy as np

from aimate_memory.blas import blas_threads
from aimate_memory.clock import Clock
from aimate_memory.embedding.base import EmbedderUnavailable, understands
from aimate_memory.embedding.lazy import MEMO_SIZE, LazyEmbedder
from aimate_memory.errors import InvalidInputError
from aimate_memory.index.candidates import Candidates, RankingColumns
from aimate_memory.index.memory_index import MemoryIndex
from aimate_memory.index.queries import ThreadSides
from aimate_memory.index.textproc import query_terms
from aimate_memory.retrieval import neighbours, relevance, when
from aimate_memory.retrieval.bridged import BridgedTerms, bridged_terms
from aimate_memory.retrieval.fusion import Fused, Ranked, best_per_memory, fuse
from aimate_memory.retrieval.scoring import ScoreFactors, score
from aimate_memory.retrieval.snippet import make_snippet, match_pattern
from aimate_memory.text import bridge
from aimate_memory.text.scripts import script_of
from aimate_memory.vault.anchors import Staleness
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Scope
from aimate_memory.vault.model import Memory
from aimate_memory.vault.store import Vault

T = TypeVar("T")

MAX_QUERY_CHARS = 10_000
# Vector candidates that get an exact cosine at once (the rest, to depth `retrieval.vector_candidates`, an
# estimate; see MemoryIndex.vector_candidates), and how many of the best ranked are checked: those whose
# vector score was estimated get the exact one and the ranking is done again. An exact cosine costs a
# float16 vector read (1,000 → ~7 ms a query at 10k). LoCoMo turn R@10/R@5: all 1,000 exact .681/.570;
# 200 exact + estimates + checking the best 50 .682/.571; 100 exact .681/.569.
EXACT_VECTOR_CANDIDATES = 200
VERIFIED_CANDIDATES = 50
# Keyword candidates that enter fusion (plus the last one as the floor min-max normalization needs).
FUSED_KEYWORD_CANDIDATES = 500
# An English question's nearest memories in Chinese that are also read said in English (HybridSearcher.
# _in_english): each costs one embedding of a short text a search (kept per process). 30 / 50 deep measured
# zh2en R@10 .731 / .742, MRR .659 / .652 on the dev split (docs/benchmarks.md, "Across languages, third round").
IN_ENGLISH_CANDIDATES = 30
# A memory's text said in English (bridge.in_english) or with what the software it names is (bridge.with_kinds):
# pure functions of the text, kept for as many texts as the embedder keeps document vectors (`MEMO_SIZE`: past
# that the vector is embedded again anyway). Each search says its 30 nearest cross-script memories this way, twice
# (the ranking runs twice), and a daemon's searches, contexts and remembers read the same memories again and
# again: ~40 % of a warm search's CPU was these two (docs/design.md §12, "What a warm request reads twice").
_in_english_said = lru_cache(maxsize=MEMO_SIZE)(bridge.in_english)
_named_said = lru_cache(maxsize=MEMO_SIZE)(bridge.with_kinds)


@dataclass
class SearchHit:
    memory: Memory
    score: float
    factors: dict[str, float]
    snippet: str
    highlights: list[tuple[int, int]]
    #: the id of the result this one is shown next to, as context from the same conversation (neighbours.py)
    context_of: str | None = None
    #: an anchored file changed since the memory was verified (docs/anchors.md); set by the facade
    stale: Staleness | None = None
    #: an ended session's episode, its lines (docs/design.md "Episodes"); set by the facade
    episode: tuple[str, ...] = ()


@dataclass
class SearchResponse:
    query: str
    results: list[SearchHit]
    mode: str  # "hybrid" | "keyword"
    warnings: list[str] = field(default_factory=list)
    elapsed_ms: float = 0.0


@dataclass(frozen=True)
class Ranking:
    fused: Fused  # scores: fusion's, with neighbours' support; vector/keyword: each list's normalized score
    factors: ScoreFactors  # per fused candidate, of the shown score: fused score × recency × importance × use
    order: np.ndarray  # positions in `fused`, best first (candidates below the relevance floor left out)
    vector: Ranked  # the vector list it was made from (raw cosines; its best chunks are snippets)
    evidence: relevance.Evidence  # per fused candidate: what the shown score and the floor are made of


class HybridSearcher:
    def __init__(
        self,
        indexes: list[MemoryIndex],
        embedder: LazyEmbedder,
        clock: Clock,
        decay: float,
        candidates: int,
        vector_candidates: int,
        min_relevance: float,
        uses: Callable[[Vault], Mapping[str, int]] | None = None,
    ) -> None:
        self.indexes = indexes  # project first: it wins ties
        # Explicit reads per memory id, from each vault's use journal (docs/lifecycle.md "Uses"): the
        # ranking's small use factor counts them (a use lives in state/, never in the file).
        self.uses = uses
        self.embedder = embedder
        self.clock = clock
        self.decay = decay
        self.candidates = candidates
        # Depth of the vector list; only its nearest EXACT_VECTOR_CANDIDATES get exact cosines, the rest
        # estimates (MemoryIndex.vector_candidates).
        self.vector_candidates = vector_candidates
        # The relevance floor (0–1, relevance.py): config `retrieval.min_relevance`, chosen on the dev bench
        # by scripts/eval_floor.py (docs/benchmarks.md, "Relevance floor").
        self.min_relevance = min_relevance

    def search(
        self, query: str, k: int = 10, where: MemoryFilter | None = None, *, snippets: bool = True
    ) -> SearchResponse:
        """`snippets` False: every hit's snippet is empty — for a caller that reads only the hits' memories and
        order (a context's search, capture's supersede search), which cutting and marking up to 60 chunks'
        texts cost ~15 % of (docs/design.md §12, "What a warm remember reads once")."""
        with blas_threads(1):  # see blas.py: spinning BLAS threads doubled the p95
            return self._search(query, k, where, snippets)

    def _search(self, query: str, k: int, where: MemoryFilter | None, snippets: bool) -> SearchResponse:
        started = time.perf_counter()
        where = where or MemoryFilter()
        query = query.strip()
        if not query:
            raise InvalidInputError("empty query", "give some words to search for")
        if k < 1:
            raise InvalidInputError(f"the number of results must be at least 1, got {k}", "ask for 10, say")
        query = query[:MAX_QUERY_CHARS]
        indexes = [index for index in self.indexes if not where.scopes or index.vault.scope in where.scopes]
        warnings: list[str] = []
        # Reading the keyword list on a second thread while this one embeds the query was tried: on 2
        # cores it was no faster (10k p50/p95 17.4/22.3 threaded, 16.8/21.1 serial).
        terms = query_terms(query)
        script = script_of(query)
        query_vector = self._query_vector(query, indexes, warnings)
        languages = self._languages()
        vector_parts: list[Candidates] = []
        for position, index in enumerate(indexes):
            if query_vector is not None and index.has_vectors:
                found = index.vector_candidates(
                    query_vector, EXACT_VECTOR_CANDIDATES, self.vector_candidates, languages
                )
                vector_parts.append(_keyed(position, found))
        vector = Candidates.concat(vector_parts)
        # The query's words in the other script find memories written in it (bridged.py); when none of the
        # memories nearest the query is in the other script, the lexicon is not needed (nor loaded: it costs
        # a cold process 0.1–0.3 s).
        across = not len(vector.chunk_rowids) or _any_other_script(indexes, vector.chunk_rowids, script)
        bridged = bridged_terms(query, terms) if across else BridgedTerms.alone(terms)
        translated = self._translated_vector(query, script) if across and len(vector.chunk_rowids) else None
        # An English question is also compared with its nearest Chinese memories said in English (`_in_english`).
        english = query_vector if translated is not None and script == "latin" else None
        keyword = _keyword_candidates(indexes, terms, self.candidates)
        if bridged.extra:
            keyword = Candidates.concat([keyword, _keyword_candidates(indexes, bridged.extra, self.candidates)])
        keys = np.concatenate([keyword.memory_rowids, vector.memory_rowids])
        columns = self._eligible(indexes, keys, where, self.uses)
        keyword_ranked = _best_eligible(keyword, columns.rowids)
        # Past the first few hundred by bm25, keyword-only candidates cannot reach the top k (their fused
        # score is at most 0.4 × theirs); the last one stays, the weakest match anchoring min-max's low end.
        if len(keyword_ranked) > FUSED_KEYWORD_CANDIDATES + 1:
            keep = np.r_[np.arange(FUSED_KEYWORD_CANDIDATES), len(keyword_ranked) - 1]
            keyword_ranked = keyword_ranked.take(keep)
        keyword_evidence = _keyword_evidence(indexes, bridged, keyword_ranked)
        vector_ranked = _best_eligible(vector, columns.rowids)
        threads = _Threads(indexes)  # ranking runs twice, then the placement: each thread is read once
        periods = when.named_periods(query)
        ranking = self._rank(
            threads, vector_ranked, keyword_evidence, columns, script, languages, translated, english, periods
        )
        contenders = ranking.fused.ids[ranking.order[: max(k, VERIFIED_CANDIDATES)]]
        if query_vector is not None and _verify(indexes, query_vector, vector, contenders):
            vector_ranked = _best_eligible(vector, columns.rowids)  # with the contenders' exact cosines
            ranking = self._rank(
                threads, vector_ranked, keyword_evidence, columns, script, languages, translated, english, periods
            )
        order = ranking.order[:k]
        best_chunks = _best_chunks(ranking.fused.ids[order], keyword_ranked, ranking.vector)
        pattern = match_pattern(query) if snippets else None
        hits = self._hits(indexes, ranking, order, best_chunks, pattern)
        hits = _with_neighbours(threads, ranking.fused.ids[order].tolist(), hits, k, where, pattern)
        mode = "hybrid" if query_vector is not None else "keyword"
        elapsed = (time.perf_counter() - started) * 1000
        return SearchResponse(query, hits, mode, warnings, elapsed)

    def _rank(
        self,
        threads: _Threads,
        vector: Ranked,
        keyword_evidence: Ranked,
        columns: RankingColumns,
        query_script: str,
        languages: frozenset[str],
        translated: np.ndarray | None = None,
        english: np.ndarray | None = None,
        periods: list[when.Period] | None = None,
    ) -> Ranking:
        """Order by min-max fusion of the vector list and the keyword evidence (what measured best: ranking
        by the absolute relevance instead cost LoCoMo R@10 .687 → .672, MADial-zh .738 → .638; the keyword
        half by bm25 instead of its evidence, LoCoMo turn R@5 .651 → .622, docs/benchmarks.md "Keyword
        half"); filter and score by the absolute relevance."""
        indexes = threads.indexes
        trusted = bool(len(vector)) and understands(languages, query_script)
        cross = _other_script(indexes, vector, query_script) if trusted else None
        comparable = relevance.on_own_scale(vector, cross, query_script, self._cross_scale())
        if translated is not None and cross is not None and cross.any():
            comparable = _with_translation(indexes, comparable, cross, translated)
            if english is not None:
                comparable = self._in_english(indexes, comparable, cross, english)
            elif query_script != "latin":  # its English memories with what their names are, its Chinese in English
                comparable = self._named(indexes, comparable, cross, translated)
                comparable = self._in_english(indexes, comparable, ~cross, translated)
        fused = fuse(comparable, keyword_evidence, query_script=query_script, vector_languages=languages)
        fused = _supported(threads, _dated(fused, columns, periods or []))
        found = relevance.evidence(fused.ids, comparable, keyword_evidence, query_script, trusted)
        row = np.searchsorted(columns.rowids, fused.ids)
        weighed = partial(
            score,
            days=(self.clock.now().timestamp() - columns.updated_ts[row]) / 86400,
            importance=columns.importance[row],
            access_count=columns.access_count[row],
            layer=columns.layers[row],
            decay=self.decay,
        )
        # The score shown is the one ranked by (issue 36: a person reads the score, an assistant the order):
        # fusion's score with its neighbours' support, × recency, importance and use. The absolute relevance
        # decides only who is a result at all: nobody is dropped for being last of a list, only by the floor.
        factors = weighed(fused.scores)
        passing = np.flatnonzero(relevance.passes(found.relevance, self.min_relevance))
        global_scope = np.asarray([index.vault.scope is not Scope.PROJECT for index in indexes])
        # Best first; the project wins ties; then fusion's own order (np.lexsort is stable).
        tie_break = global_scope[fused.ids[passing] >> KEY_SHIFT]
        order = passing[np.lexsort((tie_break, -factors.final[passing]))]
        return Ranking(fused, factors, order, vector, found)

    def _query_vector(self, query: str, indexes: list[MemoryIndex], warnings: list[str]) -> np.ndarray | None:
        if not indexes or not self.embedder.enabled:
            return None
        if self.embedder.get() is not None and self.embedder.fallback:
            warnings.append(self.embedder.fallback)
        stale = [index for index in indexes if not index.has_vectors]
        # A vault with no memories yet (the global one after `init`) lacks no vectors: said, its warning's remedy
        # (`reindex`) changed nothing and every search of a new user repeated it.
        lacking = [index for index in stale if index.has_chunks]
        if lacking:
            warnings.append(_vectors_off(lacking[0]))
        if stale and len(stale) == len(indexes):
            return None
        if self.embedder.get() is None:
            unavailable = self.embedder.unavailable
            if unavailable is not None:
                hint = f" ({unavailable.hint})" if unavailable.hint else ""
                warnings.append(f"{unavailable.message}; keyword results only{hint}")
            return None
        try:
            return np.asarray(self.embedder.embed_query(query), dtype=np.float32)
        except EmbedderUnavailable as exc:  # an endpoint that stalled on the query (embedding/endpoint_provider.py)
            warnings.append(f"{exc.message}; keyword results only")
            return None

    def _translated_vector(self, query: str, script: str) -> np.ndarray | None:
        """The vector of the query said in the other script by the lexicon (its words' translations, bridge.py),
        which a memory of that script is compared with as within one language (`_with_translation`)."""
        translate = {"cjk": bridge.english_words, "latin": bridge.chinese_words, "mixed": bridge.all_in_english}[script]
        words = translate(query)
        if not words or self.embedder.get() is None:
            return None
        return np.asarray(self.embedder.embed_query(" ".join(words)), dtype=np.float32)

    def _in_english(self, indexes: list[MemoryIndex], vector: Ranked, chinese: np.ndarray, query: np.ndarray) -> Ranked:
        """`vector` with the question's `IN_ENGLISH_CANDIDATES` nearest Chinese memories (`chinese`) scored by
        the mean of what they had and their cosine with the question in English (`query`: an English question's
        own vector, a Chinese one's said in English) — the memories said in English too (bridge.in_english:
        their Han characters by the lexicon's English words, their names and code kept). CC-CEDICT is a
        Chinese → English dictionary and English is what both default models read (MiniLM English only):
        a Chinese question is said in English (`_translated_vector`), and so are its Chinese memories when its
        English ones are read that way (a vault of both languages), and an English question's Chinese memories;
        saying the English question in Chinese instead reads the reversed table's wrong senses ("log" → 登出).
        Measured in docs/benchmarks.md, "Across languages, third round" and "fourth round"."""
        top, texts = _nearest_texts(indexes, vector, chinese)
        said = [_in_english_said(text) for text in texts]
        top = top[[bool(text) for text in said]]
        if not len(top):
            return vector
        found = np.asarray(self.embedder.embed_documents([text for text in said if text]), dtype=np.float32)
        scores = vector.scores.copy()
        scores[top] = (scores[top] + found @ query) / 2
        return Ranked(vector.ids, scores, vector.chunks)

    def _named(self, indexes: list[MemoryIndex], vector: Ranked, cross: np.ndarray, translated: np.ndarray) -> Ranked:
        """`vector` with each of a Chinese question's `IN_ENGLISH_CANDIDATES` nearest English memories that names
        well-known software (bridge.with_kinds: "FastAPI" → web framework …) raised to the cosine of the question
        said in English (`_translated_vector`) with the memory and what its names are, when that is higher: the
        memory side of what `_in_english` gives an English question, read the way `_with_translation` reads the
        memory alone (the better of the two; a memory naming nothing keeps its score)."""
        top, texts = _nearest_texts(indexes, vector, cross)
        said = {position: named for position, text in enumerate(texts) if (named := _named_said(text)) != text}
        if not said:
            return vector
        top = top[list(said)]
        found = np.asarray(self.embedder.embed_documents(list(said.values())), dtype=np.float32)
        scores = vector.scores.copy()
        scores[top] = np.maximum(scores[top], found @ translated)
        return Ranked(vector.ids, scores, vector.chunks)

    def _cross_scale(self) -> float:
        """What undoes the ensemble's weighting of a cross-script cosine: 1 / √(1 − w) for the default
        MiniLM + USE pair (see relevance.CROSS_SCRIPT), 1 for a single model."""
        embedder = self.embedder.get() if self.embedder.loaded else None
        weight = getattr(embedder, "latin_weight", None)
        return 1.0 / math.sqrt(1.0 - weight) if weight is not None and weight < 1.0 else 1.0

    def _languages(self) -> frozenset[str]:
        """The scripts the loaded embedder reads (keyword-only: any, since no vector is trusted anyway)."""
        embedder = self.embedder.get() if self.embedder.loaded else None
        return frozenset(embedder.languages) if embedder is not None else frozenset({"latin", "cjk"})

    @staticmethod
    def _eligible(
        indexes: list[MemoryIndex],
        keys: np.ndarray,
        where: MemoryFilter,
        uses: Callable[[Vault], Mapping[str, int]] | None = None,
    ) -> RankingColumns:
        """Ranking data of every candidate memory that passes the filter, keyed and sorted by key."""
        parts = []
        for position, index in enumerate(indexes):
            mine = keys[(keys >> KEY_SHIFT) == position]
            if len(mine):
                counts = uses(index.vault) if uses is not None else None
                found = index.ranking_columns(mine & ROWID_MASK, where, counts)
                parts.append(found._replace(rowids=found.rowids | (position << KEY_SHIFT)))
        if not parts:
            return RankingColumns.from_rows([])
        return RankingColumns(*(np.concatenate(column) for column in zip(*parts, strict=True)))

    @staticmethod
    def _hits(
        indexes: list[MemoryIndex],
        ranking: Ranking,
        order: np.ndarray,
        best_chunks: np.ndarray,
        pattern: re.Pattern[str] | None,
    ) -> list[SearchHit]:
        """`pattern` None: no snippets (`search(snippets=False)`)."""
        fused, factors = ranking.fused, ranking.factors
        keys = fused.ids[order]
        memories = _by_key(indexes, keys, MemoryIndex.memories)
        wanted = best_chunks[best_chunks >= 0] if pattern is not None else best_chunks[:0]
        texts = _by_key(indexes, wanted, MemoryIndex.chunk_texts)
        cosines = dict(zip(ranking.vector.ids.tolist(), ranking.vector.scores.tolist(), strict=True))
        hits = []
        for key, position, chunk in zip(keys.tolist(), order.tolist(), best_chunks.tolist(), strict=True):
            snippet, spans = _snippet(texts.get(chunk, ""), pattern)
            explained = _explained(factors.as_dict(position), fused, cosines.get(key), ranking.evidence, position)
            hits.append(SearchHit(memories[key], explained["final"], explained, snippet, spans))
        return hits


# Hybrid search runs over several indexes (project + global) at once: a candidate's key packs the
# index's position and the rowid there into one int64, so fusion works on plain integer arrays.
KEY_SHIFT = 40
ROWID_MASK = (1 << KEY_SHIFT) - 1


def _with_neighbours(
    threads: _Threads,
    keys: list[int],
    hits: list[SearchHit],
    k: int,
    where: MemoryFilter,
    pattern: re.Pattern[str] | None,
) -> list[SearchHit]:
    """`hits` with the conversation neighbours of the first few placed after the best (neighbours.py). A
    neighbour passes the search's filter like any result; one not ranked at all shows its first chunk and
    its anchor's score."""
    if k <= neighbours.AFTER:
        return hits
    indexes = threads.indexes
    sides = threads.sides(keys[: neighbours.ANCHORS])
    found = {anchor: neighbours.nearest_first(*side) for anchor, side in sides.items()}
    if not any(found.values()):
        return hits
    wanted = sorted({key for keys_ in found.values() for key in keys_} - set(keys))
    eligible = set(HybridSearcher._eligible(indexes, np.asarray(wanted, dtype=np.int64), where).rowids.tolist())
    found = {anchor: [key for key in near if key in keys or key in eligible] for anchor, near in found.items()}
    plan = neighbours.place_neighbours(keys, found)[:k]
    known = dict(zip(keys, hits, strict=True))
    new = np.asarray([key for key, _ in plan if key not in known], dtype=np.int64)
    memories = _by_key(indexes, new, MemoryIndex.memories)
    chunks: dict[int, list[tuple[str, str]]] = {}  # by key: each index read once
    for position, index in enumerate(indexes):
        mine = {memory.id: key for key, memory in memories.items() if key >> KEY_SHIFT == position}
        if mine:
            chunks.update({mine[memory_id]: rows for memory_id, rows in index.memory_chunks(list(mine)).items()})
    placed = []
    # What a neighbour placed after the first `AFTER` shows: the score of the result it is placed after, so
    # the order shown stays the order of the scores shown; its `placement` part is what that added.
    floor = hits[min(neighbours.AFTER, len(hits)) - 1].score
    for position, (key, anchor) in enumerate(plan):
        if key in known:
            placed.append(_lifted(known[key], floor) if position >= neighbours.AFTER else known[key])
            continue
        memory = memories.get(key)
        if memory is None:  # gone since the thread was read (a concurrent sync): nothing to show
            continue
        first = chunks.get(key)
        snippet, spans = _snippet(first[0][0] if first else "", pattern)
        # A neighbour not ranked in the first k is always some anchor's context (place_neighbours).
        assert anchor is not None
        explained = {"context": 1.0, "placement": floor, "final": floor}
        placed.append(SearchHit(memory, floor, explained, snippet, spans, known[anchor].memory.id))
    return placed


def _snippet(text: str, pattern: re.Pattern[str] | None) -> tuple[str, list[tuple[int, int]]]:
    """A hit's snippet and its marks; none without a pattern (a search asked without snippets)."""
    return make_snippet(text, pattern) if pattern is not None else ("", [])


def _lifted(hit: SearchHit, floor: float) -> SearchHit:
    """`hit` shown at `floor` when it was placed above results it scored below (its `placement` part)."""
    if hit.score >= floor:
        return hit
    factors = {**hit.factors, "placement": floor - hit.score, "final": floor}
    return replace(hit, score=floor, factors=factors)


def _supported(threads: _Threads, fused: Fused) -> Fused:
    """Fusion's scores with the support of conversation neighbours (neighbours.support) for the best
    `SUPPORTED` candidates, best first again (ties keep fusion's order)."""
    sides = threads.sides(fused.ids[: neighbours.SUPPORTED].tolist())
    if not sides:
        return fused
    position_of = {key: position for position, key in enumerate(fused.ids.tolist())}
    adjacent = {  # the memory right before and right after: support reads only the nearest on each side
        position_of[key]: [position_of[near] for near in (*side.before[:1], *side.after[:1]) if near in position_of]
        for key, side in sides.items()
    }
    scores = neighbours.support(fused.scores, adjacent, neighbours.SUPPORT)
    order = np.argsort(-scores, kind="stable")
    return fused.take(order, support=(scores - fused.scores)[order], scores=scores[order])


def _dated(fused: Fused, columns: RankingColumns, periods: list[when.Period]) -> Fused:
    """Fusion's scores raised by `when.DATE_WEIGHT` × each candidate's own score × how close it was said to a
    date the query names (retrieval/when.py), best first again; before support, so the line next to one said
    then is carried too."""
    if not periods or not len(fused):
        return fused
    said = columns.created_ts[np.searchsorted(columns.rowids, fused.ids)]
    raised = when.DATE_WEIGHT * fused.scores * when.closeness(periods, said)
    if not raised.any():
        return fused
    scores = fused.scores + raised
    order = np.argsort(-scores, kind="stable")
    return fused.take(order, scores=scores[order], dated=raised[order])


def _read_sides(index: MemoryIndex, rowids: list[int]) -> dict[int, ThreadSides]:
    return index.thread_sides(rowids, neighbours.SPAN)


class _Threads:
    """One search's reads of MemoryIndex.thread_sides (`SPAN` on each side, enough for support and the
    placement) for keys of any index, keyed back (the neighbours too); each key is read once."""

    def __init__(self, indexes: list[MemoryIndex]) -> None:
        self.indexes = indexes
        self._known: dict[int, ThreadSides | None] = {}  # None: not in a thread

    def sides(self, keys: list[int]) -> dict[int, ThreadSides]:
        unread = [key for key in keys if key not in self._known]
        if unread:
            found = _by_key(self.indexes, np.asarray(unread, dtype=np.int64), _read_sides)
            for key in unread:
                side, offset = found.get(key), key >> KEY_SHIFT << KEY_SHIFT
                shifted = None if side is None else [tuple(offset | n for n in near) for near in side]
                self._known[key] = None if shifted is None else ThreadSides(*shifted)
        return {key: side for key in keys if (side := self._known[key]) is not None}


def _explained(
    factors: dict[str, float], fused: Fused, cosine: float | None, evidence: relevance.Evidence, position: int
) -> dict[str, float]:
    """What `search --explain` shows, in reading order: the evidence and the absolute relevance made of it
    (what the floor reads), then the parts of the shown score — each list's share of the fused score and the
    neighbours' support, each × recency × importance × use — which add up to it (system/records.py SCORE_PARTS)."""
    out: dict[str, float] = {}
    if cosine is not None and not np.isnan(evidence.vector[position]):
        out["similarity"] = float(cosine)  # the best chunk's raw cosine
        out["vector"] = float(evidence.vector[position])
    if not np.isnan(evidence.keyword[position]):
        out["keyword"] = float(evidence.keyword[position])
    out["relevance"] = float(evidence.relevance[position])
    weight = factors["recency"] * factors["importance"] * factors["access"]
    for part, values in (("vector_part", fused.vector_part), ("keyword_part", fused.keyword_part)):
        out[part] = float(values[position]) * weight if values is not None else 0.0
    if fused.dated is not None and fused.dated[position] > 0:  # said on a date the query names
        out["date_part"] = float(fused.dated[position]) * weight
    if fused.support is not None and fused.support[position] > 0:  # it moved this hit up the order
        out["neighbour_part"] = float(fused.support[position]) * weight
    factors.pop("base")
    out.update(factors)
    return out


def _vectors_off(index: MemoryIndex) -> str:
    """Why `index` is searched by keywords only: a worker re-embedding it for a new model (and how far it
    is), or what else is wrong and its remedy."""
    scope = index.vault.scope.value
    reembedding = index.reembedding
    if reembedding is not None:
        return (
            f"vector search is off for the {scope} vault while it is re-embedded for the new model "
            f"({reembedding.describe()}); keyword results until then"
        )
    reason = index.vec_error or index.needs_rebuild() or "the index has no vectors yet"
    return f"vector search is off for the {scope} vault: {reason}; keyword results only (run `aimate mem reindex`)"


def _keyword_evidence(indexes: list[MemoryIndex], bridged: BridgedTerms, keyword: Ranked) -> Ranked:
    """The keyword list with its bm25 replaced by 0–1 keyword evidence (relevance.keyword_evidence): the
    query's own terms, each held through itself or a translation (bridged.py), weighted by its own idf."""
    evidence = np.zeros(len(keyword))
    terms = [*bridged.terms, *bridged.extra]
    for position, index in enumerate(indexes):
        mine = np.flatnonzero((keyword.chunks >> KEY_SHIFT) == position)
        if len(mine) and bridged.terms:
            found = index.term_matches(terms, keyword.chunks[mine] & ROWID_MASK)
            weights = relevance.term_weights(bridged.documents(found.documents), found.rows)
            evidence[mine] = relevance.keyword_evidence(bridged.widened(found.matched), weights)
            if bridged.extra:  # or its share of the query said in the other script, if that is more
                own = len(bridged.terms)
                translated = relevance.term_weights(found.documents[own:], found.rows)
                across = relevance.keyword_evidence(found.matched[own:], translated)
                evidence[mine] = np.maximum(evidence[mine], across)
    return Ranked(keyword.ids, evidence, keyword.chunks)


def _keyword_candidates(indexes: list[MemoryIndex], terms: list[tuple[str, bool]], limit: int) -> Candidates:
    if not terms:
        return Candidates.empty()
    return Candidates.concat(
        _keyed(position, index.keyword_candidates(terms, limit)) for position, index in enumerate(indexes)
    )


def _other_script(indexes: list[MemoryIndex], vector: Ranked, query_script: str) -> np.ndarray:
    """Per memory of the vector list: is its best chunk in the other script than the query (Latin vs not)?"""
    return _in_other_script(indexes, vector.chunks, query_script)


def _with_translation(indexes: list[MemoryIndex], vector: Ranked, cross: np.ndarray, translated: np.ndarray) -> Ranked:
    """`vector` (on the query's own scale) with each other-script memory's cosine raised to its cosine with the
    query's translation (HybridSearcher._translated_vector) when that is higher: USE alone compares the two
    languages, and loses a quarter of what it finds within one. The better of the two measured above their
    mean and the translation alone (docs/benchmarks.md, "Across languages, second round")."""
    at = np.flatnonzero(cross)
    chunks = vector.chunks[at]
    said = np.zeros(len(at))
    for position, index in enumerate(indexes):
        mine = np.flatnonzero((chunks >> KEY_SHIFT) == position)
        if len(mine):
            said[mine] = index.cosines(translated, chunks[mine] & ROWID_MASK)
    scores = vector.scores.copy()
    scores[at] = np.maximum(scores[at], said)
    return Ranked(vector.ids, scores, vector.chunks)


def said_forms(indexes: list[MemoryIndex], limit: int, ids: Sequence[str] | None = None) -> list[str]:
    """What a search embeds of the newest `limit` active chunks of `indexes` (of the memories `ids` only, when
    given: one just written) when they are in the other script than its question: a non-Latin chunk said in
    English (`_in_english`), a Latin one with what the software it names is (`_named`, only when it names
    some). Embedded ahead of the question (`Retrieval.warm_said`), the vectors are the ones the search would
    have computed — the same texts, the same model."""
    texts: list[str] = []
    chosen = f"AND m.id IN ({', '.join('?' * len(ids))}) " if ids is not None else ""
    for index in indexes:
        rows = index.conn.execute(
            "SELECT c.text, c.script FROM chunks c JOIN memories m ON m.rowid = c.memory_rowid "
            f"WHERE m.status = 'active' {chosen}ORDER BY m.updated_ts DESC, c.ordinal LIMIT ?",
            (*(ids or ()), limit),
        ).fetchall()
        for text, script in rows:
            said = _named_said(text) if script == "latin" else _in_english_said(text)
            if said and (script != "latin" or said != text):
                texts.append(said)
    return list(dict.fromkeys(texts))[:limit]


def _nearest_texts(indexes: list[MemoryIndex], vector: Ranked, among: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """The `IN_ENGLISH_CANDIDATES` best of `vector` `among` those marked (positions), with their best chunk's text."""
    at = np.flatnonzero(among)
    top = at[np.argsort(-vector.scores[at], kind="stable")[:IN_ENGLISH_CANDIDATES]]
    texts = _by_key(indexes, vector.chunks[top], MemoryIndex.chunk_texts)
    return top, [texts.get(chunk, "") for chunk in vector.chunks[top].tolist()]


def _any_other_script(indexes: list[MemoryIndex], chunks: np.ndarray, query_script: str) -> bool:
    return bool(_in_other_script(indexes, np.unique(chunks), query_script).any())


def _in_other_script(indexes: list[MemoryIndex], chunks: np.ndarray, query_script: str) -> np.ndarray:
    """Per chunk key: is it in the other script than the query (Latin vs not)?"""
    latin_query = query_script == "latin"
    cross = np.zeros(len(chunks), dtype=bool)
    for position, index in enumerate(indexes):
        mine = np.flatnonzero((chunks >> KEY_SHIFT) == position)
        if len(mine):
            cross[mine] = index.latin_chunks(chunks[mine] & ROWID_MASK) != latin_query
    return cross


def _keyed(position: int, found: Candidates) -> Candidates:
    offset = position << KEY_SHIFT
    return found._replace(memory_rowids=found.memory_rowids | offset, chunk_rowids=found.chunk_rowids | offset)


def _best_eligible(found: Candidates, eligible: np.ndarray) -> Ranked:
    found = found.take(np.flatnonzero(np.isin(found.memory_rowids, eligible)))
    return best_per_memory(found.memory_rowids, found.chunk_rowids, found.scores)


def _verify(indexes: list[MemoryIndex], query: np.ndarray, vector: Candidates, contenders: np.ndarray) -> bool:
    """Exact cosines, in place, for the contenders' vector candidates that only had an estimate."""
    estimated = np.flatnonzero(~vector.exact & np.isin(vector.memory_rowids, contenders))
    if not len(estimated):
        return False
    chunks = vector.chunk_rowids[estimated]
    for position, index in enumerate(indexes):
        mine = np.flatnonzero((chunks >> KEY_SHIFT) == position)
        if len(mine):
            vector.scores[estimated[mine]] = index.cosines(query, chunks[mine] & ROWID_MASK)
    vector.exact[estimated] = True
    return True


def _best_chunks(keys: np.ndarray, *lists: Ranked) -> np.ndarray:
    """The snippet chunk of each key: its best chunk in the first list that has it (-1: none)."""
    chunks = np.full(len(keys), -1, dtype=np.int64)
    for ranked in reversed(lists):
        found = np.isin(keys, ranked.ids)
        where = np.flatnonzero(found)
        lookup = dict(zip(ranked.ids.tolist(), ranked.chunks.tolist(), strict=True))
        chunks[where] = [lookup[key] for key in keys[where].tolist()]
    return chunks


def _by_key(
    indexes: list[MemoryIndex], keys: np.ndarray, read: Callable[[MemoryIndex, list[int]], dict[int, T]]
) -> dict[int, T]:
    """``read(index, rowids)`` for the keys of each index, keyed back."""
    out: dict[int, T] = {}
    for position, index in enumerate(indexes):
        rowids = (keys[(keys >> KEY_SHIFT) == position] & ROWID_MASK).tolist()
        if rowids:
            offset = position << KEY_SHIFT
            out.update({rowid | offset: value for rowid, value in read(index, rowids).items()})
    return out
