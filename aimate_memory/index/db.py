"""The index database: one SQLite file per vault (metadata + FTS5 + sqlite-vec), WAL, one writer.

sqlean-py is the driver: the stdlib `sqlite3` on this machine (and macOS system Pythons) cannot load
extensions (docs/design.md §11). If sqlite-vec cannot be loaded the index still works, keyword-only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlean

from aimate_memory.index.chunking import CHUNKER_VERSION
from aimate_memory.index.textproc import FTS_TOKENIZE
from aimate_memory.index.textproc import TOKENIZER_VERSION as _FTS_VERSION

# Text processing that shapes the index: a change in either means a rebuild.
TOKENIZER_VERSION = f"{_FTS_VERSION}+{CHUNKER_VERSION}"

# 2: metrics gained layer and breakdown (perf). 3: an index on status alone: the context's count of pending
# captures scanned every memory (5 ms at 10k, ~50 ms at 100k of a context build whose goal is 30 ms); the
# `thread` column and its index (a hit's neighbours in its conversation, retrieval/neighbours.py).
# 4: chunks.heading, the chunk's heading path as its own column: the context builder had parsed it back out
# of embed_text's `title › heading` line, a string contract a title holding " › " could break.
# 5: memories.anchors, the anchored files as JSON rows [path, blob, verified_at]: search results say when one
# changed without reading the memory's file (docs/anchors.md).
SCHEMA_VERSION = 5
BUSY_TIMEOUT_MS = 30_000

# Version 5. A migration for version N+1 is a function added to MIGRATIONS; indexes are caches, so a
# schema too old to migrate is simply rebuilt from the files.
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS memories (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL UNIQUE,
    layer TEXT NOT NULL,
    category TEXT NOT NULL,
    title TEXT NOT NULL,
    tags TEXT NOT NULL,            -- JSON array
    status TEXT NOT NULL,
    importance INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    accessed_at TEXT,
    access_count INTEGER NOT NULL,
    expires_at TEXT,
    related TEXT NOT NULL,         -- JSON array
    created_ts REAL NOT NULL,      -- epoch seconds: range filters and decay without parsing
    updated_ts REAL NOT NULL,
    source TEXT,
    provisional INTEGER NOT NULL,
    thread TEXT,                   -- conversation a memory was captured from (search shows its neighbours)
    anchors TEXT,                  -- JSON [[path, blob, verified_at], ...] or NULL (docs/anchors.md)
    file_hash TEXT NOT NULL,       -- sha256 of the file bytes
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS memories_layer ON memories(layer, status);
CREATE INDEX IF NOT EXISTS memories_status ON memories(status);
CREATE INDEX IF NOT EXISTS memories_thread ON memories(thread, created_ts) WHERE thread IS NOT NULL;
CREATE INDEX IF NOT EXISTS memories_created ON memories(created_ts);
CREATE INDEX IF NOT EXISTS memories_updated ON memories(updated_ts);
CREATE INDEX IF NOT EXISTS memories_expires ON memories(expires_at);
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY,
    memory_rowid INTEGER NOT NULL REFERENCES memories(rowid) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    text TEXT NOT NULL,            -- what a snippet shows
    embed_text TEXT NOT NULL,      -- what the embedder saw (context line + text)
    heading TEXT NOT NULL,         -- heading path, " › "-joined for display ("" before the first heading)
    chunk_hash TEXT NOT NULL,
    script TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_memory ON chunks(memory_rowid);
CREATE INDEX IF NOT EXISTS chunks_hash ON chunks(chunk_hash);
-- Contentless: the text lives in `chunks`; FTS holds pre-tokenized copies (CJK bigrams, docs/design.md §6).
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    title, tags, body, content='', contentless_delete=1, tokenize='{FTS_TOKENIZE}'
);
-- Full-precision vectors (float16) by chunk text hash: the re-rank store and the embedding cache.
CREATE TABLE IF NOT EXISTS vectors (chunk_hash TEXT PRIMARY KEY, vec BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS file_errors (
    path TEXT PRIMARY KEY, line INTEGER, kind TEXT NOT NULL, reason TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL
);
-- Timings of operations (`aimate mem perf`): the last METRICS_KEPT rows. `breakdown` is a JSON object
-- of named parts in milliseconds (or counts) of the operation.
CREATE TABLE IF NOT EXISTS metrics (
    rowid INTEGER PRIMARY KEY, at REAL NOT NULL, op TEXT NOT NULL, ms REAL NOT NULL, detail TEXT,
    layer TEXT NOT NULL DEFAULT '', breakdown TEXT
);
"""


