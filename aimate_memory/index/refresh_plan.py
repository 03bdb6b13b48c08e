"""Refresh planning as pure functions: what changed on disk since the index last saw it (docs/design.md §6).

Two steps, with the file reads in between done by the caller:
1. `plan_reads`: from stats alone, which files must be read (new or `(mtime_ns, size)` changed) and which
   indexed paths vanished. Unchanged files are never opened.
2. `plan_refresh`: from what the reads found (content hash, memory id or error), what to write: stat-only
   touches, upserts, moves (same id at a new path, found by id: no re-embedding), deletions, errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple


# One of each per file on every refresh: immutable records as NamedTuples, which build several times faster
# than frozen dataclasses (making 100k of both was a quarter of an unchanged refresh at 100k files).
class FileStat(NamedTuple):
    path: str  # vault-relative, POSIX
    mtime_ns: int
    size: int


class IndexedFile(NamedTuple):
    path: str
    id: str
    mtime_ns: int
    size: int
    file_hash: str


DUPLICATE_ID = "DuplicateId"


@dataclass(frozen=True)
class ErrorRecord:
    path: str
    mtime_ns: int
    size: int
    kind: str = ""  # the error's kind (file_errors.kind): "DuplicateId" depends on other files, not on this one


@dataclass(frozen=True)
class ReadResult:
    """A file that was read: its hash and, unless it is broken, the id of the memory it holds."""

    stat: FileStat
    file_hash: str
    memory_id: str | None
    error: str | None = None

    @property
    def path(self) -> str:
        return self.stat.path


@dataclass
class ReadPlan:
    to_read: list[FileStat] = field(default_factory=list)
    unchanged: int = 0
    vanished: list[str] = field(default_factory=list)


@dataclass
class RefreshPlan:
    touch: list[ReadResult] = field(default_factory=list)  # same bytes, new stat
    upsert: list[ReadResult] = field(default_factory=list)  # new or changed content
    moves: list[tuple[str, ReadResult]] = field(default_factory=list)  # (old path, file at new path)
    delete: list[str] = field(default_factory=list)
    errors: list[ReadResult] = field(default_factory=list)  # keep the last good entry, record why
    duplicates: list[tuple[ReadResult, str]] = field(default_factory=list)  # (file, path holding the id)
    cleared_errors: list[str] = field(default_factory=list)

    @property
    def changes(self) -> int:
        return len(self.touch) + len(self.upsert) + len(self.moves) + len(self.delete) + len(self.errors)


def plan_reads(
    disk: Mapping[str, FileStat],
    indexed: Mapping[str, IndexedFile],
    errors: Mapping[str, ErrorRecord],
) -> ReadPlan:
    plan = ReadPlan()
    for path, stat in disk.items():
        known = indexed.get(path)
        failed = errors.get(path)
        if (
            failed is not None
            and failed.kind != DUPLICATE_ID
            and (failed.mtime_ns, failed.size) == (stat.mtime_ns, stat.size)
        ):
            plan.unchanged += 1  # still the same broken bytes: not re-read every refresh
        elif failed is not None and failed.kind == DUPLICATE_ID:
            # Read again every refresh: the other holder of its id may be gone. A move seen half-way (the new
            # file written, the old one not yet removed) had otherwise kept the moved memory out of the
            # index for good (tests/reliability/test_concurrent_writers.py).
            plan.to_read.append(stat)
        elif failed is None and known is not None and (known.mtime_ns, known.size) == (stat.mtime_ns, stat.size):
            plan.unchanged += 1
        else:
            plan.to_read.append(stat)
    plan.vanished = sorted(path for path in indexed if path not in disk)
    return plan


def plan_refresh(
    reads: list[ReadResult],
    indexed: Mapping[str, IndexedFile],
    vanished: list[str],
    errors: Mapping[str, ErrorRecord],
) -> RefreshPlan:
    plan = RefreshPlan()
    path_of_id = {entry.id: path for path, entry in indexed.items()}
    vanished_set = set(vanished)
    claimed: dict[str, str] = {}  # id → path, for ids seen in this batch
    new_id_of = {read.path: read.memory_id for read in reads}

    def held_elsewhere(holder: str | None, memory_id: str, path: str) -> bool:
        """Whether another file still holds `memory_id`: its indexed holder is on disk and, if it was read
        again, still says so (two files swapping ids are then no duplicates)."""
        if holder is None or holder == path or holder in vanished_set:
            return False
        return new_id_of.get(holder, memory_id) == memory_id

    for read in sorted(reads, key=lambda r: r.path):
        if read.memory_id is None:
            plan.errors.append(read)
            continue
        if read.path in errors:
            plan.cleared_errors.append(read.path)
        known = indexed.get(read.path)
        holder = path_of_id.get(read.memory_id)
        # A file that takes an id another file holds is the duplicate, whether it is new or was indexed
        # under another id (found by tests/properties: it had taken over the other file's entry).
        if read.memory_id in claimed or held_elsewhere(holder, read.memory_id, read.path):
            plan.duplicates.append((read, claimed.get(read.memory_id) or holder or ""))
            continue
        claimed[read.memory_id] = read.path
        if known is not None and known.id == read.memory_id and known.file_hash == read.file_hash:
            plan.touch.append(read)
        elif known is None and holder is not None and holder in vanished_set:
            vanished_set.discard(holder)
            plan.moves.append((holder, read))
            if indexed[holder].file_hash != read.file_hash:
                plan.upsert.append(read)  # moved and edited: re-chunk; unchanged chunks keep their vectors
        else:
            plan.upsert.append(read)
    plan.delete = sorted(vanished_set)
    return plan
