"""A refresh's writes: a `RefreshPlan` applied to the tables (memories, chunks, FTS entries, file errors).

Vectors are not written here: `refresh_embed` gives the new chunks theirs afterwards.
"""

from __future__ import annotations

import json
from typing import Any

import sqlean

from aimate_memory.index import db
from aimate_memory.index.chunking import Chunk, chunk_memory
from aimate_memory.index.refresh_plan import ReadResult, RefreshPlan
from aimate_memory.index.refresh_report import Progress, RefreshReport
from aimate_memory.index.store import has_table
from aimate_memory.index.textproc import fts_document
from aimate_memory.text.scripts import script_of
from aimate_memory.vault.model import Memory

BATCH_FILES = 256  # files per write transaction: readers see progress, a kill loses at most one batch


def apply_plan(
    conn: sqlean.Connection,
    plan: RefreshPlan,
    parsed: dict[str, Memory],
    report: RefreshReport,
    progress: Progress | None,
    batch_files: int = BATCH_FILES,
) -> None:
    """Moves, touches, deletes, upserts and error records of `plan`, counted into `report`; upserts are
    committed every `batch_files` files."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        for old_path, read in plan.moves:
            conn.execute(
                "UPDATE memories SET path = ?, mtime_ns = ?, size = ? WHERE path = ?",
                (read.path, read.stat.mtime_ns, read.stat.size, old_path),
            )
            if read not in plan.upsert:
                _update_metadata(conn, parsed[read.path], read)  # e.g. layer changed by the move
        report.moved = len(plan.moves)
        for read in plan.touch:
            conn.execute(
                "UPDATE memories SET mtime_ns = ?, size = ? WHERE path = ?",
                (read.stat.mtime_ns, read.stat.size, read.path),
            )
        report.touched = len(plan.touch)
        for path in plan.delete:
            _delete_memory(conn, path)
        report.deleted = len(plan.delete)
        _upsert_all(conn, plan, parsed, report, progress, batch_files)
        for path in plan.cleared_errors:
            conn.execute("DELETE FROM file_errors WHERE path = ?", (path,))
        _record_errors(conn, plan, report)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _upsert_all(
    conn: sqlean.Connection,
    plan: RefreshPlan,
    parsed: dict[str, Memory],
    report: RefreshReport,
    progress: Progress | None,
    batch_files: int,
) -> None:
    if plan.upsert:
        # New chunks have no vectors yet: written in the same transaction as the chunks, so `embed_missing`
        # can trust a clear flag and skip its scan of every chunk (docs/architecture.md, index).
        db.set_meta(conn, db.VECTORS_PENDING, "1")
    moved_paths = {read.path for _, read in plan.moves}
    # Oldest first, so chunk rowids grow with `updated_at` (keyword_search ranks the newest matches of a
    # query made of common words), after a rebuild too.
    upserts = sorted(plan.upsert, key=lambda read: parsed[read.path].updated_at.timestamp())
    for done, read in enumerate(upserts, 1):
        existed = _upsert(conn, parsed[read.path], read)
        if read.path not in moved_paths:
            if existed:
                report.updated += 1
            else:
                report.added += 1
        if done % batch_files == 0:
            conn.execute("COMMIT")
            conn.execute("BEGIN IMMEDIATE")
        if progress:
            progress("indexing", done, len(plan.upsert))


def _record_errors(conn: sqlean.Connection, plan: RefreshPlan, report: RefreshReport) -> None:
    for read in plan.errors:
        kind, line, reason = (read.error or "Error\t\tunreadable").split("\t", 2)
        conn.execute(
            "INSERT OR REPLACE INTO file_errors(path, line, kind, reason, mtime_ns, size) VALUES (?, ?, ?, ?, ?, ?)",
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
            _delete_memory(conn, read.path)  # newly sensitive: must leave the index
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


def _delete_memory(conn: sqlean.Connection, path: str) -> None:
    row = conn.execute("SELECT rowid FROM memories WHERE path = ?", (path,)).fetchone()
    if row is None:
        return
    _delete_chunks(conn, row[0])
    conn.execute("DELETE FROM memories WHERE rowid = ?", (row[0],))


def _delete_chunks(conn: sqlean.Connection, memory_rowid: int) -> None:
    chunk_ids = [r[0] for r in conn.execute("SELECT rowid FROM chunks WHERE memory_rowid = ?", (memory_rowid,))]
    if not chunk_ids:
        return
    conn.executemany("DELETE FROM chunks_fts WHERE rowid = ?", [(c,) for c in chunk_ids])
    if has_table(conn, "chunks_vec"):
        conn.executemany("DELETE FROM chunks_vec WHERE rowid = ?", [(c,) for c in chunk_ids])
    conn.execute("DELETE FROM chunks WHERE memory_rowid = ?", (memory_rowid,))


def _memory_values(memory: Memory, read: ReadResult) -> tuple[Any, ...]:
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
        memory.thread,
        json.dumps([anchor.to_row() for anchor in memory.anchors]) if memory.anchors else None,
        read.file_hash,
        read.stat.mtime_ns,
        read.stat.size,
    )


def _update_metadata(conn: sqlean.Connection, memory: Memory, read: ReadResult) -> None:
    values = _memory_values(memory, read)
    conn.execute(
        "UPDATE memories SET id=?, path=?, layer=?, category=?, title=?, tags=?, status=?, importance=?, "
        "created_at=?, updated_at=?, accessed_at=?, access_count=?, expires_at=?, related=?, created_ts=?, "
        "updated_ts=?, source=?, provisional=?, thread=?, anchors=?, file_hash=?, mtime_ns=?, size=? WHERE path = ?",
        (*values, read.path),
    )


def _upsert(conn: sqlean.Connection, memory: Memory, read: ReadResult) -> bool:
    """Write one memory's row, chunks and FTS entries. Returns True when it replaced an entry."""
    by_id = conn.execute("SELECT rowid FROM memories WHERE id = ?", (memory.id,)).fetchone()
    by_path = conn.execute("SELECT rowid FROM memories WHERE path = ?", (read.path,)).fetchone()
    if by_path is not None and (by_id is None or by_path[0] != by_id[0]):
        # The file at this path now holds another id (e.g. `fix` wrote a real one): replace it.
        _delete_chunks(conn, by_path[0])
        conn.execute("DELETE FROM memories WHERE rowid = ?", (by_path[0],))
    values = _memory_values(memory, read)
    if by_id is not None:
        rowid = by_id[0]
        _update_metadata(conn, memory, read)
        conn.execute("UPDATE memories SET path = ? WHERE rowid = ?", (read.path, rowid))
        _delete_chunks(conn, rowid)
    else:
        cursor = conn.execute(
            "INSERT INTO memories(id, path, layer, category, title, tags, status, importance, created_at, "
            "updated_at, accessed_at, access_count, expires_at, related, created_ts, updated_ts, source, "
            "provisional, thread, anchors, file_hash, mtime_ns, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )
        rowid = cursor.lastrowid
    _insert_chunks(conn, rowid, memory)
    return by_id is not None


def _insert_chunks(conn: sqlean.Connection, memory_rowid: int, memory: Memory) -> None:
    tags_text = fts_document(" ".join(memory.tags))
    title_text = fts_document(memory.title)
    for chunk in chunk_memory(memory.title, memory.body):
        cursor = conn.execute(
            "INSERT INTO chunks(memory_rowid, ordinal, text, embed_text, heading, chunk_hash, script) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                memory_rowid,
                chunk.ordinal,
                chunk.text,
                chunk.embed_text,
                chunk.heading,
                chunk.chunk_hash,
                script_of(chunk.embed_text),
            ),
        )
        # The title and tags are indexed with the first chunk only, so they count once per memory.
        first = chunk.ordinal == 0
        conn.execute(
            "INSERT INTO chunks_fts(rowid, title, tags, body) VALUES (?, ?, ?, ?)",
            (cursor.lastrowid, title_text if first else "", tags_text if first else "", _body_tokens(chunk)),
        )


def _body_tokens(chunk: Chunk) -> str:
    return fts_document(chunk.search_text)