def vec_table_sql(dimension: int) -> str:
    # Sign-quantized (1 bit per dimension) pre-filter: 896 bits = 112 bytes a chunk, so a scan of 150k
    # chunks is ~14 ms here for k=100 where float KNN would be ~0.5 s; exact cosine re-ranks the
    # survivors from `vectors` (docs/design.md §6, issue "Scale").
    return f"CREATE VIRTUAL TABLE IF NOT EXISTS chunks_vec USING vec0(embedding bit[{dimension}])"


@dataclass(frozen=True)
class IndexIdentity:
    """What the index was built with; a difference from the config means a rebuild (docs/design.md §6)."""

    schema: int
    embedder: str  # "" when built keyword-only
    dimension: int
    tokenizer: str

    @classmethod
    def current(cls, embedder: str, dimension: int) -> IndexIdentity:
        return cls(SCHEMA_VERSION, embedder, dimension, TOKENIZER_VERSION)


def connect(path: Path, readonly: bool = False, create: bool = True) -> sqlean.Connection:
    """`create`: False for a vault's index itself, which only ever appears whole (a build swapped in); opening it
    where it is missing raises rather than leaving an empty file a reader would take for an index."""
    mode = "ro" if readonly else ("rwc" if create else "rw")
    uri = f"file:{path}?mode={mode}"
    conn = sqlean.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    # No memory map, and a 16 MiB page cache: the daemon lives for days. Mapped, the index's pages counted in
    # its RSS and the kernel's fault-around mapped the pages beside each one read (an index is written
    # interleaved, so soon the whole file): 10k memories, both models, ten searches: 307 MB mapped, 211 MB with
    # reads into this bounded cache, at the same CPU for a search and a bulk import (docs/benchmarks.md,
    # "The daemon's memory, third round").
    conn.execute("PRAGMA cache_size = -16384")
    conn.execute("PRAGMA mmap_size = 0")
    return conn


def _vec_extension() -> str:
    """sqlite-vec's loadable library, found without importing the `sqlite_vec` package: its `__init__` imports
    numpy (~0.1 s) for a helper we never call, and a cold `list` opens the index (`sqlite_vec.loadable_path`
    is this same path)."""
    from importlib.util import find_spec

    spec = find_spec("sqlite_vec")
    if spec is None or spec.origin is None:
        raise ImportError("No module named 'sqlite_vec'")
    return str(Path(spec.origin).parent / "vec0")


def load_vec(conn: sqlean.Connection) -> str | None:
    """Load sqlite-vec; returns None on success, else why it is unavailable."""
    try:
        conn.enable_load_extension(True)
        conn.load_extension(_vec_extension())
        conn.enable_load_extension(False)
    except Exception as exc:  # ImportError, OperationalError: any of them means keyword-only
        return f"sqlite-vec could not be loaded ({exc})"
    return None


def create_schema(conn: sqlean.Connection, identity: IndexIdentity, with_vectors: bool) -> None:
    conn.executescript(_SCHEMA)
    if with_vectors and identity.dimension:
        conn.execute(vec_table_sql(identity.dimension))
    write_identity(conn, identity)


def read_identity(conn: sqlean.Connection) -> IndexIdentity | None:
    try:
        rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlean.OperationalError:
        return None
    if "schema" not in rows:
        return None
    return IndexIdentity(
        int(rows["schema"]),
        rows.get("embedder", ""),
        int(rows.get("dimension", 0)),
        rows.get("tokenizer", ""),
    )


def write_identity(conn: sqlean.Connection, identity: IndexIdentity) -> None:
    values = {
        "schema": str(identity.schema),
        "embedder": identity.embedder,
        "dimension": str(identity.dimension),
        "tokenizer": identity.tokenizer,
    }
    conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", values.items())


#: meta key: "0" once every chunk has its vector, "1" from the transaction that adds chunks until then
VECTORS_PENDING = "vectors_pending"


def get_meta(conn: sqlean.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def set_meta(conn: sqlean.Connection, key: str, value: Any) -> None:
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, str(value)))
