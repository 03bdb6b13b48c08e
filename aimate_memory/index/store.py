"""One vault's index file over its life: the connection (opened on first use, sqlite-vec loaded), what
the file was built with, why it must be rebuilt, and the swap of a rebuilt file into its place.

The schema and the SQL it needs are in `db`; this module holds the open file.
"""

from __future__ import annotations

import os
from pathlib import Path

import sqlean

from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.index import db

MODEL_CHANGED = "the embedding model changed"  # a rebuild reason a worker can handle (reembed.py)


class IndexStore:
    """`index.db` of one vault. Many readers; one writer at a time (the sync's file lock + SQLite WAL)."""

    def __init__(self, db_path: Path, embedder: LazyEmbedder) -> None:
        self.db_path = db_path
        self.embedder = embedder
        self._conn: sqlean.Connection | None = None
        self.vec_error: str | None = None  # why vectors are off (sqlite-vec did not load), or None
        self._inode: int | None = None  # of the file `_conn` opened

    @property
    def conn(self) -> sqlean.Connection:
        if self._conn is None:
            self._conn = self.open(self.db_path, create=False)
            self._inode = _inode(self.db_path)
        return self._conn

    def replaced(self) -> bool:
        """Whether another process swapped a new file in (a rebuild, a re-embedding worker) since this one
        opened its connection, which still reads the old file."""
        return self._conn is not None and _inode(self.db_path) not in (self._inode, None)

    def open(self, path: Path, create: bool = True) -> sqlean.Connection:
        """A new connection to `path` (the index, or a rebuild beside it) with sqlite-vec loaded if it can be.
        The index itself is opened with `create` False: only a swap puts it in place (`identity`)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = db.connect(path, create=create)
        self.vec_error = db.load_vec(conn)
        return conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @property
    def exists(self) -> bool:
        return self.db_path.exists()

    def identity(self) -> db.IndexIdentity | None:
        """What the index was built with; None when it was never built. A missing file is not opened (`conn`
        never creates it): opening had created it, empty, and a reader in another process that found it failed
        with "no such table" while the first build was still beside it (docs/design.md, "The first index
        appears whole")."""
        if self._conn is None and not self.exists:
            return None
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
            return MODEL_CHANGED
        return None

    def rebuild_reason(self) -> str | None:
        """`needs_rebuild`, where a file SQLite cannot read is one more reason."""
        try:
            return self.needs_rebuild()
        except sqlean.DatabaseError as exc:
            return f"the index file is damaged ({exc})"

    def rebuild_path(self) -> Path:
        """Where a rebuild builds the new file, beside the index; what a killed rebuild left there is removed."""
        self.remove_rebuild_leftovers()
        return self.db_path.with_name(self.db_path.name + ".rebuild")

    def remove_rebuild_leftovers(self) -> None:
        """Delete what a killed rebuild left beside the index. Only under the sync lock: a running rebuild
        holds it, so what is found here then is debris."""
        for leftover in sqlite_files(self.db_path.with_name(self.db_path.name + ".rebuild")):
            leftover.unlink(missing_ok=True)

    def swap_in(self, built: Path) -> None:
        """Replace the index with the file at `built` (closed, checkpointed): readers keep the old one until now."""
        self.close()
        os.replace(built, self.db_path)
        for suffix in ("-wal", "-shm"):
            Path(str(self.db_path) + suffix).unlink(missing_ok=True)
            Path(str(built) + suffix).unlink(missing_ok=True)

    def size_bytes(self) -> int:
        return sum(path.stat().st_size for path in sqlite_files(self.db_path) if path.exists())


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return None


def has_table(conn: sqlean.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None


def sqlite_files(path: Path) -> list[Path]:
    return [path, Path(str(path) + "-wal"), Path(str(path) + "-shm")]
