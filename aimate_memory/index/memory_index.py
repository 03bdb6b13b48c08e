"""One vault's index: hash-sync from the files, keyword and vector candidates, metadata queries.

The files are the truth (DESIGN §2.1): everything here can be rebuilt from them, so a damaged, outdated
or foreign index is rebuilt into a temp file and swapped in atomically rather than repaired.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import sqlean

from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.errors import MemoryFileError
from aimate_memory.index import db
from aimate_memory.index.candidates import (
    TAIL_SAMPLES,
    Candidates,
    RankingColumns,
    SignBits,
    estimate_cosines,
    exact_positions,
)
from aimate_memory.index.chunking import Chunk, chunk_memory
from aimate_memory.index.sync_plan import (
    ErrorRecord,
    FileStat,
    IndexedFile,
    ReadResult,
    SyncPlan,
    plan_reads,
    plan_sync,
)
from aimate_memory.index.textproc import (
    FTS_TOKENIZE,
    common_terms_match,
    fts_document,
    rarest_term_match,
    script_of,
)
from aimate_memory.locks import file_lock
from aimate_memory.vault.codec import decode_memory_bytes, parse_document
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer
from aimate_memory.vault.model import Memory, memory_from_document, to_datetime
from aimate_memory.vault.store import Vault

BATCH_FILES = 256  # files per write transaction: readers see progress, a kill loses at most one batch
EMBED_BATCH = 64
# bm25 weights of the title, tags and body columns: no column is boosted. FTS5 adds the weighted counts
# of a term over the columns, so a title counts as more text about the memory; the title is usually the
# memory's gist or its first words (a "lead"), which the repeat emphasises. Measured with titles that are
# the start of the text (../shared/bench; LoCoMo turn R@5/R@10, MADial R@10): title ×3, tags ×2 gave
# .571/.682, .738 (zh), .791 (en); no boost .583/.687, .738, .800. Leaving a copied title out of the
# title column instead gave .573/.699, .731, .798.
BM25_WEIGHTS = (1.0, 1.0, 1.0)
# Postings a keyword query may rank (textproc.common_terms_match): bm25 costs 1–1.5 µs per matching chunk
# inside a search, and an OR of everyday words matched 30–65k chunks of a 100k-memory vault (65–80 ms a
# query). 5k postings keep a keyword search inside DESIGN §12's 20 ms with the rest of the query (at 10k
# postings the 100k bench measured keyword p50/p95 17.5/27 ms).
KEYWORD_POSTINGS_BUDGET = 5_000
Progress = Callable[[str, int, int], None]  # (phase, done, total)

_MEMORY_COLUMNS = (
    "rowid, id, path, layer, category, title, tags, status, importance, created_at, updated_at, "
    "accessed_at, access_count, expires_at, related, source, provisional"
)


@dataclass
class SyncReport:
    scanned: int = 0
    unchanged: int = 0
    added: int = 0
    updated: int = 0
    moved: int = 0
    deleted: int = 0
    touched: int = 0
    errors: int = 0
    excluded: int = 0
    embedded_chunks: int = 0
    rebuilt: bool = False
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.moved + self.deleted

    def as_dict(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items()}


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
    ) -> None:
        self.vault = vault
        self.db_path = db_path
        self.lock_path = lock_path
        self.embedder = embedder
        self.sensitive_keywords = [keyword.lower() for keyword in sensitive_keywords if keyword]
        self.exclude_globs = list(exclude_globs)
        self._conn: sqlean.Connection | None = None
        self._bits: SignBits | None = None
        self._query_tables = False  # temp tables of keyword_candidates, per connection
        self.vec_error: str | None = None

    # -- connection ------------------------------------------------------------------------------

    @property
    def conn(self) -> sqlean.Connection:
        if self._conn is None:
            self._conn = self._open(self.db_path)
        return self._conn

    def _open(self, path: Path) -> sqlean.Connection:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = db.connect(path)
        self.vec_error = db.load_vec(conn)
        return conn

    def close(self) -> None:
        self._bits = None
        self._query_tables = False
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @property
    def exists(self) -> bool:
        return self.db_path.exists()

    def identity(self) -> db.Identity | None:
        return db.read_identity(self.conn)

    @property
    def has_vectors(self) -> bool:
        """True when the index holds vectors made by the configured embedder."""
        identity = self.identity()
        return (
            identity is not None
            and self.vec_error is None
            and bool(identity.embedder)
            and db.get_meta(self.conn, "embedder_fingerprint") == self.embedder.fingerprint
        )

    def needs_rebuild(self) -> str | None:
        """Why the index must be rebuilt from the files, or None."""
        identity = self.identity()
        if identity is None:
            return "no index yet"
        if identity.schema != db.SCHEMA_VERSION or identity.tokenizer != db.TOKENIZER_VERSION:
            return "the index format changed"
        fingerprint = db.get_meta(self.conn, "embedder_fingerprint")
        if fingerprint is not None and fingerprint != self.embedder.fingerprint:
            return "the embedding model changed"
        return None

    # -- sync ------------------------------------------------------------------------------------

    def sync(
        self, progress: Progress | None = None, force_rebuild: bool = False, paths: Iterable[str] | None = None
    ) -> SyncReport:
        """Bring the index up to date with the files; rebuilds (temp file + swap) when it must.

        `paths` (vault-relative; a folder stands for everything under it) limits the walk to what a
        watcher saw change, so an edit in a 100k vault costs a few stats instead of 100k."""
        start = time.perf_counter()
        # One writer per index across processes (CLI, daemon, a second CLI): SQLite would serialize the
        # transactions anyway, but one lock over the whole sync keeps two syncs from doing the same work.
        with file_lock(self.lock_path):
            reason = "requested" if force_rebuild else self._rebuild_reason()
            if reason is not None:
                report = self._rebuild(progress)
                if reason not in ("requested", "no index yet"):
                    report.warnings.append(f"rebuilt the {self.vault.scope.value} index: {reason}")
            else:
                report = self._sync_into(self.conn, progress, paths)
        report.seconds = time.perf_counter() - start
        self._bits = None  # our own writes do not change PRAGMA data_version
        self._record_metric("sync", report.seconds * 1000, f"changed={report.changed}")
        return report

    def _rebuild_reason(self) -> str | None:
        try:
            return self.needs_rebuild()
        except sqlean.DatabaseError as exc:
            return f"the index file is damaged ({exc})"

    def _rebuild(self, progress: Progress | None) -> SyncReport:
        """Build a fresh index beside the old one and swap it in: readers keep the old one until then.
        Vectors already computed for the same model are carried over, so a rebuild re-embeds nothing
        that did not change."""
        tmp_path = self.db_path.with_name(self.db_path.name + ".rebuild")
        for leftover in _sqlite_files(tmp_path):
            leftover.unlink(missing_ok=True)
        carried, carried_embedder = self._carry_vectors()
        conn = self._open(tmp_path)
        try:
            identity = db.Identity.current("", 0)
            db.create_schema(conn, identity, with_vectors=False)
            db.set_meta(conn, "embedder_fingerprint", self.embedder.fingerprint)
            if carried and carried_embedder:
                conn.executemany("INSERT OR IGNORE INTO vectors(chunk_hash, vec) VALUES (?, ?)", carried.items())
                db.set_meta(conn, "vector_embedder", carried_embedder)
            report = self._sync_into(conn, progress)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
        self.close()
        os.replace(tmp_path, self.db_path)
        for suffix in ("-wal", "-shm"):
            Path(str(self.db_path) + suffix).unlink(missing_ok=True)
            Path(str(tmp_path) + suffix).unlink(missing_ok=True)
        report.rebuilt = True
        return report

    def _carry_vectors(self) -> tuple[dict[str, bytes], str | None]:
        if not self.db_path.exists():
            return {}, None
        try:
            same_model = db.get_meta(self.conn, "embedder_fingerprint") == self.embedder.fingerprint
            if not same_model:
                return {}, None
            vectors = dict(self.conn.execute("SELECT chunk_hash, vec FROM vectors").fetchall())
            return vectors, db.get_meta(self.conn, "vector_embedder")
        except sqlean.DatabaseError:
            return {}, None

    def _sync_into(
        self, conn: sqlean.Connection, progress: Progress | None, paths: Iterable[str] | None = None
    ) -> SyncReport:
        report = SyncReport()
        indexed = {
            row[0]: IndexedFile(row[0], row[1], row[2], row[3], row[4])
            for row in conn.execute("SELECT path, id, mtime_ns, size, file_hash FROM memories")
        }
        errors = {
            row[0]: ErrorRecord(row[0], row[1], row[2])
            for row in conn.execute("SELECT path, mtime_ns, size FROM file_errors")
        }
        if paths is None:
            disk, in_scope = self._walk(), None
        else:
            in_scope = _expand_scope(paths, [*indexed, *errors])
            disk = self._walk(in_scope)
        report.scanned = len(disk)
        # Vanished = indexed in the synced scope and not on disk; ids are looked up in the whole index,
        # so a file moved from one watched path to another is still a move.
        scoped = indexed if in_scope is None else {p: f for p, f in indexed.items() if p in in_scope}
        read_plan = plan_reads(disk, scoped, errors)
        report.unchanged = read_plan.unchanged
        # Error records for files that are gone are dropped.
        gone_errors = [path for path in errors if path not in disk and (in_scope is None or path in in_scope)]
        if gone_errors:
            conn.executemany("DELETE FROM file_errors WHERE path = ?", [(p,) for p in gone_errors])
        parsed: dict[str, Memory | MemoryFileError] = {}
        reads: list[ReadResult] = []
        for done, stat in enumerate(read_plan.to_read, 1):
            result, memory = self._read(stat)
            reads.append(result)
            if memory is not None:
                parsed[stat.path] = memory
            if progress:
                progress("reading", done, len(read_plan.to_read))
        plan = plan_sync(reads, indexed, read_plan.vanished, errors)
        self._apply(conn, plan, parsed, report, progress)
        self._embed_missing(conn, report, progress)
        db.set_meta(conn, "last_sync", datetime.now().astimezone().isoformat(timespec="seconds"))
        if report.changed:
            # Fresh statistics let the planner use updated_ts for time-range queries instead of the layer
            # index plus a sort (measured at 100k: 20 ms → 0.2 ms); cheap, and a no-op when nothing changed.
            conn.execute("PRAGMA optimize=0x10002")
        return report

    def _walk(self, only: set[str] | None = None) -> dict[str, FileStat]:
        disk: dict[str, FileStat] = {}
        found = self.vault.walk_memory_files() if only is None else self._existing(only)
        for posix, stat in found:
            if self.exclude_globs and any(PurePosixPath(posix).match(glob) for glob in self.exclude_globs):
                continue
            disk[posix] = FileStat(posix, stat.st_mtime_ns, stat.st_size)
        return disk

    def _existing(self, paths: set[str]) -> Iterator[tuple[str, os.stat_result]]:
        """Memory files among `paths` as they are now; a folder yields the memory files under it."""
        for posix in sorted(paths):
            rel = PurePosixPath(posix)
            path = self.vault.abs_path(rel)
            candidates = self.vault.iter_memory_paths(rel) if path.is_dir() else [rel]
            for candidate in candidates:
                try:
                    if self.vault.is_memory_path(candidate):
                        yield candidate.as_posix(), os.stat(self.vault.abs_path(candidate))
                except OSError:
                    continue

    def _read(self, stat: FileStat) -> tuple[ReadResult, Memory | None]:
        path = self.vault.abs_path(PurePosixPath(stat.path))
        try:
            with path.open("rb") as handle:
                data = handle.read(self.vault.max_file_bytes + 1)
        except OSError as exc:
            return ReadResult(stat, "", None, f"OSError\t\t{exc}"), None
        file_hash = hashlib.sha256(data).hexdigest()
        try:
            if path.is_symlink() and not path.resolve().is_relative_to(self.vault.root.resolve()):
                raise MemoryFileError(path, None, "symlink points outside the vault", "replace the link")
            text = decode_memory_bytes(data, path, self.vault.max_file_bytes)
            doc = parse_document(text, path, read_only=True)
            mtime = datetime.fromtimestamp(stat.mtime_ns / 1e9).astimezone().replace(microsecond=0)
            memory = memory_from_document(doc, PurePosixPath(stat.path), self.vault.scope, mtime)
        except MemoryFileError as exc:
            return ReadResult(stat, file_hash, None, f"{exc.kind}\t{exc.line or ''}\t{exc.reason}"), None
        if self._is_sensitive(memory):
            reason = "matches privacy.sensitive_keywords; not indexed"
            return ReadResult(stat, file_hash, None, f"Excluded\t\t{reason}"), None
        return ReadResult(stat, file_hash, memory.id), memory

    def _is_sensitive(self, memory: Memory) -> bool:
        if not self.sensitive_keywords:
            return False
        text = memory.text.lower()
        return any(keyword in text for keyword in self.sensitive_keywords)

    def _apply(
        self,
        conn: sqlean.Connection,
        plan: SyncPlan,
        parsed: dict[str, Memory | MemoryFileError],
        report: SyncReport,
        progress: Progress | None,
    ) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for old_path, read in plan.moves:
                conn.execute(
                    "UPDATE memories SET path = ?, mtime_ns = ?, size = ? WHERE path = ?",
                    (read.path, read.stat.mtime_ns, read.stat.size, old_path),
                )
                if read not in plan.upsert:
                    self._update_metadata(conn, parsed[read.path], read)  # e.g. layer changed by the move
            report.moved = len(plan.moves)
            for read in plan.touch:
                conn.execute(
                    "UPDATE memories SET mtime_ns = ?, size = ? WHERE path = ?",
                    (read.stat.mtime_ns, read.stat.size, read.path),
                )
            report.touched = len(plan.touch)
            for path in plan.delete:
                self._delete_memory(conn, path)
            report.deleted = len(plan.delete)
            moved_paths = {read.path for _, read in plan.moves}
            # Oldest first, so chunk rowids grow with `updated_at` (keyword_candidates ranks the newest
            # matches of a query made of common words), after a rebuild too.
            upserts = sorted(plan.upsert, key=lambda read: parsed[read.path].updated_at.timestamp())  # type: ignore[union-attr]
            for done, read in enumerate(upserts, 1):
                existed = self._upsert(conn, parsed[read.path], read)  # type: ignore[arg-type]
                if read.path not in moved_paths:
                    if existed:
                        report.updated += 1
                    else:
                        report.added += 1
                if done % BATCH_FILES == 0:
                    conn.execute("COMMIT")
                    conn.execute("BEGIN IMMEDIATE")
                if progress:
                    progress("indexing", done, len(plan.upsert))
            for path in plan.cleared_errors:
                conn.execute("DELETE FROM file_errors WHERE path = ?", (path,))
            for read in plan.errors:
                kind, line, reason = (read.error or "Error\t\tunreadable").split("\t", 2)
                conn.execute(
                    "INSERT OR REPLACE INTO file_errors(path, line, kind, reason, mtime_ns, size) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        read.path,
                        int(line) if line else None,
                        kind,
                        reason,
                        read.stat.mtime_ns,
                        read.stat.size,
                    ),
                )
                if kind == "Excluded":
                    report.excluded += 1
                    self._delete_memory(conn, read.path)  # newly sensitive: must leave the index
                else:
                    report.errors += 1
            for read, holder in plan.duplicates:
                conn.execute(
                    "INSERT OR REPLACE INTO file_errors(path, line, kind, reason, mtime_ns, size) "
                    "VALUES (?, NULL, 'DuplicateId', ?, ?, ?)",
                    (
                        read.path,
                        f"duplicate id {read.memory_id} (also {holder}); not indexed",
                        read.stat.mtime_ns,
                        read.stat.size,
                    ),
                )
                report.errors += 1
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _delete_memory(self, conn: sqlean.Connection, path: str) -> None:
        row = conn.execute("SELECT rowid FROM memories WHERE path = ?", (path,)).fetchone()
        if row is None:
            return
        self._delete_chunks(conn, row[0])
        conn.execute("DELETE FROM memories WHERE rowid = ?", (row[0],))

    def _delete_chunks(self, conn: sqlean.Connection, memory_rowid: int) -> None:
        chunk_ids = [r[0] for r in conn.execute("SELECT rowid FROM chunks WHERE memory_rowid = ?", (memory_rowid,))]
        if not chunk_ids:
            return
        conn.executemany("DELETE FROM chunks_fts WHERE rowid = ?", [(c,) for c in chunk_ids])
        if _has_table(conn, "chunks_vec"):
            conn.executemany("DELETE FROM chunks_vec WHERE rowid = ?", [(c,) for c in chunk_ids])
        conn.execute("DELETE FROM chunks WHERE memory_rowid = ?", (memory_rowid,))

    def _memory_values(self, memory: Memory, read: ReadResult) -> tuple[Any, ...]:
        return (
            memory.id,
            read.path,
            memory.layer.value,
            memory.category,
            memory.title,
            json.dumps(memory.tags, ensure_ascii=False),
            memory.status,
            memory.importance,
            memory.created_at.isoformat(),
            memory.updated_at.isoformat(),
            memory.accessed_at.isoformat() if memory.accessed_at else None,
            memory.access_count,
            memory.expires_at.isoformat() if memory.expires_at else None,
            json.dumps(memory.related, ensure_ascii=False),
            memory.created_at.timestamp(),
            memory.updated_at.timestamp(),
            memory.source,
            int(memory.provisional_id),
            read.file_hash,
            read.stat.mtime_ns,
            read.stat.size,
        )

    def _update_metadata(self, conn: sqlean.Connection, memory: Memory | MemoryFileError, read: ReadResult) -> None:
        assert isinstance(memory, Memory)
        values = self._memory_values(memory, read)
        conn.execute(
            "UPDATE memories SET id=?, path=?, layer=?, category=?, title=?, tags=?, status=?, importance=?, "
            "created_at=?, updated_at=?, accessed_at=?, access_count=?, expires_at=?, related=?, created_ts=?, "
            "updated_ts=?, source=?, provisional=?, file_hash=?, mtime_ns=?, size=? WHERE path = ?",
            (*values, read.path),
        )

    def _upsert(self, conn: sqlean.Connection, memory: Memory, read: ReadResult) -> bool:
        """Write one memory's row, chunks and FTS entries. Returns True when it replaced an entry."""
        by_id = conn.execute("SELECT rowid FROM memories WHERE id = ?", (memory.id,)).fetchone()
        by_path = conn.execute("SELECT rowid FROM memories WHERE path = ?", (read.path,)).fetchone()
        if by_path is not None and (by_id is None or by_path[0] != by_id[0]):
            # The file at this path now holds another id (e.g. `fix` wrote a real one): replace it.
            self._delete_chunks(conn, by_path[0])
            conn.execute("DELETE FROM memories WHERE rowid = ?", (by_path[0],))
        values = self._memory_values(memory, read)
        if by_id is not None:
            rowid = by_id[0]
            self._update_metadata(conn, memory, read)
            conn.execute("UPDATE memories SET path = ? WHERE rowid = ?", (read.path, rowid))
            self._delete_chunks(conn, rowid)
        else:
            cursor = conn.execute(
                "INSERT INTO memories(id, path, layer, category, title, tags, status, importance, created_at, "
                "updated_at, accessed_at, access_count, expires_at, related, created_ts, updated_ts, source, "
                "provisional, file_hash, mtime_ns, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?, ?, ?)",
                values,
            )
            rowid = cursor.lastrowid
        chunks = chunk_memory(memory.title, memory.body)
        tags_text = fts_document(" ".join(memory.tags))
        title_text = fts_document(memory.title)
        for chunk in chunks:
            cursor = conn.execute(
                "INSERT INTO chunks(memory_rowid, ordinal, text, embed_text, chunk_hash, script) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    rowid,
                    chunk.ordinal,
                    chunk.text,
                    chunk.embed_text,
                    chunk.chunk_hash,
                    script_of(chunk.embed_text),
                ),
            )
            chunk_rowid = cursor.lastrowid
            # The title and tags are indexed with the first chunk only, so they count once per memory.
            first = chunk.ordinal == 0
            conn.execute(
                "INSERT INTO chunks_fts(rowid, title, tags, body) VALUES (?, ?, ?, ?)",
                (chunk_rowid, title_text if first else "", tags_text if first else "", _body_tokens(chunk)),
            )
        return by_id is not None

    def _embed_missing(self, conn: sqlean.Connection, report: SyncReport, progress: Progress | None) -> None:
        """Give every chunk a vector: from the cache by chunk hash, else by embedding it (in batches).
        Chunks left without one (model unavailable) are filled by a later sync."""
        if not self.embedder.enabled:
            return
        if self.vec_error is not None:
            report.warnings.append(f"{self.vec_error} — keyword search only")
            return
        pending = self._chunks_without_vectors(conn)
        if not pending:
            return
        texts = {chunk_hash: text for _, chunk_hash, text in pending}
        need = sorted(set(texts) - self._cached_hashes(conn, sorted(texts)))
        embedder_id = db.get_meta(conn, "vector_embedder")
        if need or embedder_id is None:
            embedder = self.embedder.get()
            if embedder is None:
                assert self.embedder.unavailable is not None
                report.warnings.append(f"{self.embedder.unavailable.message} — keyword search only")
                return
            embedder_id = embedder.identity
            db.set_meta(conn, "vector_embedder", embedder_id)
            for start in range(0, len(need), EMBED_BATCH * 4):
                batch = need[start : start + EMBED_BATCH * 4]
                vectors = np.asarray(embedder.embed([texts[h] for h in batch]), dtype=np.float16)
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany(
                    "INSERT OR REPLACE INTO vectors(chunk_hash, vec) VALUES (?, ?)",
                    [(h, v.tobytes()) for h, v in zip(batch, vectors, strict=True)],
                )
                conn.execute("COMMIT")
                report.embedded_chunks += len(batch)
                if progress:
                    progress("embedding", min(start + len(batch), len(need)), len(need))
        conn.execute("BEGIN IMMEDIATE")
        try:
            for chunk_rowid, chunk_hash, _ in pending:
                row = conn.execute("SELECT vec FROM vectors WHERE chunk_hash = ?", (chunk_hash,)).fetchone()
                if row is None:
                    continue
                vector = np.frombuffer(row[0], dtype=np.float16)
                self._ensure_vec_table(conn, embedder_id, len(vector))
                bits = np.packbits(vector > 0).tobytes()
                conn.execute("INSERT INTO chunks_vec(rowid, embedding) VALUES (?, vec_bit(?))", (chunk_rowid, bits))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _chunks_without_vectors(self, conn: sqlean.Connection) -> list[tuple[int, str, str]]:
        if not _has_table(conn, "chunks_vec"):
            return [tuple(row) for row in conn.execute("SELECT rowid, chunk_hash, embed_text FROM chunks")]
        return [
            tuple(row)
            for row in conn.execute(
                "SELECT c.rowid, c.chunk_hash, c.embed_text FROM chunks c "
                "WHERE NOT EXISTS (SELECT 1 FROM chunks_vec v WHERE v.rowid = c.rowid)"
            )
        ]

    @staticmethod
    def _cached_hashes(conn: sqlean.Connection, hashes: list[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(hashes), 500):
            part = hashes[start : start + 500]
            rows = conn.execute(
                f"SELECT chunk_hash FROM vectors WHERE chunk_hash IN ({','.join('?' * len(part))})", part
            )
            found.update(row[0] for row in rows)
        return found

    def _ensure_vec_table(self, conn: sqlean.Connection, embedder_id: str, dimension: int) -> None:
        identity = db.read_identity(conn)
        if identity is not None and identity.embedder == embedder_id and identity.dimension == dimension:
            return
        conn.execute("DROP TABLE IF EXISTS chunks_vec")
        conn.execute(db.vec_table_sql(dimension))
        db.write_identity(conn, db.Identity.current(embedder_id, dimension))
        db.set_meta(conn, "embedder_fingerprint", self.embedder.fingerprint)

    # -- reading ---------------------------------------------------------------------------------

    def keyword_candidates(self, terms: Sequence[tuple[str, bool]], limit: int) -> Candidates:
        """Chunks holding query `terms` (textproc.query_terms), best first by bm25 (score = -bm25).

        bm25 costs 1–1.5 µs per matching chunk, so a large index bounds the work: terms common in it stop
        choosing candidates (textproc.common_terms_match), and when every term is common the newest
        matching chunks are the candidates, all with the same score (chunk rowids follow `updated_at`,
        see _apply): for words found everywhere keyword relevance hardly tells chunks apart, so the
        vector score and recency rank them — and FTS5 skips bm25, whose idf alone reads every doclist."""
        if not terms:
            return Candidates.empty()
        postings = self._postings(terms)
        match = common_terms_match(terms, postings, KEYWORD_POSTINGS_BUDGET)
        if min(postings) <= KEYWORD_POSTINGS_BUDGET:
            return self._bm25(match, limit)
        found = self._newest(match, limit)
        if not len(found.scores):  # no chunk holds every term: the rarest one decides
            found = self._newest(rarest_term_match(terms, postings), limit)
        return found

    def _bm25(self, match: str | None, limit: int) -> Candidates:
        # Rank and cut inside FTS5 first: joining `chunks` for every match before the LIMIT cost 20 ms of
        # 34 for a query matching 13k chunks at 100k memories.
        rows = self.conn.execute(
            "SELECT c.memory_rowid, f.rowid, f.score FROM (SELECT rowid, -bm25(chunks_fts, ?, ?, ?) AS score "
            "FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score DESC LIMIT ?) f "
            "JOIN chunks c ON c.rowid = f.rowid ORDER BY f.score DESC",
            (*BM25_WEIGHTS, match, limit),
        ).fetchall()
        return Candidates.from_rows(rows)

    def _newest(self, match: str | None, limit: int) -> Candidates:
        rows = self.conn.execute(
            "SELECT c.memory_rowid, f.rowid, 1.0 FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? "
            "ORDER BY rowid DESC LIMIT ?) f JOIN chunks c ON c.rowid = f.rowid ORDER BY f.rowid DESC",
            (match, limit),
        ).fetchall()
        return Candidates.from_rows(rows)

    def _postings(self, terms: Sequence[tuple[str, bool]]) -> list[int]:
        """How many chunks hold each term (an upper bound for prefix terms). When the index is too small
        for the answer to matter, its size stands in for every term (no lookup)."""
        chunks = self.conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM chunks").fetchone()[0]
        if chunks * len(terms) <= KEYWORD_POSTINGS_BUDGET:
            return [chunks] * len(terms)
        self._ensure_query_tables()
        # The index holds tokens (porter stems, folded diacritics): tokenize the terms the same way.
        self.conn.execute("DELETE FROM temp.query_tokens")
        self.conn.executemany(
            "INSERT INTO temp.query_tokens(rowid, term) VALUES (?, ?)", enumerate(term for term, _ in terms)
        )
        tokens: dict[int, list[str]] = {}
        for position, token in self.conn.execute("SELECT doc, term FROM temp.query_tokens_vocab"):
            tokens.setdefault(position, []).append(token)
        postings = []
        for position, (_, prefix) in enumerate(terms):
            counts = [self._token_postings(token, prefix) for token in tokens.get(position, [])]
            postings.append(min(counts, default=0))  # a phrase of several tokens needs all of them
        return postings

    def _token_postings(self, token: str, prefix: bool) -> int:
        if prefix:
            sql = "SELECT COALESCE(SUM(doc), 0) FROM temp.chunks_vocab WHERE term >= ?1 AND term < ?1 || char(1114111)"
        else:
            sql = "SELECT COALESCE(SUM(doc), 0) FROM temp.chunks_vocab WHERE term = ?1"
        return self.conn.execute(sql, (token,)).fetchone()[0]

    def _ensure_query_tables(self) -> None:
        """Per-connection temp tables: the index's term statistics, and a scratch table whose only job
        is to tokenize query terms exactly as the index did."""
        if self._query_tables:
            return
        for sql in (
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, 'row')",
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_tokens USING fts5(term, tokenize='{FTS_TOKENIZE}')",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_tokens_vocab "
            "USING fts5vocab(temp, query_tokens, 'instance')",
        ):
            self.conn.execute(sql)
        self._query_tables = True

    def vector_candidates(
        self, query: np.ndarray, exact: int, depth: int, languages: frozenset[str] | None = None
    ) -> Candidates:
        """The `depth` chunks nearest to `query` (a unit vector) by cosine, best first.

        The sign-bit scan ranks every chunk; the first `exact` get exact cosines from their float16
        vectors, the rest cosines estimated from their Hamming distance (candidates.estimate_cosines).
        Min-max fusion needs the weak end of a deep list (LoCoMo R@10 .645 with 100 candidates, .681
        with the whole vault), but only the top of it exactly. Chunks in a script the embedder cannot
        read are left out: their vectors are noise (DESIGN §11)."""
        bits = self._sign_bits()
        positions, distances = bits.nearest(query, max(depth, exact), languages)
        if not len(positions):
            return Candidates.empty()
        chunk_rowids = bits.chunk_rowids[positions]
        known = exact_positions(len(positions), exact, TAIL_SAMPLES)
        scores = np.empty(len(positions))
        scores[known] = self.cosines(query, chunk_rowids[known])
        guessed = np.ones(len(positions), dtype=bool)
        guessed[known] = False
        scores[guessed] = estimate_cosines(distances[known], scores[known], distances[guessed])
        order = np.argsort(-scores, kind="stable")
        return Candidates(bits.memory_rowids[positions][order], chunk_rowids[order], scores[order], ~guessed[order])

    def cosines(self, query: np.ndarray, chunk_rowids: np.ndarray) -> np.ndarray:
        """Exact cosines of these chunks with `query` (a unit vector), from their float16 vectors.
        A chunk a concurrent sync just removed scores 0."""
        query = np.asarray(query, dtype=np.float32)
        rowids = chunk_rowids.tolist()
        vectors = dict(
            self.conn.execute(
                "SELECT c.rowid, x.vec FROM chunks c JOIN vectors x ON x.chunk_hash = c.chunk_hash "
                "WHERE c.rowid IN (SELECT value FROM json_each(?))",
                (json.dumps(rowids),),
            ).fetchall()
        )
        missing = bytes(2 * len(query))
        raw = b"".join(vectors.get(rowid, missing) for rowid in rowids)
        matrix = np.frombuffer(raw, dtype=np.float16).reshape(len(rowids), len(query))
        return (matrix.astype(np.float32) @ query).astype(np.float64)

    def _sign_bits(self) -> SignBits:
        """Every chunk's sign bits, loaded once and reloaded when the index changed: by another process
        (`PRAGMA data_version`) or by a sync of this one (which drops the cache)."""
        version = self.conn.execute("PRAGMA data_version").fetchone()[0]
        if self._bits is None or self._bits.version != version:
            rows = self.conn.execute(
                "SELECT v.rowid, v.embedding, c.memory_rowid, c.script "
                "FROM chunks_vec v JOIN chunks c ON c.rowid = v.rowid"
            ).fetchall()
            self._bits = SignBits.from_rows(version, rows)
        return self._bits

    def ranking_columns(self, memory_rowids: np.ndarray, where: MemoryFilter) -> RankingColumns:
        """What ranking needs of these memories, for those that pass the filter (the filter runs in SQL)."""
        clause, params = filter_sql(where)
        rows = self.conn.execute(
            "SELECT rowid, layer, importance, access_count, updated_ts FROM memories "
            f"WHERE rowid IN (SELECT value FROM json_each(?)){' AND ' + clause if clause else ''}",
            (json.dumps(np.unique(memory_rowids).tolist()), *params),
        ).fetchall()
        return RankingColumns.from_rows(rows)

    def memories(self, memory_rowids: Iterable[int]) -> dict[int, Memory]:
        ids = json.dumps(sorted(set(memory_rowids)))
        rows = self.conn.execute(
            f"SELECT {_MEMORY_COLUMNS} FROM memories WHERE rowid IN (SELECT value FROM json_each(?))",
            (ids,),
        ).fetchall()
        return {row[0]: memory_from_row(row, self.vault) for row in rows}

    def query(self, where: MemoryFilter, limit: int | None = None, order: str = "path") -> list[Memory]:
        """Metadata query (list, time ranges) straight from SQL indexes."""
        clause, params = filter_sql(where)
        order_sql = {"path": "path", "updated": "updated_ts DESC", "created": "created_ts DESC"}[order]
        sql = f"SELECT {_MEMORY_COLUMNS} FROM memories"
        sql += f" WHERE {clause}" if clause else ""
        sql += f" ORDER BY {order_sql}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [memory_from_row(row, self.vault) for row in self.conn.execute(sql, params)]

    def find_ids(self, prefix: str) -> list[tuple[str, str]]:
        """(id, path) of memories whose id starts with `prefix`."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return self.conn.execute(
            "SELECT id, path FROM memories WHERE id LIKE ? ESCAPE '\\' LIMIT 10", (escaped + "%",)
        ).fetchall()

    def chunk_texts(self, chunk_rowids: Iterable[int]) -> dict[int, str]:
        ids = json.dumps(sorted(set(chunk_rowids)))
        rows = self.conn.execute(
            "SELECT rowid, text FROM chunks WHERE rowid IN (SELECT value FROM json_each(?))", (ids,)
        )
        return dict(rows.fetchall())

    def file_errors(self) -> list[tuple[str, int | None, str, str]]:
        return self.conn.execute("SELECT path, line, kind, reason FROM file_errors ORDER BY path").fetchall()

    def stats(self) -> dict[str, Any]:
        conn = self.conn
        by = {
            key: dict(conn.execute(f"SELECT {key}, COUNT(*) FROM memories GROUP BY {key}").fetchall())
            for key in ("layer", "status", "category")
        }
        identity = db.read_identity(conn)
        vectors = conn.execute("SELECT COUNT(*) FROM chunks_vec").fetchone()[0] if _has_table(conn, "chunks_vec") else 0
        size = sum(path.stat().st_size for path in _sqlite_files(self.db_path) if path.exists())
        return {
            "scope": self.vault.scope.value,
            "vault": str(self.vault.root),
            "index": str(self.db_path),
            "memories": conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0],
            "chunks": conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0],
            "vectors": vectors,
            "by_layer": by["layer"],
            "by_status": by["status"],
            "by_category": by["category"],
            "errors": conn.execute("SELECT COUNT(*) FROM file_errors WHERE kind != 'Excluded'").fetchone()[0],
            "excluded": conn.execute("SELECT COUNT(*) FROM file_errors WHERE kind = 'Excluded'").fetchone()[0],
            "index_bytes": size,
            "last_sync": db.get_meta(conn, "last_sync"),
            "identity": {
                "schema": identity.schema if identity else None,
                "embedder": (identity.embedder or None) if identity else None,
                "dimension": identity.dimension if identity else None,
                "tokenizer": identity.tokenizer if identity else None,
            },
        }

    def health(self) -> list[tuple[str, str, str]]:
        """(kind, reason, hint) for every way the index disagrees with the files or the config."""
        problems: list[tuple[str, str, str]] = []
        rebuild = self._rebuild_reason()
        if rebuild is not None:
            problems.append(("IndexIdentity", f"the index must be rebuilt: {rebuild}", "aimate mem reindex"))
            return problems
        indexed = {
            row[0]: IndexedFile(row[0], row[1], row[2], row[3], row[4])
            for row in self.conn.execute("SELECT path, id, mtime_ns, size, file_hash FROM memories")
        }
        errors = {
            row[0]: ErrorRecord(row[0], row[1], row[2])
            for row in self.conn.execute("SELECT path, mtime_ns, size FROM file_errors")
        }
        behind = plan_reads(self._walk(), indexed, errors)
        if behind.to_read or behind.vanished:
            problems.append(
                (
                    "IndexBehind",
                    f"{len(behind.to_read)} file(s) new or changed and {len(behind.vanished)} removed since the "
                    "last sync",
                    "aimate mem index (or start the daemon)",
                )
            )
        if self.embedder.enabled:
            if self.vec_error is not None:
                problems.append(("VectorsOff", self.vec_error, "pip install sqlite-vec, then aimate mem reindex"))
            else:
                missing = len(self._chunks_without_vectors(self.conn))
                if missing:
                    problems.append(
                        (
                            "VectorsMissing",
                            f"{missing} chunk(s) have no vector (the model was unavailable when they were indexed)",
                            "aimate mem index once the model loads",
                        )
                    )
        return problems

    def metrics(self, limit: int = 1000) -> list[tuple[str, float]]:
        return self.conn.execute("SELECT op, ms FROM metrics ORDER BY rowid DESC LIMIT ?", (limit,)).fetchall()

    def _record_metric(self, op: str, ms: float, detail: str = "") -> None:
        with contextlib.suppress(sqlean.DatabaseError):
            self.conn.execute(
                "INSERT INTO metrics(at, op, ms, detail) VALUES (?, ?, ?, ?)", (time.time(), op, ms, detail)
            )


def _expand_scope(paths: Iterable[str], known: list[str]) -> set[str]:
    """Changed paths → the files to look at: a path that is not a `.md` file is a folder (renamed, moved
    out, deleted) and stands for every known file under it and every file now in it."""
    scope: set[str] = set()
    for path in paths:
        path = path.strip("/")
        if path.endswith(".md"):
            scope.add(path)
            continue
        prefix = path + "/"
        scope.update(known_path for known_path in known if known_path.startswith(prefix))
        scope.add(path)  # the folder itself: `_existing` walks what is in it now
    return scope


def _body_tokens(chunk: Chunk) -> str:
    return fts_document(chunk.search_text)


def _has_table(conn: sqlean.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None


def _sqlite_files(path: Path) -> list[Path]:
    return [path, Path(str(path) + "-wal"), Path(str(path) + "-shm")]


def memory_from_row(row: tuple[Any, ...], vault: Vault) -> Memory:
    """A memory's metadata as the index holds it (no body): enough to list and show a result."""
    (
        _rowid,
        id_,
        path,
        layer,
        category,
        title,
        tags,
        status,
        importance,
        created_at,
        updated_at,
        accessed_at,
        access_count,
        expires_at,
        related,
        source,
        provisional,
    ) = row
    return Memory(
        id=id_,
        rel_path=PurePosixPath(path),
        scope=vault.scope,
        layer=Layer(layer),
        category=category,
        title=title,
        tags=json.loads(tags),
        status=status,
        importance=importance,
        created_at=to_datetime(created_at),  # type: ignore[arg-type]
        updated_at=to_datetime(updated_at),  # type: ignore[arg-type]
        accessed_at=to_datetime(accessed_at),
        access_count=access_count,
        expires_at=to_datetime(expires_at),
        related=json.loads(related),
        source=source,
        confidence=None,
        body="",
        archived=path.startswith("archive/"),
        provisional_id=bool(provisional),
    )


