"""The index's share of a long-lived process's memory (index/db.py; docs/benchmarks.md, "The daemon's memory,
third round"): the file is read through SQLite's bounded page cache, never mapped — mapped, the kernel's
fault-around made most of a 10k index resident in the daemon (307 MB against 211)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.system import MemorySystem
from aimate_memory.vault.roots import Roots

MAPS = Path("/proc/self/maps")


@pytest.fixture
def system(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemorySystem]:
    monkeypatch.setenv("AIMATE_GIT__AUTO_COMMIT", "false")
    mem = MemorySystem(Roots(home, None), embedder=LazyEmbedder({"enabled": False}))
    mem.init()
    for number in range(30):
        mem.add(f"Deploy note {number}", f"The deploy pipeline failed on run {number}; the cache was cold.")
        mem.add(f"部署记录 {number}", f"第 {number} 次部署失败，缓存没有预热。")
    mem.refresh()
    yield mem
    mem.close()


@pytest.mark.skipif(not MAPS.exists(), reason="/proc/self/maps is Linux's")
def test_searching_reads_the_index_without_mapping_it(system: MemorySystem) -> None:
    index = system.store.index_for(system.global_vault)
    for query in ("deploy pipeline", "部署 缓存"):
        assert system.search(query, 5).results
    conn = index.conn
    assert conn.execute("PRAGMA mmap_size").fetchone()[0] == 0
    assert conn.execute("PRAGMA cache_size").fetchone()[0] == -16384  # KiB: at most 16 MiB a connection
    db_path = str(index.db_path)
    mapped = [line for line in MAPS.read_text().splitlines() if line.endswith(db_path)]
    assert mapped == []  # the -shm file (WAL index) is mapped; the database file is not
