"""A session transcript over `storage.max_file_bytes` (1 MiB) is indexed by its newest part, never an error."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from aimate_memory.index.refresh_scan import newest_part
from aimate_memory.system import MemorySystem

TURN_BYTES = 300_000  # four turns: a 1.2 MB transcript


@pytest.fixture
def system(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    with MemorySystem.open(global_only=True) as opened:
        opened.init()
        yield opened


def filler(words: str) -> str:
    return (words + " ") * (TURN_BYTES // len(words.encode("utf-8")))


@pytest.mark.slow
def test_a_session_over_the_file_limit_is_indexed_by_its_newest_turns(system: MemorySystem) -> None:
    system.start_session("长会话 long session")
    system.add_conversation("user", "最早的一轮：oldestmarker 部署脚本 " + filler("早期的讨论内容"), tokens=1)
    system.add_conversation("assistant", filler("the assistant kept answering at length"), tokens=1)
    system.add_conversation("user", filler("我们继续讨论缓存策略"), tokens=1)
    system.add_conversation("assistant", "最后一轮：newestmarker 改用 Redis。 " + filler("closing words"), tokens=1)
    path = system.global_vault.abs_path(PurePosixPath("sessions/current.md"))
    assert path.stat().st_size > system.global_vault.max_file_bytes
    report = system.refresh()["global"]
    assert report.errors == 0
    assert system.retrieval.stats()["global"]["errors"] == 0
    assert not [problem for problem in system.memories.diagnose() if "session" in str(problem.path)]
    assert len(system.sessions.get().turns) == 4  # the file itself is read whole
    # Once ended, the newest turns are searchable in both languages (a running session never is); the
    # oldest part is past the indexed size.
    ended = system.end_session()
    assert ended is not None
    system.refresh()
    for query in ("newestmarker", "改用 Redis"):
        assert [hit.memory.rel_path.as_posix() for hit in system.search(query).results] == [ended.path]
    assert system.search("oldestmarker").results == []


def test_newest_part_starts_at_a_whole_turn_and_fits() -> None:
    body = "".join(f"### {n} · user · 2026-01-01T00:00:00+00:00 · 1 token\n\n第 {n} 轮 turn {n}\n\n" for n in range(50))
    part = newest_part(body, 300)
    assert len(part.encode("utf-8")) <= 300 and part.startswith("### ") and part.endswith("turn 49\n\n")
    assert newest_part(body, len(body.encode("utf-8"))) == body
