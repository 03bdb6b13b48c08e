"""Hybrid search over the project and global indexes (DESIGN §7).

Candidates come from FTS5 (bm25) and from sqlite-vec (sign-bit pre-filter + exact re-rank); each list
is collapsed to its best chunk per memory, filtered in SQL, fused into a base score (fusion.py, chosen
by measurement), then weighted by recency, importance and use (scoring.py). Without vectors (no model,
no sqlite-vec, an index built by another model) it is keyword search, with one warning saying why.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aimate_memory.clock import Clock
from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.errors import InvalidInputError
from aimate_memory.index.memory_index import MemoryIndex, RankingRow
from aimate_memory.index.textproc import fts_query, script_of
from aimate_memory.retrieval.fusion import best_per_memory, fuse
from aimate_memory.retrieval.scoring import score
from aimate_memory.retrieval.snippet import make_snippet, match_pattern
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Scope
from aimate_memory.vault.model import Memory

MAX_QUERY_CHARS = 10_000
# Vector candidates that get an exact cosine (plus the floor at depth `retrieval.vector_candidates`), and
# keyword candidates that enter fusion (plus the last one as the floor). See MemoryIndex.vector_candidates.
EXACT_VECTOR_CANDIDATES = 1000
FUSED_KEYWORD_CANDIDATES = 500


@dataclass
class SearchHit:
    memory: Memory
    score: float
    factors: dict[str, float]
    snippet: str
    highlights: list[tuple[int, int]]

    def as_dict(self, explain: bool = False) -> dict[str, Any]:
        data = {
            "id": self.memory.id,
            "title": self.memory.title,
            "path": self.memory.rel_path.as_posix(),
            "layer": self.memory.layer.value,
            "scope": self.memory.scope.value,
            "category": self.memory.category,
            "tags": self.memory.tags,
            "updated_at": self.memory.updated_at.isoformat(),
            "score": round(self.score, 6),
            "snippet": self.snippet,
            "highlights": [list(span) for span in self.highlights],
        }
        if explain:
            data["factors"] = {key: round(value, 6) for key, value in self.factors.items()}
        return data


@dataclass
class SearchResponse:
    query: str
    results: list[SearchHit]
    mode: str  # "hybrid" | "keyword"
    warnings: list[str] = field(default_factory=list)
    elapsed_ms: float = 0.0


class HybridSearcher:
    def __init__(
        self,
        indexes: list[MemoryIndex],
        embedder: LazyEmbedder,
        clock: Clock,
        decay: float,
        candidates: int,
        vector_candidates: int,
        min_similarity: float = 0.0,
    ) -> None:
        self.indexes = indexes  # project first: it wins ties
        self.embedder = embedder
        self.clock = clock
        self.decay = decay
        self.candidates = candidates
        # Min-max fusion normalizes each list over its own candidates, so the vector list must be deep
        # enough to reach the weak end of the vault: measured on LoCoMo (turn R@10), 100 vector
        # candidates gave .645, the whole vault (~600) .681. The sign-bit scan keeps this many chunks
        # and exact cosine re-ranks all of them.
        self.vector_candidates = vector_candidates
        self.min_similarity = min_similarity

    def search(self, query: str, k: int = 10, where: MemoryFilter | None = None) -> SearchResponse:
        started = time.perf_counter()
        where = where or MemoryFilter()
        query = query.strip()
        if not query:
            raise InvalidInputError("empty query", "give some words to search for")
        if k < 1:
            raise InvalidInputError(f"--limit must be at least 1, got {k}", "e.g. --limit 10")
        query = query[:MAX_QUERY_CHARS]
        indexes = [index for index in self.indexes if not where.scopes or index.vault.scope in where.scopes]
        warnings: list[str] = []
        query_vector = self._query_vector(query, indexes, warnings)
        languages = self._languages()
        keyword_hits: list[tuple[Hashable, Hashable, float]] = []
        vector_hits: list[tuple[Hashable, Hashable, float]] = []
        match = fts_query(query)
        for position, index in enumerate(indexes):
            if match is not None:
                for memory_rowid, chunk_rowid, value in index.keyword_candidates(match, self.candidates):
                    keyword_hits.append(((position, memory_rowid), (position, chunk_rowid), value))
            if query_vector is not None and index.has_vectors:
                for memory_rowid, chunk_rowid, value in index.vector_candidates(
                    query_vector, EXACT_VECTOR_CANDIDATES, self.vector_candidates, languages
                ):
                    vector_hits.append(((position, memory_rowid), (position, chunk_rowid), value))
        metadata = self._eligible(indexes, keyword_hits, vector_hits, where)
        keyword_ranked, keyword_chunks = best_per_memory(h for h in keyword_hits if h[0] in metadata)
        # Past the first few hundred, keyword-only candidates cannot reach the top k (their fused score is
        # at most 0.4 × theirs); the last one stays as the floor min-max normalization needs.
        keyword_ranked = keyword_ranked[:FUSED_KEYWORD_CANDIDATES] + keyword_ranked[FUSED_KEYWORD_CANDIDATES:][-1:]
        vector_ranked, vector_chunks = best_per_memory(h for h in vector_hits if h[0] in metadata)
        fused = fuse(
            vector_ranked,
            keyword_ranked,
            query_script=script_of(query),
            vector_languages=languages,
            min_similarity=self.min_similarity or None,
        )
        now = self.clock.now().timestamp()
        ranked = []
        for item in fused:
            row = metadata[item.id]
            factors = score(
                item.score,
                days=max(0.0, (now - row.updated_ts) / 86400),
                importance=row.importance,
                access_count=row.access_count,
                layer=row.layer,
                decay=self.decay,
            )
            if factors.final <= 0:
                continue  # the weakest candidate of a list normalizes to 0: it matched nothing
            scope_rank = 0 if indexes[item.id[0]].vault.scope is Scope.PROJECT else 1
            chunk = keyword_chunks.get(item.id) or vector_chunks.get(item.id)
            ranked.append((-factors.final, scope_rank, item, factors, chunk))
        ranked.sort(key=lambda row: (row[0], row[1]))
        hits = self._hits(indexes, ranked[:k], query)
        mode = "hybrid" if query_vector is not None else "keyword"
        elapsed = (time.perf_counter() - started) * 1000
        return SearchResponse(query, hits, mode, warnings, elapsed)

    def _query_vector(self, query: str, indexes: list[MemoryIndex], warnings: list[str]) -> np.ndarray | None:
        if not indexes or not self.embedder.enabled:
            return None
        stale = [index for index in indexes if not index.has_vectors]
        if stale:
            reason = stale[0].vec_error or stale[0].needs_rebuild() or "the index has no vectors yet"
            warnings.append(
                f"vector search is off for the {stale[0].vault.scope.value} vault: {reason}; "
                "keyword results only (run `aimate mem reindex`)"
            )
            if len(stale) == len(indexes):
                return None
        embedder = self.embedder.get()
        if embedder is None:
            unavailable = self.embedder.unavailable
            if unavailable is not None:
                hint = f" ({unavailable.hint})" if unavailable.hint else ""
                warnings.append(f"{unavailable.message}; keyword results only{hint}")
            return None
        return np.asarray(embedder.embed_query(query), dtype=np.float32)

    def _languages(self) -> frozenset[str]:
        embedder = self.embedder.get() if self.embedder.loaded else None
        return frozenset(embedder.languages) if embedder is not None else frozenset({"latin", "cjk"})

    @staticmethod
    def _eligible(
        indexes: list[MemoryIndex],
        keyword_hits: list[tuple[Hashable, Hashable, float]],
        vector_hits: list[tuple[Hashable, Hashable, float]],
        where: MemoryFilter,
    ) -> dict[Hashable, RankingRow]:
        """Ranking data of every candidate memory that passes the filter, keyed (index position, rowid)."""
        wanted: dict[int, set[int]] = {}
        for (position, rowid), _, _ in [*keyword_hits, *vector_hits]:
            wanted.setdefault(position, set()).add(rowid)
        eligible: dict[Hashable, RankingRow] = {}
        for position, rowids in wanted.items():
            for rowid, row in indexes[position].ranking_rows(rowids, where).items():
                eligible[(position, rowid)] = row
        return eligible

    @staticmethod
    def _hits(indexes: list[MemoryIndex], ranked: list[tuple[Any, ...]], query: str) -> list[SearchHit]:
        chunk_ids: dict[int, list[int]] = {}
        memory_ids: dict[int, list[int]] = {}
        for _, _, item, _, chunk in ranked:
            memory_ids.setdefault(item.id[0], []).append(item.id[1])
            if chunk is not None:
                chunk_ids.setdefault(chunk[0], []).append(chunk[1])
        memories = {
            (position, rowid): memory
            for position, rowids in memory_ids.items()
            for rowid, memory in indexes[position].memories(rowids).items()
        }
        texts = {
            (position, rowid): text
            for position, rowids in chunk_ids.items()
            for rowid, text in indexes[position].chunk_texts(rowids).items()
        }
        pattern = match_pattern(query)
        hits = []
        for _, _, item, factors, chunk in ranked:
            snippet, spans = make_snippet(texts.get(chunk, ""), pattern)
            hits.append(SearchHit(memories[item.id], factors.final, factors.as_dict(), snippet, spans))
        return hits
