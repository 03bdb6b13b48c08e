"""`Conflicts`, reached as `system.conflicts`: which active core memories and decisions a new one may
contradict (docs/design.md, "Conflicts"). The decision is `capture/conflict.py`'s; this module gathers the
candidates and their cosines in the multilingual USE space.

Speed (issue 38: p95 ≤ 50 ms warm at 300 core memories and decisions). What a check reads is kept per vault
until a file under the core and decision folders changes (their stats, one `os.scandir` walk): the pool of
active core memories and decisions (id, title, path) and their stored vectors from the index — the USE
half of the search embedder's chunk vectors. The most similar are picked by one product with those, instead
of a hybrid search per check; only the few picked are read and embedded (the sentence cache keeps them)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np

from aimate_memory.capture.conflict import ActiveMemory, Thresholds, find_conflicts, moved, read, shares_slot
from aimate_memory.capture.model import EMBEDDER as KIND_EMBEDDER
from aimate_memory.capture.translation import CROSS_COSINE, across_languages, says_again
from aimate_memory.errors import AimateError
from aimate_memory.index.memory_index import MemoryIndex
from aimate_memory.system.memories import Memories
from aimate_memory.system.reading import SentenceReader
from aimate_memory.system.records import CONFLICT_FIELD, ConflictRecord, conflicts_with
from aimate_memory.system.search import Retrieval
from aimate_memory.system.store import Store
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer, folder_for
from aimate_memory.vault.layout import takes_sides as takes_sides  # the rule, kept with the layers; re-exported
from aimate_memory.vault.model import Memory
from aimate_memory.vault.store import Vault

Stats = dict[str, tuple[int, int]]  # vault-relative path → (mtime_ns, size)

SEARCHED = 8  # the most similar active core memories and decisions, read besides those sharing a slot
SIDES_FOLDERS = (folder_for(Layer.CORE, None), folder_for(Layer.LONG_TERM, "decision"))
LISTED = 500  # the newest active core memories and decisions whose titles are read for a shared slot
SHARING = 32  # of those, the newest sharing a slot with the new text are read whole and embedded
RESTATED = 5  # the nearest by stored vector read as sentences when asking what a text says again
MARGIN = 0.15  # how far below the restatement bar a stored vector may be and still be read
CHUNK_IDS = 500  # memory ids a query of their stored vectors names at once (SQLite's limit is 32,766)


@dataclass(frozen=True)
class Sided:
    """An active core memory or decision as the index lists it."""

    id: str
    title: str
    path: str


@dataclass
class _Pool:
    """What a vault's checks read, valid while `stats` holds: the newest `LISTED` active core memories and
    decisions, and the unit USE vector of each (rows of `vectors`; None without stored vectors)."""

    stats: Stats
    sided: list[Sided] = field(default_factory=list)
    vectors: np.ndarray | None = None
    loaded: dict[int, Memory] = field(default_factory=dict)  # rows read whole so far

    def load(self, vault: Vault, row: int) -> Memory:
        """The memory of a row, read once while the pool holds (read-only: the tool's own simple frontmatter
        skips ruamel, ~1.3 ms a file)."""
        if row not in self.loaded:
            self.loaded[row] = vault.load(PurePosixPath(self.sided[row].path), read_only=True)
        return self.loaded[row]


def sides_stats(root: Path) -> Stats:
    """The stat of every file under the core and decision folders (plain `os.scandir`: a pathlib object per
    file cost most of a check)."""
    found: Stats = {}
    stack = [(str(root / folder), folder.as_posix() + "/") for folder in SIDES_FOLDERS]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, prefix + entry.name + "/"))
                else:
                    stat = entry.stat()
                    found[prefix + entry.name] = (stat.st_mtime_ns, stat.st_size)
            except OSError:
                continue
    return found


class Conflicts:
    """Offers `check` (a text about to be written in a vault), `of` (a memory already written) and
    `recorded` (the conflicts a pending memory's `conflicts_with` names, as records)."""

    def __init__(self, store: Store, retrieval: Retrieval, memories: Memories, reader: SentenceReader) -> None:
        self._store = store
        self._retrieval = retrieval
        self._memories = memories
        self._reader = reader
        self._pools: dict[Path, _Pool] = {}
        self._walked: set[Path] | None = None  # within `one_walk`: the vaults whose folders were walked

    def _thresholds(self) -> Thresholds:
        config = self._store.config
        return Thresholds(
            float(config.get("capture.conflict_subject_threshold")), float(config.get("capture.conflict_threshold"))
        )

    def check(self, text: str, vault: Vault, exclude: Iterable[str] = ()) -> list[ConflictRecord]:
        """The active core memories and decisions of `vault` that `text` may contradict, the closest first.
        Read: the newest `SHARING` whose title fills a slot the text fills too, and the `SEARCHED` most
        similar by search."""
        skip = set(exclude)
        pool = self._pool(vault)
        rows = [row for row, sided in enumerate(pool.sided) if sided.id not in skip]
        if not rows:
            return []
        wanted = read(text)
        picked = [
            row
            for row in rows
            if shares_slot(wanted, read(pool.sided[row].title))
            or (wanted.places and moved(wanted.places, read(pool.sided[row].title).places))
        ]
        picked = picked[:SHARING]  # newest first: a vault of 300 database decisions costs 32 embeddings, not 300
        picked = list(dict.fromkeys([*picked, *self._nearest(text, pool, rows, vault)]))
        memories = [pool.load(vault, row) for row in picked]
        texts = [memory.body.strip() or memory.title for memory in memories]
        cosines = self._cosines(text, texts, pool, picked)
        candidates = [
            ActiveMemory(memory.id, body, cosine) for memory, body, cosine in zip(memories, texts, cosines, strict=True)
        ]
        by_id = {memory.id: memory for memory in memories}
        return [
            ConflictRecord.of(by_id[found.memory_id], found.reason, found.slot, found.cosine)
            for found in find_conflicts(text, candidates, self._thresholds())
        ]

    def restated(self, text: str, vault: Vault, bar: float) -> str | None:
        """The active core memory or decision of `vault` that `text` says again — the closest at a USE cosine
        ≥ `bar`, or in the other language read through the lexicon (capture/translation.py `says_again`), and
        nothing `text` contradicts — or None (also without stored vectors)."""
        pool = self._pool(vault)
        query = self._reader.vectors([text]) if pool.vectors is not None else None
        if query is None or pool.vectors is None or query.shape[1] != pool.vectors.shape[1] or not pool.sided:
            return None
        # The stored vectors read "title\nbody" (a one-sentence memory twice): a few hundredths lower than
        # the sentence's own, so they pick the few near ones and each is then read as the sentence it is.
        # In the other language a restatement sits lower (.48 for "提交代码前一定要先运行 ruff" against "Always run
        # ruff before committing"): those are read too, and the lexicon decides (capture/translation.py).
        cosines = pool.vectors @ query[0]
        near = [
            int(row)
            for row in np.argsort(-cosines, kind="stable")[:RESTATED]
            if cosines[row] >= bar - MARGIN
            or (cosines[row] >= CROSS_COSINE - MARGIN and across_languages(text, pool.sided[row].title))
        ]
        bodies = [pool.load(vault, row).body.strip() or pool.sided[row].title for row in near]
        exact = self._reader.vectors([text, *bodies]) if bodies else None
        if exact is None:
            return None
        close = [
            row
            for row, body, vector in zip(near, bodies, exact[1:], strict=True)
            if says_again(text, body, float(exact[0] @ vector), bar)
        ]
        if not close:
            return None
        contradicted = {record.id for record in self.check(text, vault)}
        return next((pool.sided[row].id for row in close if pool.sided[row].id not in contradicted), None)

    def _cosines(self, text: str, texts: list[str], pool: _Pool, rows: list[int]) -> list[float | None]:
        """USE cosines of `text` with the picked memories: with their stored vectors when the index has them
        (a memory's chunks are its title and body, embedded knowing the title: for a sentence or a few, the
        body's own vector within a few hundredths), else each body read by the model."""
        query = self._reader.vectors([text]) if texts else None
        if query is not None and pool.vectors is not None and query.shape[1] == pool.vectors.shape[1]:
            return [float(value) for value in pool.vectors[rows] @ query[0]]
        vectors = self._reader.vectors([text, *texts]) if texts else None
        return [float(vectors[0] @ row) for row in vectors[1:]] if vectors is not None else [None] * len(texts)

    def _nearest(self, text: str, pool: _Pool, rows: list[int], vault: Vault) -> list[int]:
        """The `SEARCHED` pool rows most similar to `text`: by the stored USE vectors when the index has them,
        else by a search."""
        query = self._reader.vectors([text]) if pool.vectors is not None else None
        if query is None or pool.vectors is None or query.shape[1] != pool.vectors.shape[1]:
            where = MemoryFilter(layers=(Layer.CORE, Layer.LONG_TERM), scopes=(vault.scope,), statuses=("active",))
            row_of = {sided.id: row for row, sided in enumerate(pool.sided)}
            hits = self._retrieval.search(text, SEARCHED, where, snippets=False).results
            return [row_of[hit.memory.id] for hit in hits if hit.memory.id in row_of and row_of[hit.memory.id] in rows]
        cosines = pool.vectors[rows] @ query[0]
        best = np.argsort(-cosines, kind="stable")[:SEARCHED]
        return [rows[int(position)] for position in best]

    @contextmanager
    def one_walk(self) -> Iterator[None]:
        """Within: each vault's core and decision folders are walked once, by the first check that reads its
        pool — for one capture, whose checks (the restatement's, the conflict check) write nothing between
        them: three walks of 1,868 files a `remember` at 10,000 memories were one (docs/design.md §12)."""
        outer = self._walked
        self._walked = set() if outer is None else outer
        try:
            yield
        finally:
            self._walked = outer

    def _pool(self, vault: Vault) -> _Pool:
        """The vault's pool, re-read when a file under the core or decision folders changed (the index
        refreshed first, for those files alone when none was removed; the stored vectors of the memories
        whose files did not change are kept, not read again)."""
        known = self._pools.get(vault.root)
        if known is not None and self._walked is not None and vault.root in self._walked:
            return known
        stats = sides_stats(vault.root)
        if self._walked is not None:
            self._walked.add(vault.root)
        if known is not None and known.stats == stats:
            return known
        index = self._store.index_for(vault)
        changed = sorted(
            path
            for path in stats.keys() | (known.stats.keys() if known else set())
            if known is None or known.stats.get(path) != stats.get(path)
        )
        removed = known is None or any(path not in stats for path in changed)
        index.refresh(paths=[folder.as_posix() for folder in SIDES_FOLDERS] if removed else changed)
        pool = _Pool(stats, _sided(index), None)
        unchanged = _unchanged_rows(known, pool.sided, set(changed)) if not removed else {}
        pool.vectors = self._stored_vectors(index, pool.sided, known, unchanged)
        self._pools[vault.root] = pool
        return pool

    def _stored_vectors(
        self,
        index: MemoryIndex,
        sided: list[Sided],
        known: _Pool | None = None,
        unchanged: dict[int, int] | None = None,
    ) -> np.ndarray | None:
        """Unit USE vectors of the pool from the index (the mean of each memory's chunks), or None when the
        index holds none or holds another model's. `unchanged`: pool row → row of `known` for the memories
        whose files did not change since `known` was read: their rows are `known`'s as they are, the rest read."""
        part = _use_part(self._store)
        if part is None or not sided or not index.has_vectors:
            return None
        kept = {}
        if known is not None and known.vectors is not None:  # a row without a vector then may have one now
            kept = {row: was for row, was in (unchanged or {}).items() if known.vectors[was].any()}
        wanted = {sided_one.id: n for n, sided_one in enumerate(sided) if n not in kept}
        sums = np.zeros((len(sided), 0), dtype=np.float32)
        for memory_id, blob in _chunk_vectors(index, list(wanted)):
            vector = np.frombuffer(blob, dtype=np.float16)[part].astype(np.float32)
            if sums.shape[1] == 0:
                sums = np.zeros((len(sided), len(vector)), dtype=np.float32)
            sums[wanted[memory_id]] += vector
        if known is not None and known.vectors is not None and kept:
            if sums.shape[1] == 0:
                sums = np.zeros((len(sided), known.vectors.shape[1]), dtype=np.float32)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            units = sums / np.where(norms > 0, norms, 1.0)
            units[list(kept)] = known.vectors[list(kept.values())]  # unit rows already: never divided again
            return units
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        return sums / np.where(norms > 0, norms, 1.0) if sums.shape[1] else None

    def of(self, memory: Memory) -> list[ConflictRecord]:
        """The active memories a written core memory or decision may contradict (none for other kinds)."""
        if not takes_sides(memory.layer, memory.category):
            return []
        vault = self._store.vault_for(memory.scope)
        return self.check(memory.body.strip() or memory.title, vault, exclude=[memory.id])

    def recorded_memories(self, memory: Memory) -> list[Memory]:
        """The memories a pending memory's `conflicts_with` names that are still active in its vault."""
        found = []
        for memory_id in conflicts_with(memory):
            try:
                other = self._memories.get(memory_id)
            except AimateError:  # removed or moved out by hand since: nothing left to contradict
                continue
            if other.status == "active" and other.scope is memory.scope:
                found.append(other)
        return found

    def recorded(self, memory: Memory) -> list[ConflictRecord]:
        """`recorded_memories`, as records (review shows them beside the pending memory)."""
        return [ConflictRecord.of(other, f"named in {CONFLICT_FIELD}") for other in self.recorded_memories(memory)]


def _unchanged_rows(known: _Pool | None, sided: list[Sided], changed: set[str]) -> dict[int, int]:
    """Pool row → `known`'s row, for the memories listed in both whose files are not among `changed`."""
    if known is None:
        return {}
    before = {(one.id, one.path): row for row, one in enumerate(known.sided) if one.path not in changed}
    return {row: before[(one.id, one.path)] for row, one in enumerate(sided) if (one.id, one.path) in before}


def _chunk_vectors(index: MemoryIndex, memory_ids: list[str]) -> list[tuple[str, bytes]]:
    """The stored vector of every chunk of these active core memories and decisions, by memory id (only those
    asked for: at 10,000 memories the pool lists 500 of 1,868, and a write changes one or two)."""
    found: list[tuple[str, bytes]] = []
    for start in range(0, len(memory_ids), CHUNK_IDS):
        part = memory_ids[start : start + CHUNK_IDS]
        found += index.conn.execute(
            "SELECT m.id, x.vec FROM memories m JOIN chunks c ON c.memory_rowid = m.rowid "
            "JOIN vectors x ON x.chunk_hash = c.chunk_hash WHERE m.status = 'active' "
            f"AND (m.layer = 'core' OR m.category = 'decision') AND m.id IN ({', '.join('?' * len(part))}) "
            "ORDER BY c.rowid",
            part,
        ).fetchall()
    return found


def _sided(index: MemoryIndex) -> list[Sided]:
    """The newest `LISTED` active core memories and decisions of an index, newest first."""
    rows = index.conn.execute(
        "SELECT id, title, path FROM memories WHERE status = 'active' AND path NOT LIKE 'archive/%' "
        "AND (layer = 'core' OR (layer = 'long_term' AND category = 'decision')) "
        "ORDER BY updated_ts DESC LIMIT ?",
        (LISTED,),
    ).fetchall()
    return [Sided(str(memory_id), str(title), str(path)) for memory_id, title, path in rows]


def _use_part(store: Store) -> slice | None:
    """Where the USE vector sits in the index's vectors: the second part of the default (auto) embedder's,
    the whole of USE's own; None for another model (then a search picks the nearest)."""
    if not store.embedder.enabled:
        return None
    embedder = store.embedder.get()
    latin = getattr(embedder, "latin", None)
    universal = getattr(embedder, "universal", None)
    if latin is not None and str(getattr(universal, "identity", "")).startswith(KIND_EMBEDDER):
        return slice(int(latin.dimension), None)
    if str(getattr(embedder, "identity", "")).startswith(KIND_EMBEDDER):
        return slice(0, None)
    return None
