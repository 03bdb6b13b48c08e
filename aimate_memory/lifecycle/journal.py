"""The use journal: explicit reads of a memory, kept in the state folder, never in the memory's file
(docs/design.md §5, docs/lifecycle.md "Uses").

A use is an explicit read — `get`/`show`, an MCP `memory_get`, an edit — never an appearance in a context or
a list of search results. One JSON line per use (`{"id", "at"}`), appended with O_APPEND (atomic for lines
this short, so concurrent CLIs and the daemon never interleave). The journal is the record of uses: the
lifecycle reads it whole (promotion, archive), nothing folds it into a file, so reading a memory never
changes what git and review show. It lives in `state/`, so it survives deleting `index.db`; a line may carry
`"n"` (how many uses it stands for), which `compact` writes: one line per memory and day.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from aimate_memory.locks import file_lock
from aimate_memory.vault.atomic import atomic_write_text
from aimate_memory.vault.model import to_datetime

# The last counts read per journal, with the (size, mtime) they were read at (AccessJournal.counts).
_COUNTS: dict[Path, tuple[tuple[int, int], dict[str, int]]] = {}


@dataclass(frozen=True)
class AccessTally:
    """A memory's uses: how many, the last one, and the days they fell on (promotion wants several)."""

    count: int
    last: datetime
    days: frozenset[date] = frozenset()

    def plus(self, other: AccessTally) -> AccessTally:
        return AccessTally(self.count + other.count, max(self.last, other.last), self.days | other.days)


class AccessJournal:
    def __init__(self, path: Path) -> None:
        self.path = path

    def record(self, memory_ids: Iterable[str], at: datetime) -> None:
        lines = "".join(_line(memory_id, at) for memory_id in memory_ids)
        if lines:
            self.append(lines)

    def append(self, lines: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.lock():
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, lines.encode("utf-8"))
            finally:
                os.close(fd)

    def tally(self) -> dict[str, AccessTally]:
        """Uses per memory id. Torn or foreign lines are skipped; a line still being written is left out."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        tallies: dict[str, AccessTally] = {}
        for raw in data[: data.rfind(b"\n") + 1].splitlines():
            use = _parse(raw)
            if use is not None:
                memory_id, tally = use
                before = tallies.get(memory_id)
                tallies[memory_id] = tally if before is None else before.plus(tally)
        return tallies

    def counts(self) -> dict[str, int]:
        """Uses per memory id, for the ranking's use factor (a search reads it every time: kept while the
        journal's size and mtime stay the same, which an append or a compaction changes)."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return {}
        signature = (stat.st_size, stat.st_mtime_ns)
        cached = _COUNTS.get(self.path)
        if cached is None or cached[0] != signature:
            cached = (signature, {memory_id: tally.count for memory_id, tally in self.tally().items()})
            _COUNTS[self.path] = cached
        return cached[1]

    def compact(self) -> None:
        """Rewrite the journal as one line per memory and day (same tallies, far fewer lines). Under the lock,
        so a use recorded meanwhile waits and is appended to the new file."""
        with self.lock():
            try:
                data = self.path.read_bytes()
            except FileNotFoundError:
                return
            days: dict[tuple[str, date], tuple[int, datetime]] = {}
            for raw in data[: data.rfind(b"\n") + 1].splitlines():
                use = _parse(raw)
                if use is None:
                    continue
                memory_id, tally = use
                key = (memory_id, tally.last.date())
                count, last = days.get(key, (0, tally.last))
                days[key] = (count + tally.count, max(last, tally.last))
            lines = [_line(memory_id, last, count) for (memory_id, _), (count, last) in sorted(days.items())]
            atomic_write_text(self.path, "".join(lines))

    def lock(self) -> contextlib.AbstractContextManager[None]:
        # A lock file beside the journal, not the journal itself: `compact` replaces the journal, and a
        # writer blocked on the old inode would append to a file nobody reads again.
        return file_lock(self.path.with_suffix(".lock"))


def _line(memory_id: str, at: datetime, count: int = 1) -> str:
    entry: dict[str, object] = {"id": memory_id, "at": at.isoformat(timespec="seconds")}
    if count != 1:
        entry["n"] = count
    return json.dumps(entry) + "\n"


def _parse(raw: bytes) -> tuple[str, AccessTally] | None:
    try:
        entry = json.loads(raw)
        memory_id, at, count = str(entry["id"]), to_datetime(entry["at"]), int(entry.get("n", 1))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if at is None or count < 1:
        return None
    return memory_id, AccessTally(count, at, frozenset({at.date()}))
