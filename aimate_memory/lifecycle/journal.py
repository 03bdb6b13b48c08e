"""The access journal: recalls are appended here instead of rewriting memory files (docs/design.md §5).

One JSON line per returned memory, appended with O_APPEND (atomic for lines this short, so concurrent
CLIs and the daemon never interleave). Maintenance folds it into `access_count`/`accessed_at` in
frontmatter, one batch per run. It lives in `state/`, so it survives deleting `index.db`.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from aimate_memory.locks import file_lock
from aimate_memory.vault.model import to_datetime


@dataclass(frozen=True)
class AccessTally:
    count: int
    last: datetime


class AccessJournal:
    def __init__(self, path: Path) -> None:
        self.path = path

    def record(self, memory_ids: Iterable[str], at: datetime) -> None:
        lines = "".join(
            json.dumps({"id": memory_id, "at": at.isoformat(timespec="seconds")}) + "\n" for memory_id in memory_ids
        )
        if not lines:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.lock():
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, lines.encode("utf-8"))
            finally:
                os.close(fd)

    def tally(self) -> tuple[dict[str, AccessTally], int]:
        """Counts per id and the byte offset read up to (for `consume`). Torn or foreign lines are skipped."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}, 0
        end = data.rfind(b"\n") + 1  # a line still being written is left for the next run
        tallies: dict[str, AccessTally] = {}
        for raw in data[:end].splitlines():
            try:
                entry = json.loads(raw)
                memory_id, at = str(entry["id"]), to_datetime(entry["at"])
            except (ValueError, KeyError, TypeError):
                continue
            if at is None:
                continue
            previous = tallies.get(memory_id)
            if previous is None:
                tallies[memory_id] = AccessTally(1, at)
            else:
                tallies[memory_id] = AccessTally(previous.count + 1, max(previous.last, at))
        return tallies, end

    def consume(self, offset: int) -> None:
        """Drop the first `offset` bytes (folded into frontmatter), keeping anything appended since."""
        with self.lock():
            try:
                data = self.path.read_bytes()
            except FileNotFoundError:
                return
            tmp = self.path.with_suffix(".tmp")
            tmp.write_bytes(data[offset:])
            os.replace(tmp, self.path)

    def lock(self) -> contextlib.AbstractContextManager[None]:
        # A lock file beside the journal, not the journal itself: `consume` and maintenance replace the
        # journal, and a writer blocked on the old inode would append to a file nobody reads again.
        return file_lock(self.path.with_suffix(".lock"))
