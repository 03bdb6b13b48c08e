"""Metadata queries: memories by filter, id prefix or rowid, chunk texts, ranking columns, file errors.

The index holds each memory's metadata, not its body: enough to list, filter and rank without a file read.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, NamedTuple

from aimate_memory.index.store import IndexStore
from aimate_memory.vault.anchors import Anchor
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer
from aimate_memory.vault.model import Memory, to_datetime
from aimate_memory.vault.store import Vault

if TYPE_CHECKING:  # both load with a search's first ranking (index/memory_index.py)
    import numpy as np

    from aimate_memory.index.candidates import RankingColumns

MEMORY_COLUMNS = (
    "rowid, id, path, layer, category, title, tags, status, importance, created_at, updated_at, "
    "accessed_at, access_count, expires_at, related, source, provisional, thread, anchors"
)


class ThreadSides(NamedTuple):
    """A memory's neighbours in its thread, as rowids, nearest first on each side."""

    before: tuple[int, ...]
    after: tuple[int, ...]


def _thread_side(compare: str, direction: str) -> str:
    """The correlated subquery for one side of memory `a` in its thread, as a JSON array of rowids."""
    return f"""(SELECT json_group_array(rowid) FROM (
        SELECT b.rowid FROM memories b WHERE b.thread = a.thread AND b.created_ts {compare}= a.created_ts
        AND (b.created_ts {compare} a.created_ts OR b.path {compare} a.path)
        ORDER BY b.created_ts {direction}, b.path {direction} LIMIT :span))"""


