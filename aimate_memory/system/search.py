"""Reading through the index: hybrid search, metadata queries, index statistics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aimate_memory.system.base import SystemBase
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.model import Memory

if TYPE_CHECKING:
    from aimate_memory.retrieval.hybrid import SearchResponse


class SearchActions(SystemBase):
    def search(self, query: str, top_k: int = 10, where: MemoryFilter | None = None) -> SearchResponse:
        """Hybrid search over the project and global vaults, best first; only relevant memories are returned."""
        from aimate_memory.retrieval.hybrid import HybridSearcher

        retrieval = self.config.section("retrieval")
        searcher = HybridSearcher(
            self.readable_indexes,
            self.embedder,
            self.clock,
            decay=retrieval["decay"],
            candidates=retrieval["candidates"],
            vector_candidates=retrieval["vector_candidates"],
            min_similarity=retrieval["min_similarity"],
        )
        # A result list is not a use (docs/design.md §5): only explicit reads (`read`) are journaled, so a
        # note that keeps showing up in searches is never promoted for it.
        return searcher.search(query, top_k, where)

    def query(self, where: MemoryFilter | None = None, limit: int | None = None, order: str = "path") -> list[Memory]:
        """Metadata query from the index (no file reads): list, time ranges, filters."""
        where = where or MemoryFilter()
        found: list[Memory] = []
        for index in self.readable_indexes:
            if where.scopes and index.vault.scope not in where.scopes:
                continue
            found.extend(index.query(where, limit, order))
        return found[:limit] if limit is not None else found

    def get_stats(self) -> dict[str, Any]:
        return {index.vault.scope.value: index.stats() for index in self.readable_indexes}