def filter_sql(where: MemoryFilter) -> tuple[str, list[Any]]:
    """The SQL form of a MemoryFilter over the `memories` table (scope is per index, handled by the caller)."""
    clauses: list[str] = []
    params: list[Any] = []

    def any_of(column: str, values: Iterable[Any]) -> None:
        values = list(values)
        if values:
            clauses.append(f"{column} IN ({','.join('?' * len(values))})")
            params.extend(values)

    any_of("layer", [layer.value for layer in where.layers])
    any_of("category", where.categories)
    any_of("status", where.statuses)
    for tag in where.tags:
        clauses.append("EXISTS (SELECT 1 FROM json_each(memories.tags) WHERE value = ?)")
        params.append(tag)
    for column, bound, op in (
        ("created_ts", where.created_after, ">="),
        ("created_ts", where.created_before, "<"),
        ("updated_ts", where.updated_after, ">="),
        ("updated_ts", where.updated_before, "<"),
    ):
        if bound is not None:
            clauses.append(f"{column} {op} ?")
            params.append(bound.timestamp())
    if where.path_glob:
        clauses.append("path GLOB ?")
        params.append(where.path_glob)
    return " AND ".join(clauses), params


__all__ = ["MemoryIndex", "SyncReport", "filter_sql", "memory_from_row"]
