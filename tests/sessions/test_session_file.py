"""`sessions/current.md` on real files: start/append/read/end/list, trimming into a context memory,
compatibility with the vault, the lifecycle planner and `aimate mem list`, and concurrent appenders."""

from __future__ import annotations

import multiprocessing
from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePosixPath

import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.lifecycle.planner import Kind, Policy, plan
from aimate_memory.sessions import NoSessionError, SessionActiveError, SessionFile, SessionSettings, parse_turns
from aimate_memory.text.estimate import prompt_tokens
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.store import Vault

T0 = datetime(2026, 11, 24, 10, 0, tzinfo=timezone(timedelta(hours=8)))
SMALL = SessionSettings(
    max_tokens=100, warning_ratio=0.7, critical_ratio=0.85, trim_target_ratio=0.5, protected_rounds=1
)


def _session(root: Path, settings: SessionSettings | None = None, clock: FixedClock | None = None) -> SessionFile:
    vault = Vault(root / "memory", Scope.PROJECT, 1_048_576, clock or FixedClock(T0))
    return SessionFile(vault, root / "state", settings)


def test_start_append_read_round_trip(tmp_path: Path) -> None:
    session = _session(tmp_path)
    started = session.start("登录重构 login refactor")
    assert started.title == "登录重构 login refactor" and started.turns == [] and started.status == "active"
    texts = ["我们决定用 Redis。\n---\n### 9 · user · x · 1 tokens", "```\ncode\n```\n# heading", "plain English"]
    for role, text in zip(["user", "assistant", "user"], texts, strict=True):
        session.append(role, text)
    snapshot = session.read()
    assert snapshot is not None and [turn.text for turn in snapshot.turns] == texts
    assert snapshot.turns[2].tokens == prompt_tokens("plain English")  # the index's estimator when not given
    assert session.append("assistant", "ok", tokens=7).number == 4
    memory = session.vault.load(PurePosixPath("sessions/current.md"))
    assert (memory.layer, memory.category, memory.status, memory.provisional_id) == (
        Layer.SESSION,
        "session",
        "active",
        False,
    )
    assert memory.problems == [] and not memory.hand_edited
    assert memory.doc is not None and memory.doc.get("turns") == 4 and memory.doc.get("window_start") == 0


def test_start_refuses_an_active_session_unless_replacing(tmp_path: Path) -> None:
    session = _session(tmp_path)
    first = session.start("one")
    with pytest.raises(SessionActiveError) as refused:
        session.start("two")
    assert refused.value.hint and first.id[:8] in refused.value.message
    second = session.start("two", replace=True)
    assert second.id != first.id
    assert [memory.title for memory in session.list()] == ["one"]


def test_append_without_a_session_starts_one(tmp_path: Path) -> None:
    session = _session(tmp_path)
    assert session.read() is None
    session.append("user", "hello")
    snapshot = session.read()
    assert snapshot is not None and snapshot.title.startswith("Session 2026-11-24")


def test_trimming_summarizes_into_a_context_memory_and_keeps_the_transcript(tmp_path: Path) -> None:
    session = _session(tmp_path, SMALL)
    session.start("缓存讨论")
    session.append("system", "You are a helpful assistant.", tokens=10)
    results = []
    exchanges = [
        ("我们决定用 Redis 做会话缓存，过期时间 30 分钟。", "好的，配置在 config/cache.yaml。"),
        ("We chose SQLite for the index.", "Noted: aimate_memory/index/db.py holds the schema."),
        ("下一个问题？", "请说。"),
    ]
    for question, answer in exchanges:
        results.append(session.append("user", question, tokens=15))
        results.append(session.append("assistant", answer, tokens=15))
    trimmed = [result for result in results if result.trim is not None]
    assert len(trimmed) == 1
    result = trimmed[0]
    assert result.summary is not None and result.trim is not None
    summary = session.vault.load(result.summary.rel_path)
    assert summary.rel_path.parent == PurePosixPath("short_term/contexts") and summary.category == "context"
    assert summary.doc is not None and summary.doc.get("source_session") == session.read().id
    assert summary.doc.get("turn_range") == "2-5" and summary.expires_at is not None
    assert "Redis" in summary.body and "SQLite" in summary.body
    snapshot = session.read()
    assert snapshot is not None and len(snapshot.turns) == 7  # nothing deleted from the transcript
    assert snapshot.window_start == result.trim.new_window_start == 5
    assert snapshot.window[0].role == "system"  # system turns stay in the window
    assert snapshot.summaries == [summary.id]
    assert snapshot.window_tokens <= 0.5 * SMALL.max_tokens


def test_warning_before_critical(tmp_path: Path) -> None:
    session = _session(tmp_path, SessionSettings(max_tokens=100, protected_rounds=3))
    assert session.append("user", "a", tokens=50).warnings == []
    assert session.append("assistant", "b", tokens=25).warnings == [
        "session window at 75% of 100 tokens: approaching the limit"
    ]


def test_end_renames_and_maintenance_archives_it(tmp_path: Path) -> None:
    clock = FixedClock(T0)
    session = _session(tmp_path, clock=clock)
    session.start("Auth review")
    session.append("user", "check the tokens")
    clock.advance(hours=1)
    ended = session.end()
    assert ended.rel_path == PurePosixPath("sessions/20261124_session_auth-review.md")
    assert ended.status == "ended" and ended.doc is not None and ended.doc.get("ended_at") is not None
    assert session.read() is None
    assert len(parse_turns(ended.body)) == 1
    with pytest.raises(NoSessionError):
        session.end()
    actions = plan(session.vault.scan().memories, {}, clock.now(), Policy())
    assert [(action.kind, action.target_rel_path) for action in actions] == [
        (Kind.ARCHIVE_SESSION, PurePosixPath("sessions/2026-11/20261124_session_auth-review.md"))
    ]
    assert [memory.id for memory in session.list()] == [ended.id]


def test_aimate_mem_list_shows_the_session(cli, initialized, home: Path) -> None:
    vault = Vault(home / "memory", Scope.GLOBAL, 1_048_576)
    session = SessionFile(vault, home / "state")
    session.append("user", "我们决定用 Redis。")
    listed = cli("mem", "list", "--layer", "session", "--json")
    assert listed.code == 0, listed.err
    [entry] = listed.json()
    assert entry["path"] == "sessions/current.md" and entry["layer"] == "session"
    assert cli("mem", "diagnose").code == 0


def _append_many(root: str, worker: int, count: int) -> None:
    session = SessionFile(Vault(Path(root) / "memory", Scope.PROJECT, 1_048_576), Path(root) / "state")
    for index in range(count):
        session.append("user" if index % 2 == 0 else "assistant", f"worker {worker} 第 {index} 条 message")


def test_two_processes_appending_at_once_lose_nothing(tmp_path: Path) -> None:
    _session(tmp_path).start("并发 concurrency")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(str(tmp_path), worker, 25)) for worker in (1, 2)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
        assert process.exitcode == 0
    snapshot = _session(tmp_path).read()
    assert snapshot is not None
    texts = sorted(turn.text for turn in snapshot.turns)
    assert texts == sorted(f"worker {w} 第 {i} 条 message" for w in (1, 2) for i in range(25))
    memory = _session(tmp_path).vault.load(PurePosixPath("sessions/current.md"))
    assert memory.doc is not None and memory.doc.get("turns") == 50
