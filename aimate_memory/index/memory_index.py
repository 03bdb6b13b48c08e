"""One vault's index, as the rest of the package sees it: `MemoryIndex` composes the parts below.

- `store`: the index file (connection, identity, rebuild reasons, swap of a rebuilt file); `db`: its schema
- `sync`: bring it up to date with the files (`refresh_scan` → `refresh_plan` → `refresh_apply` → `refresh_embed`)
- `keyword_search`, `vector_search`: candidate chunks for a query (`candidates`: what they return)
- `queries`: metadata queries (list, filter, id prefix, texts, ranking columns)
- `health`: stats, health checks, the metrics log
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlean

from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.index import db
from aimate_memory.index.health import METRICS_KEPT, IndexHealth, MetricRow
from aimate_memory.index.queries import MetadataQueries, ThreadSides, filter_sql, memory_from_row
from aimate_memory.index.reembed import Launch, Reembed, ReembedProgress
from aimate_memory.index.refresh import IndexRefresh
from aimate_memory.index.refresh_report import Progress, RefreshReport
from aimate_memory.index.refresh_scan import VaultScan
from aimate_memory.index.store import IndexStore
from aimate_memory.vault.anchors import Anchor
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.model import Memory
from aimate_memory.vault.store import Vault

if TYPE_CHECKING:  # numpy and the searches load on a search's first use: a cold `list` reads no vector
    import numpy as np

    from aimate_memory.index.candidates import Candidates, RankingColumns
    from aimate_memory.index.keyword_search import KeywordSearch, TermMatches
    from aimate_memory.index.vector_search import VectorSearch


class MemoryIndex:
    """`index.db` for one vault. Many readers; one writer at a time (file lock + SQLite WAL)."""

    def __init__(
        self,
        vault: Vault,
        db_path: Path,
        lock_path: Path,
        embedder: LazyEmbedder,
        sensitive_keywords: Iterable[str] = (),
        exclude_globs: Iterable[str] = (),
        reembed_launch: Launch | None = None,
    ) -> None:
        """`reembed_launch` starts the worker that re-embeds the vault after a switch of model (reembed.py);
        without it the refresh that notices the switch re-embeds, and waits."""
        self._store = IndexStore(db_path, embedder)
        self._scan = VaultScan(vault, sensitive_keywords, exclude_globs)
        self._reembed = Reembed(self._store, reembed_launch)
        self._refresh = IndexRefresh(self._store, self._scan, embedder, lock_path, self._reembed)
        self.synced = False  # `Store.synced`: up to date a moment ago, a `paths` refresh is skipped
        self._writes = 0  # refreshes of this process that changed what a search reads (`content_stamp`)
        self._queries = MetadataQueries(self._store, vault)
        self._health = IndexHealth(self._store, self._scan, embedder)

    @cached_property
    def _keywords(self) -> KeywordSearch:
        from aimate_memory.index.keyword_search import KeywordSearch

        return KeywordSearch(self._store)

    @cached_property
    def _vectors(self) -> VectorSearch:
        from aimate_memory.index.vector_search import VectorSearch

        return VectorSearch(self._store)

    def content_stamp(self) -> tuple[int, int, int]:
        """Changes whenever what a search of this index reads may have: a refresh of this process that wrote
        memories or chunks, another connection's commit (`PRAGMA data_version`), a new connection. (Not
        `total_changes`: every timed operation writes a row of metrics.)"""
        conn = self._store.conn
        return id(conn), self._writes, conn.execute("PRAGMA data_version").fetchone()[0]

    def _kept_vectors(self) -> VectorSearch | None:
        """The vector search, when this index built one (it may hold sign bits a refresh would drop)."""
        found: VectorSearch | None = vars(self).get("_vectors")
        return found

    def _forget_vectors(self) -> None:
        """Drop the vector search's cached sign bits, if it was ever built (docs/design.md, "What a cold command
        loads")."""
        if "_vectors" in vars(self):
            self._vectors.forget()

    # -- the file ----------------------------------------------------------------------------------

    @property
    def vault(self) -> Vault:
        return self._scan.vault

    @property
    def embedder(self) -> LazyEmbedder:
        return self._store.embedder

    @property
    def db_path(self) -> Path:
        return self._store.db_path

    @property
    def lock_path(self) -> Path:
        return self._refresh.lock_path

    @property
    def sensitive_keywords(self) -> list[str]:
        return self._scan.sensitive_keywords

    @property
    def exclude_globs(self) -> list[str]:
        return self._scan.exclude_globs

    @property
    def conn(self) -> sqlean.Connection:
        return self._store.conn

    @property
    def vec_error(self) -> str | None:
        """Why vectors are off (sqlite-vec did not load), or None."""
        return self._store.vec_error

    def close(self) -> None:
        self._forget_vectors()
        self._writes += 1  # the next connection (a swapped-in file) may reuse this one's id
        self._store.close()

    @property
    def exists(self) -> bool:
        return self._store.exists

    def identity(self) -> db.IndexIdentity | None:
        return self._store.identity()

    @property
    def has_vectors(self) -> bool:
        """True when the index holds vectors made by the configured embedder (a search asks first: a file
        another process swapped in is read from then on)."""
        self._follow_swap()
        return self._store.has_vectors

    @property
    def has_chunks(self) -> bool:
        """True when the index holds a chunk to embed — or cannot say (no index yet, a file it cannot read). A
        vault of no memories (a new one) has no vectors and lacks none: a search need not warn about it."""
        self._follow_swap()
        try:
            return self._store.conn.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is not None
        except sqlean.Error:
            return True

    def _follow_swap(self) -> None:
        """Read the file another process swapped in (a rebuild, a re-embedding worker), not the old one."""
        if self._store.replaced():
            self.close()

    def needs_rebuild(self) -> str | None:
        """Why the index must be rebuilt from the files, or None."""
        self._follow_swap()
        return self._store.needs_rebuild()

    @property
    def reembedding(self) -> ReembedProgress | None:
        """How far the worker re-embedding this vault for a new model is, or None when none runs."""
        return self._reembed.progress()

    def reembed_failed(self) -> None:
        """A worker could not re-embed (its process could not use the new model): syncs wait before the next."""
        self._reembed.record_failure()

    def reembed_now(self) -> RefreshReport:
        """The worker's part of a switch of model: a new index with the new model's vectors, swapped in."""
        report = self._refresh.reembed_now()
        self._forget_vectors()
        return report

    # -- sync --------------------------------------------------------------------------------------

    def refresh(
        self, progress: Progress | None = None, force_rebuild: bool = False, paths: Iterable[str] | None = None
    ) -> RefreshReport:
        """Bring the index up to date with the files; rebuilds (temp file + swap) when it must.

        `paths` (vault-relative; a folder stands for everything under it) limits the walk to what a
        watcher saw change, so an edit in a 100k vault costs a few stats instead of 100k. While `synced` is set
        (`Store.synced`: the caller synced every change a moment ago) a `paths` refresh walks nothing again."""
        self._follow_swap()
        if self.synced and paths is not None and not force_rebuild:
            return RefreshReport()
        paths = list(paths) if paths is not None else None
        kept = self._kept_vectors()
        pending = kept is not None and db.get_meta(kept.store.conn, db.VECTORS_PENDING) != "0"
        files = _files_named(paths) if kept is not None and not pending and not force_rebuild else None
        before = self._queries.memory_rowids_at(files) if files else set()
        report = self._refresh.run(progress, force_rebuild, paths)
        if _signs_may_differ(report) or report.touched or report.excluded:
            self._writes += 1
        if kept is None or pending or _signs_may_differ(report):
            if kept is not None and files is not None and _patchable(report):
                kept.patch(before | self._queries.memory_rowids_at(files))
            else:
                self._forget_vectors()  # our own writes do not change PRAGMA data_version
        self._health.record_metric(
            "sync", report.seconds * 1000, layer=self.vault.scope.value, breakdown={"changed": report.changed}
        )
        return report

    # -- search ------------------------------------------------------------------------------------

    def keyword_candidates(self, terms: Sequence[tuple[str, bool]], limit: int) -> Candidates:
        """Chunks holding query `terms` (textproc.query_terms), best first by bm25 (KeywordSearch.candidates)."""
        return self._keywords.candidates(terms, limit)

    def term_matches(self, terms: Sequence[tuple[str, bool]], chunk_rowids: np.ndarray) -> TermMatches:
        """How many chunks hold each of `terms`, and which of `chunk_rowids` do; bounded work when they are
        keyword candidates of the same terms (KeywordSearch.term_matches)."""
        return self._keywords.term_matches(terms, chunk_rowids)

    def vector_candidates(
        self, query: np.ndarray, exact: int, depth: int, languages: frozenset[str] | None = None
    ) -> Candidates:
        """The `depth` chunks nearest to `query` (a unit vector), best first (VectorSearch.candidates)."""
        return self._vectors.candidates(query, exact, depth, languages)

    def cosines(self, query: np.ndarray, chunk_rowids: np.ndarray) -> np.ndarray:
        """Exact cosines of these chunks with `query` (a unit vector); a chunk just removed scores 0."""
        return self._vectors.cosines(query, chunk_rowids)

    # -- metadata ----------------------------------------------------------------------------------

    def ranking_columns(
        self, memory_rowids: np.ndarray, where: MemoryFilter, uses: Mapping[str, int] | None = None
    ) -> RankingColumns:
        """What ranking needs of these memories, for those that pass the filter (the filter runs in SQL);
        `uses`: the use journal's counts per memory id (MetadataQueries.ranking_columns)."""
        return self._queries.ranking_columns(memory_rowids, where, uses)

    def memories(self, memory_rowids: Iterable[int]) -> dict[int, Memory]:
        return self._queries.memories(memory_rowids)

    def thread_sides(self, memory_rowids: Iterable[int], span: int) -> dict[int, ThreadSides]:
        """The memories on either side of these in their conversations (MetadataQueries.thread_sides)."""
        return self._queries.thread_sides(memory_rowids, span)

    def thread_neighbours(self, memory_id: str, span: int) -> tuple[list[Memory], list[Memory]]:
        """The memories before and after this one in its conversation (MetadataQueries.thread_neighbours)."""
        return self._queries.thread_neighbours(memory_id, span)

    def query(self, where: MemoryFilter, limit: int | None = None, order: str = "path") -> list[Memory]:
        """Metadata query (list, time ranges) straight from SQL indexes."""
        return self._queries.query(where, limit, order)

    def count(self, where: MemoryFilter) -> int:
        return self._queries.count(where)

    def anchors(self, where: MemoryFilter) -> list[tuple[int, tuple[Anchor, ...]]]:
        return self._queries.anchors(where)

    def file_hashes(self) -> dict[str, str]:
        """path → sha256 of the file's bytes, for every indexed memory (MetadataQueries.file_hashes)."""
        return self._queries.file_hashes()

    def find_ids(self, prefix: str) -> list[tuple[str, str]]:
        """(id, path) of memories whose id starts with `prefix`."""
        return self._queries.find_ids(prefix)

    def chunk_texts(self, chunk_rowids: Iterable[int]) -> dict[int, str]:
        return self._queries.chunk_texts(chunk_rowids)

    def latin_chunks(self, chunk_rowids: np.ndarray) -> np.ndarray:
        """Whether each of these embedded chunks is in Latin script (False for one a sync just removed)."""
        return self._vectors.latin(chunk_rowids)

    def memory_chunks(self, memory_ids: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
        """(text, heading path) of each memory's chunks in order, by memory id."""
        return self._queries.memory_chunks(memory_ids)

    def file_errors(self) -> list[tuple[str, int | None, str, str]]:
        return self._queries.file_errors()

    # -- health ------------------------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        return self._health.stats()

    def health(self) -> list[tuple[str, str, str]]:
        """(kind, reason, hint) for every way the index disagrees with the files or the config."""
        return self._health.health()

    def metrics(self, limit: int = METRICS_KEPT) -> list[MetricRow]:
        return self._health.metrics(limit)

    def record_metric(self, op: str, ms: float, *, layer: str = "", breakdown: dict[str, Any] | None = None) -> None:
        """Log one operation's timing (`aimate mem perf`); never raises for a busy or read-only index."""
        if self.exists:
            self._health.record_metric(op, ms, layer=layer, breakdown=breakdown)


__all__ = ["MemoryIndex", "RefreshReport", "filter_sql", "memory_from_row"]


def _signs_may_differ(report: RefreshReport) -> bool:
    """Whether a refresh may have changed which chunks have sign bits (or their memory or script): any file
    added, updated, moved, deleted or now unreadable, a rebuild, a chunk embedded. A refresh that found nothing
    new — the daemon's sync of the files a `remember` just wrote and indexed — keeps the bits in memory
    instead of reading every chunk's again at the next search (docs/design.md §12, "What a warm remember
    reads once"). A refresh that started with chunks waiting for their bits drops them too (the caller)."""
    return bool(report.changed or report.errors or report.rebuilt or report.embedded_chunks)


def _files_named(paths: list[str] | None) -> list[str] | None:
    """`paths` when each names a memory file (a write's own paths), else None (a whole sync, or a folder)."""
    return paths if paths is not None and all(path.endswith(".md") for path in paths) else None


def _patchable(report: RefreshReport) -> bool:
    """Whether the files a refresh of named paths changed are all its sign bits changed: no move (a memory
    leaving another path), no unreadable or excluded file, no rebuild."""
    return not (report.moved or report.errors or report.excluded or report.rebuilt)
