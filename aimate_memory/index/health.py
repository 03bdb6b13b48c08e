"""How the index is doing: stats (counts, size, identity), health (where it disagrees with the files or
the config, with the fix) and the metrics log (timings of its operations)."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import sqlean

from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.index import db
from aimate_memory.index.store import IndexStore, has_table
from aimate_memory.index.sync_embed import chunks_without_vectors
from aimate_memory.index.sync_plan import plan_reads
from aimate_memory.index.sync_scan import VaultScan, error_records, indexed_files


class IndexHealth:
    def __init__(self, store: IndexStore, scan: VaultScan, embedder: LazyEmbedder) -> None:
        self.store = store
        self.scan = scan
        self.embedder = embedder

    def stats(self) -> dict[str, Any]:
        conn = self.store.conn
        by = {
            key: dict(conn.execute(f"SELECT {key}, COUNT(*) FROM memories GROUP BY {key}").fetchall())
            for key in ("layer", "status", "category")
        }
        identity = db.read_identity(conn)
        vectors = conn.execute("SELECT COUNT(*) FROM chunks_vec").fetchone()[0] if has_table(conn, "chunks_vec") else 0
        return {
            "scope": self.scan.vault.scope.value,
            "vault": str(self.scan.vault.root),
            "index": str(self.store.db_path),
            "memories": conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0],
            "chunks": conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0],
            "vectors": vectors,
            "by_layer": by["layer"],
            "by_status": by["status"],
            "by_category": by["category"],
            "errors": conn.execute("SELECT COUNT(*) FROM file_errors WHERE kind != 'Excluded'").fetchone()[0],
            "excluded": conn.execute("SELECT COUNT(*) FROM file_errors WHERE kind = 'Excluded'").fetchone()[0],
            "index_bytes": self.store.size_bytes(),
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
        rebuild = self.store.rebuild_reason()
        if rebuild is not None:
            problems.append(("IndexIdentity", f"the index must be rebuilt: {rebuild}", "aimate mem reindex"))
            return problems
        conn = self.store.conn
        indexed, errors = indexed_files(conn), error_records(conn)
        behind = plan_reads(self.scan.walk(), indexed, errors)
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
            if self.store.vec_error is not None:
                problems.append(("VectorsOff", self.store.vec_error, "pip install sqlite-vec, then aimate mem reindex"))
            else:
                missing = len(chunks_without_vectors(conn))
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
        """(operation, milliseconds) of the latest operations, newest first."""
        return self.store.conn.execute("SELECT op, ms FROM metrics ORDER BY rowid DESC LIMIT ?", (limit,)).fetchall()

    def record_metric(self, op: str, ms: float, detail: str = "") -> None:
        # A metric is never worth failing the operation it measures (e.g. the index is busy or read-only).
        with contextlib.suppress(sqlean.DatabaseError):
            self.store.conn.execute(
                "INSERT INTO metrics(at, op, ms, detail) VALUES (?, ?, ?, ?)", (time.time(), op, ms, detail)
            )