class MetadataQueries:
    def __init__(self, store: IndexStore, vault: Vault) -> None:
        self.store = store
        self.vault = vault
        self._hashes: tuple[tuple[int, int, int], dict[str, str]] | None = None

    def ranking_columns(
        self, memory_rowids: np.ndarray, where: MemoryFilter, uses: Mapping[str, int] | None = None
    ) -> RankingColumns:
        """What ranking needs of these memories, for those that pass the filter (the filter runs in SQL).
        `uses`: explicit reads per memory id from the use journal (docs/lifecycle.md "Uses"), added to the
        count an older version left in the file (the index's `access_count` column)."""
        from aimate_memory.index.candidates import RankingColumns

        clause, params = filter_sql(where)
        rows = self.store.conn.execute(
            "SELECT rowid, layer, importance, access_count, updated_ts, id, created_ts FROM memories "
            f"WHERE rowid IN (SELECT value FROM json_each(?)){' AND ' + clause if clause else ''}",
            # sorted(set()), not np.unique: that imports numpy.ma (~11 ms of a cold search's CPU) on first call
            (json.dumps(sorted(set(memory_rowids.tolist()))), *params),
        ).fetchall()
        uses = uses or {}
        return RankingColumns.from_rows([(*row[:3], row[3] + uses.get(row[5], 0), row[4], row[6]) for row in rows])

    def memories(self, memory_rowids: Iterable[int]) -> dict[int, Memory]:
        ids = json.dumps(sorted(set(memory_rowids)))
        rows = self.store.conn.execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE rowid IN (SELECT value FROM json_each(?))",
            (ids,),
        ).fetchall()
        return {row[0]: memory_from_row(row, self.vault) for row in rows}

    def query(self, where: MemoryFilter, limit: int | None = None, order: str = "path") -> list[Memory]:
        """Metadata query (list, time ranges) straight from SQL indexes."""
        clause, params = filter_sql(where)
        order_sql = {"path": "path", "updated": "updated_ts DESC", "created": "created_ts DESC"}[order]
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories"
        sql += f" WHERE {clause}" if clause else ""
        sql += f" ORDER BY {order_sql}"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        return [memory_from_row(row, self.vault) for row in self.store.conn.execute(sql, params)]

    def anchors(self, where: MemoryFilter) -> list[tuple[int, tuple[Anchor, ...]]]:
        """(rowid, anchors) of the anchored memories matching `where`, by path: what a staleness check over
        the whole vault reads (`memories(rowids)` then gives the few it reports whole)."""
        clause, params = filter_sql(replace(where, anchored=True))
        sql = f"SELECT rowid, anchors FROM memories WHERE {clause} ORDER BY path"
        return [(row[0], anchors_from_json(row[1])) for row in self.store.conn.execute(sql, params)]

    def count(self, where: MemoryFilter) -> int:
        """How many memories `query(where)` would give without a limit (`list -n 8`: "8 of 240")."""
        clause, params = filter_sql(where)
        sql = "SELECT count(*) FROM memories" + (f" WHERE {clause}" if clause else "")
        return int(self.store.conn.execute(sql, params).fetchone()[0])

    def file_hashes(self) -> dict[str, str]:
        """Every indexed memory's path and the sha256 of its file's bytes: what a trust check compares (every
        read of a context asks; read again only when the index changed — by this connection or another)."""
        conn = self.store.conn
        stamp = (id(conn), conn.total_changes, conn.execute("PRAGMA data_version").fetchone()[0])
        if self._hashes is None or self._hashes[0] != stamp:
            self._hashes = (stamp, dict(conn.execute("SELECT path, file_hash FROM memories").fetchall()))
        return dict(self._hashes[1])

    def thread_sides(self, memory_rowids: Iterable[int], span: int) -> dict[int, ThreadSides]:
        """For each of these memories that is in a thread: the rowids of the `span` memories before it and
        after it there (by created time, then path), each side nearest first. One statement for all of them;
        the `created_ts` range lets SQLite seek in the thread's index instead of reading the whole thread."""
        rows = self.store.conn.execute(
            f"""SELECT a.rowid, {_thread_side("<", "DESC")}, {_thread_side(">", "")}
                FROM memories a WHERE a.rowid IN (SELECT value FROM json_each(:ids)) AND a.thread IS NOT NULL""",
            {"ids": json.dumps(sorted(set(memory_rowids))), "span": span},
        ).fetchall()
        return {rowid: ThreadSides(tuple(json.loads(early)), tuple(json.loads(late))) for rowid, early, late in rows}

    def thread_neighbours(self, memory_id: str, span: int) -> tuple[list[Memory], list[Memory]]:
        """The `span` memories before and after this one in its thread, each side nearest first (empty when
        it is in no thread, or not indexed)."""
        row = self.store.conn.execute("SELECT rowid FROM memories WHERE id = ? LIMIT 1", (memory_id,)).fetchone()
        sides = self.thread_sides([row[0]], span).get(row[0]) if row is not None else None
        if sides is None:
            return [], []
        found = self.memories([*sides.before, *sides.after])
        return [found[r] for r in sides.before if r in found], [found[r] for r in sides.after if r in found]

    def find_ids(self, prefix: str) -> list[tuple[str, str]]:
        """(id, path) of memories whose id starts with `prefix` (case-insensitively: LIKE). A whole id — what
        capture and every caller inside the tool pass — is looked up by its unique index first: the LIKE is a
        scan of every row (~1.8 ms of CPU at 10,000 memories, five times a `remember`), and the caller takes the exact
        match whatever else starts with it (`vault.resolve.pick_by_id`)."""
        whole: list[tuple[str, str]] = self.store.conn.execute(
            "SELECT id, path FROM memories WHERE id = ?", (prefix,)
        ).fetchall()
        if whole:
            return whole
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        found: list[tuple[str, str]] = self.store.conn.execute(
            "SELECT id, path FROM memories WHERE id LIKE ? ESCAPE '\\' LIMIT 10", (escaped + "%",)
        ).fetchall()
        return found

    def memory_rowids_at(self, paths: Iterable[str]) -> set[int]:
        """The rowids of the memories indexed at these vault-relative paths."""
        rows = self.store.conn.execute(
            "SELECT rowid FROM memories WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(list(paths)),)
        )
        return {row[0] for row in rows}

    def chunk_texts(self, chunk_rowids: Iterable[int]) -> dict[int, str]:
        ids = json.dumps(sorted(set(chunk_rowids)))
        rows = self.store.conn.execute(
            "SELECT rowid, text FROM chunks WHERE rowid IN (SELECT value FROM json_each(?))", (ids,)
        )
        return dict(rows.fetchall())

    def memory_chunks(self, memory_ids: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
        """(text, heading path) of each memory's chunks in order, by memory id: a body without a file read
        (the context builder)."""
        rows = self.store.conn.execute(
            "SELECT m.id, c.text, c.heading FROM memories m JOIN chunks c ON c.memory_rowid = m.rowid "
            "WHERE m.id IN (SELECT value FROM json_each(?)) ORDER BY m.id, c.ordinal",
            (json.dumps(sorted(set(memory_ids))),),
        )
        found: dict[str, list[tuple[str, str]]] = {}
        for memory_id, text, heading in rows:
            found.setdefault(memory_id, []).append((text, heading))
        return found

    def file_errors(self) -> list[tuple[str, int | None, str, str]]:
        """(path, line, kind, reason) of every file the index could not or would not take."""
        rows: list[tuple[str, int | None, str, str]] = self.store.conn.execute(
            "SELECT path, line, kind, reason FROM file_errors ORDER BY path"
        ).fetchall()
        return rows


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
        thread,
        anchors,
    ) = row
    return Memory(
        id=id_,
        rel_path=PurePosixPath(path),
        scope=vault.scope,
        layer=Layer(layer),
        category=category,
        title=title,
        tags=_json_list(tags),
        status=status,
        importance=importance,
        created_at=_stored_time(created_at),
        updated_at=_stored_time(updated_at),
        accessed_at=to_datetime(accessed_at),
        access_count=access_count,
        expires_at=to_datetime(expires_at),
        related=_json_list(related),
        source=source,
        confidence=None,
        thread=thread,
        body="",
        archived=path.startswith("archive/"),
        provisional_id=bool(provisional),
        anchors=anchors_from_json(anchors),
    )


