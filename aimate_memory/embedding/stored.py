"""`StoredVectors`: document vectors kept on disk between processes, by the model that made them and the text.

A search compares an English question with its nearest Chinese memories said in English, and a Chinese one with
its English memories and what their names are (retrieval/hybrid.py `_in_english`, `_named`); `remember` compares
its sentence with the bodies of the memories most like it (system/capture.py). Each is up to 30 texts of ~1,000
characters embedded by both models: 1.2–2.6 s of CPU in a process without a daemon, where the model loads took
~0.4 s (docs/benchmarks.md, "Cold context, search and remember"). The daemon keeps them in memory
(`VectorMemo`); a cold process kept nothing, and embedded the same memories' texts again each time. These texts
are memories' texts (the query itself is never stored here): the next process finds them on disk.

One SQLite file in the home's state folder (`state/document-vectors.db`, 0600), keyed by the first 16 bytes of
sha256(model identity, text): the text cannot be read back from it, a vector of another model or version is never
found, and a vector read is the float32 row the model gave, so an answer is the same whichever process embedded
it. Bounded (`KEPT` rows, the oldest written go first: ~3.5 KB a row at 896 dimensions). It is a cache: a
file that cannot be opened, read or written (read-only, locked past `BUSY_MS`, damaged) costs the embedding, never
an error — a damaged one is removed and written again. Nothing in it runs code when read (docs/reliability.md,
"Trust model"): at worst a forged row gives a wrong vector.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

FILE = "document-vectors.db"
KEPT = 10_000  # rows: ~35 MB at most at 896 dimensions
BUSY_MS = 200  # a cache waits this long for another process's write, then embeds instead
_SCHEMA = "CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)"


class StoredVectors:
    """`read(namespace, texts)`: the kept rows by text; `write(namespace, rows)`: keep them. Thread-safe."""

    def __init__(self, path: Path, kept: int = KEPT) -> None:
        self.path = path
        self._kept = kept
        self._connection: Any = None
        self._lock = threading.Lock()
        self._broken = False  # failed to open: this process embeds without it

    def read(self, namespace: str, texts: Sequence[str]) -> dict[str, np.ndarray]:
        import numpy as np

        keys = {_key(namespace, text): text for text in dict.fromkeys(texts)}
        if not keys:
            return {}
        with self._lock:
            rows = self._run(
                lambda db: db.execute(
                    f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(keys))})", list(keys)
                ).fetchall()
            )
        return {keys[bytes(key)]: np.frombuffer(vector, dtype=np.float32).copy() for key, vector in rows or ()}

    def write(self, namespace: str, rows: dict[str, np.ndarray]) -> None:
        import numpy as np

        if not rows:
            return
        values = [(_key(namespace, text), np.asarray(row, dtype=np.float32).tobytes()) for text, row in rows.items()]

        def insert(db: Any) -> None:
            with db:
                db.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", values)
                # Rowids grow with each write: the oldest written go first.
                db.execute("DELETE FROM vectors WHERE rowid <= (SELECT max(rowid) FROM vectors) - ?", (self._kept,))

        with self._lock:
            self._run(insert)

    def close(self) -> None:
        with self._lock:
            self._close()

    def _run(self, work: Any) -> Any:
        """`work(connection)`, or None when the file cannot serve (logged, never raised)."""
        import sqlean

        if self._broken:
            return None
        try:
            return work(self._open())
        except sqlean.OperationalError as error:  # locked past BUSY_MS, read-only, disk full: embed instead
            log.info("document vectors %s not used: %s", self.path, error)
        except sqlean.DatabaseError as error:  # not a database, or damaged: start again
            log.warning("document vectors %s damaged (%s): written again", self.path, error)
            self._close()
            with contextlib.suppress(OSError):
                self.path.unlink()
        except OSError as error:
            log.info("document vectors %s not used: %s", self.path, error)
            self._broken = True
        return None

    def _close(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(Exception):
                self._connection.close()
        self._connection = None

    def _open(self) -> Any:
        import sqlean

        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not self.path.exists():
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))  # private before SQLite writes it
            connection = sqlean.connect(str(self.path), timeout=BUSY_MS / 1000, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")  # a cache: a lost last write costs an embedding
            connection.execute(_SCHEMA)
            self._connection = connection
        return self._connection


def _key(namespace: str, text: str) -> bytes:
    return hashlib.sha256(f"{namespace}\0{text}".encode()).digest()[:16]
