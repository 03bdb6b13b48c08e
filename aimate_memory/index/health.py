"""How the index is doing: stats (counts, size, identity), health (where it disagrees with the files or
the config, with the fix) and the metrics log (timings of its operations)."""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from typing import Any

import sqlean

from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.index import db
from aimate_memory.index.refresh_embed import chunks_without_vectors
from aimate_memory.index.refresh_plan import plan_reads
from aimate_memory.index.refresh_scan import VaultScan, error_records, indexed_files
from aimate_memory.index.store import IndexStore, has_table

METRICS_KEPT = 10_000
TRIM_EVERY = 500  # rows between trims: the table holds at most METRICS_KEPT + TRIM_EVERY rows


@dataclass(frozen=True)
class MetricRow:
    op: str
    layer: str
    ms: float
    breakdown: dict[str, Any]
    at: float  # epoch seconds


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
            "last_refresh": db.get_meta(conn, "last_refresh"),
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
                    "last refresh",
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

    def metrics(self, limit: int = METRICS_KEPT) -> list[MetricRow]:
        """The latest operations' timings, newest first."""
        with contextlib.suppress(sqlean.DatabaseError):
            rows = self.store.conn.execute(
                "SELECT op, layer, ms, breakdown, at FROM metrics ORDER BY rowid DESC LIMIT ?", (limit,)
            ).fetchall()
            return [
                MetricRow(op, layer, ms, json.loads(breakdown) if breakdown else {}, at)
                for op, layer, ms, breakdown, at in rows
            ]
        return []

    def record_metric(
        self, op: str, ms: float, detail: str = "", *, layer: str = "", breakdown: dict[str, Any] | None = None
    ) -> None:
        """One row in the bounded metrics table. Measured: 0.026 ms a record over 10k records (see
        tests/system/test_agent_perf.py), one INSERT in WAL mode without an fsync, plus a trim every
        TRIM_EVERY rows that keeps the last METRICS_KEPT."""
        # A metric is never worth failing the operation it measures (e.g. the index is busy or read-only).
        with contextlib.suppress(sqlean.DatabaseError):
            conn = self.store.conn
            cursor = conn.execute(
                "INSERT INTO metrics(at, op, ms, detail, layer, breakdown) VALUES (?, ?, ?, ?, ?, ?)",
                (time.time(), op, ms, detail, layer, json.dumps(breakdown) if breakdown else None),
            )
            rowid = cursor.lastrowid or 0
            if rowid % TRIM_EVERY == 0:
                conn.execute("DELETE FROM metrics WHERE rowid <= ?", (rowid - METRICS_KEPT,))