def _json_list(text: str) -> list[Any]:
    return [] if text == "[]" else list(json.loads(text))  # most memories have no tags and no related


def anchors_from_json(text: str | None) -> tuple[Anchor, ...]:
    """The `anchors` column (JSON rows the index wrote: `Anchor.to_row`)."""
    return tuple(Anchor.from_row(item) for item in json.loads(text)) if text else ()


def _stored_time(text: str) -> datetime:
    """`created_at`/`updated_at`: NOT NULL columns the index wrote from a Memory's aware datetimes — read
    straight (a `list` of 1,650 rows reads 3,300 of them), else as any frontmatter time (`to_datetime`)."""
    with contextlib.suppress(ValueError):
        stored = datetime.fromisoformat(text)
        if stored.tzinfo is not None:
            return stored
    value = to_datetime(text)
    if value is None:
        raise ValueError(f"unreadable time in the index: {text!r}")
    return value


def _status_clause(where: MemoryFilter, clauses: list[str], params: list[Any]) -> None:
    """`status IN (…)`, or with `session_statuses` a separate list for the session layer (MemoryFilter)."""
    if where.session_statuses is None:
        if where.statuses:
            clauses.append(f"status IN ({','.join('?' * len(where.statuses))})")
            params.extend(where.statuses)
        return
    sessions = f"status IN ({','.join('?' * len(where.session_statuses))})" if where.session_statuses else "0"
    others = f"status IN ({','.join('?' * len(where.statuses))})" if where.statuses else "1"
    clauses.append(f"((layer = ? AND {sessions}) OR (layer != ? AND {others}))")
    params.extend([Layer.SESSION.value, *where.session_statuses, Layer.SESSION.value, *where.statuses])


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
    _status_clause(where, clauses, params)
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
    if where.anchored:
        clauses.append("anchors IS NOT NULL")
    if where.withheld:
        clauses.append("file_hash NOT IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(sorted(where.withheld)))
    return " AND ".join(clauses), params
