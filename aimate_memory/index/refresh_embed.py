"""A refresh's last step: every chunk gets a vector (from the cache by chunk hash, else embedded in batches)
and its sign bits in `chunks_vec`, the table the vector pre-filter scans."""

from __future__ import annotations

import json

import sqlean

from aimate_memory.embedding.base import EmbedderUnavailable
from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.index import db
from aimate_memory.index.refresh_report import Progress, RefreshReport
from aimate_memory.index.store import has_table

EMBED_BATCH = 64


def embed_missing(
    conn: sqlean.Connection,
    embedder: LazyEmbedder,
    vec_error: str | None,
    report: RefreshReport,
    progress: Progress | None,
    among: list[str] | None = None,
) -> None:
    """Give every chunk a vector. Chunks left without one (model unavailable) are filled by a later refresh.
    `among`: the paths of the only memories whose chunks can lack one (every other chunk had its vector when
    the refresh began): only their chunks are looked at, not every chunk of the index against `chunks_vec` —
    at 10,000 memories that scan was ~85 ms of each `remember`'s indexing (docs/design.md §12, "What a warm
    remember reads once")."""
    if not embedder.enabled:
        return
    if vec_error is not None:
        report.warnings.append(f"{vec_error} — keyword search only")
        return
    if db.get_meta(conn, db.VECTORS_PENDING) == "0":
        # No chunk was added since every chunk had its vector: scanning 188k chunks against the vector
        # table to find none had been 40 % of an unchanged refresh at 100k memories.
        return
    pending = chunks_without_vectors(conn, among)
    if not pending:
        db.set_meta(conn, db.VECTORS_PENDING, "0")
        return
    import numpy as np  # here, not at the top: an unchanged refresh (a cold `list`) never loads it

    texts = {chunk_hash: text for _, chunk_hash, text in pending}
    need = sorted(set(texts) - _cached_hashes(conn, sorted(texts)))
    embedder_id = db.get_meta(conn, "vector_embedder")
    if need or embedder_id is None:
        model = embedder.get()
        if model is None:
            assert embedder.unavailable is not None
            report.warnings.append(f"{embedder.unavailable.message} — keyword search only")
            return
        embedder_id = model.identity
        db.set_meta(conn, "vector_embedder", embedder_id)
        if progress and need:
            progress("embedding", 0, len(need))  # how much there is, before the first batch's wait
        for start in range(0, len(need), EMBED_BATCH * 4):
            batch = need[start : start + EMBED_BATCH * 4]
            try:
                vectors = np.asarray(model.embed([texts[h] for h in batch]), dtype=np.float16)
            except EmbedderUnavailable as exc:  # an endpoint that stopped answering: these wait for a later refresh
                report.warnings.append(f"{exc.message} — keyword search only")
                break
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(
                "INSERT OR REPLACE INTO vectors(chunk_hash, vec) VALUES (?, ?)",
                [(h, v.tobytes()) for h, v in zip(batch, vectors, strict=True)],
            )
            conn.execute("COMMIT")
            report.embedded_chunks += len(batch)
            if progress:
                progress("embedding", min(start + len(batch), len(need)), len(need))
    if _write_sign_bits(conn, pending, embedder_id, embedder.fingerprint) == len(pending):
        db.set_meta(conn, db.VECTORS_PENDING, "0")


def _write_sign_bits(
    conn: sqlean.Connection, pending: list[tuple[int, str, str]], embedder_id: str, fingerprint: str
) -> int:
    """Index the sign bits of each pending chunk whose vector is cached; returns how many got theirs."""
    import numpy as np

    written = 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        for chunk_rowid, chunk_hash, _ in pending:
            row = conn.execute("SELECT vec FROM vectors WHERE chunk_hash = ?", (chunk_hash,)).fetchone()
            if row is None:
                continue
            vector = np.frombuffer(row[0], dtype=np.float16)
            _ensure_vec_table(conn, embedder_id, len(vector), fingerprint)
            bits = np.packbits(vector > 0).tobytes()
            conn.execute("INSERT INTO chunks_vec(rowid, embedding) VALUES (?, vec_bit(?))", (chunk_rowid, bits))
            written += 1
        conn.execute("COMMIT")
        return written
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def chunks_without_vectors(conn: sqlean.Connection, among: list[str] | None = None) -> list[tuple[int, str, str]]:
    """(chunk rowid, chunk hash, embed text) of every chunk not in `chunks_vec` (of the memories at the paths
    `among` only, when given)."""
    where = ""
    params: tuple[str, ...] = ()
    if among is not None:
        where = "c.memory_rowid IN (SELECT rowid FROM memories WHERE path IN (SELECT value FROM json_each(?)))"
        params = (json.dumps(among),)
    if not has_table(conn, "chunks_vec"):
        sql = "SELECT c.rowid, c.chunk_hash, c.embed_text FROM chunks c" + (f" WHERE {where}" if where else "")
        return [tuple(row) for row in conn.execute(sql, params)]
    missing = "NOT EXISTS (SELECT 1 FROM chunks_vec v WHERE v.rowid = c.rowid)"
    sql = f"SELECT c.rowid, c.chunk_hash, c.embed_text FROM chunks c WHERE {missing}" + (
        f" AND {where}" if where else ""
    )
    return [tuple(row) for row in conn.execute(sql, params)]


def _cached_hashes(conn: sqlean.Connection, hashes: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(hashes), 500):
        part = hashes[start : start + 500]
        rows = conn.execute(f"SELECT chunk_hash FROM vectors WHERE chunk_hash IN ({','.join('?' * len(part))})", part)
        found.update(row[0] for row in rows)
    return found


def _ensure_vec_table(conn: sqlean.Connection, embedder_id: str, dimension: int, fingerprint: str) -> None:
    identity = db.read_identity(conn)
    if identity is not None and identity.embedder == embedder_id and identity.dimension == dimension:
        return
    conn.execute("DROP TABLE IF EXISTS chunks_vec")
    conn.execute(db.vec_table_sql(dimension))
    db.write_identity(conn, db.IndexIdentity.current(embedder_id, dimension))
    db.set_meta(conn, "embedder_fingerprint", fingerprint)
