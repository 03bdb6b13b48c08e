"""A vault's first index is built beside its place and swapped in whole: until then there is no index file, so a
reader in another process reads the files — never an empty file it takes for an index.

CI failed once on this (stop 48): a detached `hook session-end` built a new project's first index while `aimate
mem session show ID` located the ended session, found `index.db` present (the refresher had created it empty by
asking it what it was built with) and failed with "no such table: memories"."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.system import MemorySystem
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer
from aimate_memory.vault.roots import Roots

NOTES = [
    ("部署脚本改用 uv", "我们把部署脚本从 pip 改成了 uv，构建快了三倍。"),
    ("Deploy with uv", "The deploy script switched from pip to uv; builds are three times faster."),
]


def index_files(home: Path) -> list[Path]:
    index = Roots.index_path(home)
    return list(index.parent.glob(index.name + "*"))


def keyword_system(home: Path) -> MemorySystem:
    return MemorySystem(Roots(home, None), embedder=LazyEmbedder({"enabled": False}))


@pytest.fixture
def written(home: Path) -> list[str]:
    """Two memories on disk and no index file yet (a fresh vault whose first sync has not run)."""
    system = keyword_system(home)
    system.init()
    ids = [system.add(title, body, layer=Layer.LONG_TERM).id for title, body in NOTES]
    system.close()
    for leftover in index_files(home):
        leftover.unlink()
    return ids


def test_asking_what_a_missing_index_was_built_with_creates_no_file(home: Path, written: list[str]) -> None:
    system = keyword_system(home)
    try:
        (index,) = system.store.indexes
        assert index.identity() is None and index.needs_rebuild() == "no index yet"
        assert not index.exists and not index_files(home)
    finally:
        system.close()


def test_a_reader_during_the_first_build_reads_the_files(home: Path, written: list[str]) -> None:
    builder, reader = keyword_system(home), keyword_system(home)
    seen_during_build: list[tuple[bool, list[str], list[str]]] = []

    def read_meanwhile(phase: str, done: int, total: int) -> None:
        """In the build, between its batches. (A read that needs the index, a list, would wait for the build's
        lock: in another process it waits its end, here it would wait for ever.)"""
        if seen_during_build:
            return
        by_id = [reader.memories.get(memory_id).title for memory_id in written]
        by_title = [reader.memories.get(title).id for title, _ in NOTES]
        seen_during_build.append((Roots.index_path(home).exists(), by_id, by_title))

    try:
        builder.refresh(progress=read_meanwhile)
        assert seen_during_build, "the build reported no progress to read during"
        index_there, by_id, by_title = seen_during_build[0]
        assert not index_there  # the first build is not in place until it is whole
        assert by_id == [title for title, _ in NOTES] and by_title == written  # read from the files
        listed = {memory.title for memory in reader.memories.list(MemoryFilter())}
        assert {title for title, _ in NOTES} <= listed  # the swapped-in index, read by the same reader
    finally:
        builder.close()
        reader.close()
