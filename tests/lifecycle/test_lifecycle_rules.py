"""Lifecycle rules with an injected clock: expire, promote (by use on several days), archive, sessions,
uses never written into files, idempotence."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePosixPath

import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.lifecycle.maintenance import run_maintenance
from aimate_memory.lifecycle.planner import Kind, Policy, plan
from aimate_memory.system import MemorySystem
from aimate_memory.vault.layout import Layer, Scope

START = datetime(2026, 1, 5, 9, 30, tzinfo=timezone(timedelta(hours=8)))


@pytest.fixture
def system(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    clock = FixedClock(START)
    with MemorySystem.open(global_only=True, clock=clock) as system:
        system.init()
        system.recorded = []  # type: ignore[attr-defined]
        system.on_change(lambda vault, changeset: system.recorded.append(changeset))  # type: ignore[attr-defined]
        yield system


def files(system: MemorySystem) -> dict[str, bytes]:
    root = system.global_vault.root
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def by_id(system: MemorySystem, memory_id: str):
    found = [m for m in system.global_vault.scan().memories if m.id == memory_id]
    assert len(found) == 1, found
    return found[0]


def test_short_term_expires_into_archive_after_its_ttl(system: MemorySystem) -> None:
    task = system.add("明天修复登录页 bug", "TODO: 修复登录页面的 bug", layer=Layer.SHORT_TERM, category="task")
    note = system.add("Short note", "English note, longer TTL", layer=Layer.SHORT_TERM, ttl_days=30)
    system.clock.advance(days=13)  # type: ignore[attr-defined]
    assert [run.actions for run in run_maintenance(system.store)] == [[]]
    system.clock.advance(days=1, seconds=1)  # type: ignore[attr-defined]
    [run] = run_maintenance(system.store)
    assert [(a.kind, a.memory_id) for a in run.actions] == [(Kind.EXPIRE, task.id)]
    expired = by_id(system, task.id)
    assert expired.rel_path == PurePosixPath("archive") / task.rel_path
    assert expired.status == "expired" and expired.archived
    assert not system.global_vault.abs_path(task.rel_path).exists()
    assert by_id(system, note.id).rel_path == note.rel_path
    assert run.changeset is not None and run.changeset.subject == "maintenance: expired 1"
    # The index followed: the expired task no longer shows up in (default, live-only) search.
    assert [hit.memory.id for hit in system.search("登录").results] == []


def test_hand_made_short_term_file_without_expiry_uses_created_at_plus_ttl(system: MemorySystem) -> None:
    path = system.global_vault.root / "short_term/notes/手写.md"
    path.write_text("---\ncreated_at: 2025-12-01T10:00:00+08:00\n---\n# 手写的临时笔记\n", encoding="utf-8")
    system.git.commit("memory: a hand-made note")  # reviewed: an uncommitted one would be left alone
    [run] = run_maintenance(system.store)
    [action] = run.actions
    assert action.kind == Kind.EXPIRE and "2025-12-15" in action.reason
    moved = system.global_vault.root / "archive/short_term/notes/手写.md"
    assert moved.exists() and not path.exists()
    # The path-derived id was written, so the memory keeps its identity after the move.
    assert f"id: {action.memory_id}" in moved.read_text(encoding="utf-8")


def use_on_days(system: MemorySystem, memory_id: str, days: int, per_day: int = 2) -> None:
    """`per_day` explicit reads (`read`: get/show) on each of `days` days, the clock moving a day between."""
    for day in range(days):
        if day:
            system.clock.advance(days=1)  # type: ignore[attr-defined]
        for _ in range(per_day):
            system.read(memory_id)


@pytest.mark.parametrize(
    ("category", "folder", "expected", "title"),
    [("note", "knowledge", "knowledge", "Use Redis 做会话缓存"), ("context", "knowledge", "knowledge", "项目背景说明")],
)
def test_promotion_needs_uses_on_several_days(
    system: MemorySystem, category: str, folder: str, expected: str, title: str
) -> None:
    memory = system.add(title, "We chose Redis.", layer=Layer.SHORT_TERM, category=category)
    before = files(system)
    use_on_days(system, memory.id, days=2, per_day=3)  # 6 uses, but on 2 days: one stretch of work
    [run] = run_maintenance(system.store)
    assert run.actions == [] and not run.changeset
    assert files(system) == before  # reads never write a file
    system.clock.advance(days=1)  # type: ignore[attr-defined]
    system.read(memory.id)  # the third day
    [run] = run_maintenance(system.store)
    assert [a.kind for a in run.actions] == [Kind.PROMOTE]
    assert "used 7 times on 3 days" in run.actions[0].reason
    promoted = by_id(system, memory.id)
    assert promoted.layer is Layer.LONG_TERM and promoted.category == expected
    assert promoted.rel_path.parts[:2] == ("long_term", folder)
    assert promoted.expires_at is None and promoted.doc.get("expires_at") is None
    assert promoted.source == "promotion"
    assert promoted.doc.get("access_count") is None and promoted.doc.get("accessed_at") is None
    assert run.changeset is not None and run.changeset.subject == "maintenance: promoted 1"


@pytest.mark.parametrize("title", ["TODO: add pagination to /users", "待办：给 /users 接口加分页"])
def test_a_task_shown_everywhere_and_read_often_is_never_promoted(system: MemorySystem, title: str) -> None:
    """Issue 39: a task shown in 5 session starts and 5 searches was "accessed 5 times: task → project"."""
    task = system.add(title, title, layer=Layer.SHORT_TERM, category="task")
    system.refresh()
    before = files(system)
    for _ in range(5):
        assert title in system.build_context(title).text
        assert [hit.memory.id for hit in system.search(title).results] == [task.id]
    [run] = run_maintenance(system.store)
    assert run.actions == [] and files(system) == before  # shown is not used; and nothing was written
    assert system.store.journal_for(system.global_vault).tally() == {}
    use_on_days(system, task.id, days=5)  # even read on five days, a task stays a task
    [run] = run_maintenance(system.store)
    assert run.actions == [] and by_id(system, task.id).layer is Layer.SHORT_TERM


def test_promotion_wins_over_expiry(system: MemorySystem) -> None:
    memory = system.add("常用命令 cheat sheet", "pytest -q", layer=Layer.SHORT_TERM, category="note")
    use_on_days(system, memory.id, days=3)
    system.clock.advance(days=30)  # type: ignore[attr-defined]
    [run] = run_maintenance(system.store)
    assert [a.kind for a in run.actions] == [Kind.PROMOTE]


def test_long_term_archived_after_days_unused_unless_important_or_used(system: MemorySystem) -> None:
    old = system.add("旧的部署流程", "用 fabric 部署", layer=Layer.LONG_TERM, importance=3)
    key = system.add("Production database password rotation", "Quarterly.", layer=Layer.LONG_TERM, importance=4)
    used = system.add("Code review checklist", "Tests first.", layer=Layer.LONG_TERM, importance=2)
    system.clock.advance(days=60)  # type: ignore[attr-defined]
    system.read(used.id)
    assert run_maintenance(system.store)[0].actions == []  # the use stays in the journal, not in the file
    system.clock.advance(days=30)  # type: ignore[attr-defined]  # 90 days since `old` was written
    [run] = run_maintenance(system.store)
    assert [(a.kind, a.memory_id) for a in run.actions] == [(Kind.ARCHIVE, old.id)]
    assert "unused for 90 days" in run.actions[0].reason
    archived = by_id(system, old.id)
    assert archived.status == "archived" and archived.rel_path.parts[0] == "archive"
    assert by_id(system, key.id).rel_path == key.rel_path  # importance 4 is exempt
    assert by_id(system, used.id).rel_path == used.rel_path  # used 30 days ago
    system.clock.advance(days=60)  # type: ignore[attr-defined]
    [run] = run_maintenance(system.store)
    assert [a.memory_id for a in run.actions] == [used.id]


def test_ended_sessions_move_to_their_month_folder(system: MemorySystem) -> None:
    sessions = system.global_vault.root / "sessions"
    sessions.mkdir(exist_ok=True)
    ended = sessions / "20251230_221500_ab12cd34.md"
    ended.write_text(
        "---\nid: s-ended\nstarted_at: 2025-12-30T22:15:00+08:00\nstatus: ended\n---\n# 会话\n\nuser: 你好\n",
        encoding="utf-8",
    )
    ended_at = sessions / "20260102_080000_ef56ab78.md"
    ended_at.write_text(
        "---\nid: s-ended-at\nstarted_at: 2026-01-02T08:00:00+08:00\nended_at: 2026-01-02T09:00:00+08:00\n---\n"
        "# Session\n\nuser: hello\n",
        encoding="utf-8",
    )
    live = sessions / "20260105_090000_00aa11bb.md"
    live.write_text("---\nid: s-live\nstatus: active\n---\n# Session\n", encoding="utf-8")
    current = sessions / "current.md"
    current.write_text("---\nid: s-current\nstatus: ended\n---\n# current\n", encoding="utf-8")
    [run] = run_maintenance(system.store)
    assert sorted(a.memory_id for a in run.actions) == ["s-ended", "s-ended-at"]
    assert (sessions / "2025-12/20251230_221500_ab12cd34.md").exists() and not ended.exists()
    assert (sessions / "2026-01/20260102_080000_ef56ab78.md").exists() and not ended_at.exists()
    assert live.exists() and current.exists()
    moved = by_id(system, "s-ended")
    assert moved.layer is Layer.SESSION and moved.status == "archived"
    assert run_maintenance(system.store)[0].actions == []


def test_reads_never_write_files_and_legacy_counts_are_read(system: MemorySystem) -> None:
    """Uses live in the state folder; a file that carries access_count/accessed_at (an older version wrote
    them) is read as it is and never rewritten for a read."""
    a = system.add("选用 Redis 做会话缓存", "因为快", layer=Layer.LONG_TERM, category="decision")
    b = system.add("Prefer tabs", "in Go code", layer=Layer.CORE, category="preference")
    legacy = system.global_vault.abs_path(a.rel_path)
    legacy.write_text(
        legacy.read_text(encoding="utf-8").replace("status: active", "status: active\naccess_count: 7"),
        encoding="utf-8",
    )
    system.git.commit("memory: an older version's counts")
    system.clock.advance(days=2)  # type: ignore[attr-defined]
    assert by_id(system, a.id).access_count == 7  # read (back-compat)
    before, history = files(system), system.timeline().events
    system.recorded.clear()  # type: ignore[attr-defined]
    for memory_id in (a.id, b.id, a.id):
        system.read(memory_id)
    system.build_context("Redis")
    [run] = run_maintenance(system.store)
    assert run.actions == [] and files(system) == before
    assert [c for c in system.recorded if c.changes] == []  # type: ignore[attr-defined]
    assert system.timeline().events == history  # no "edit" nobody made
    tallies = system.store.journal_for(system.global_vault).tally()
    assert (tallies[a.id].count, tallies[b.id].count) == (2, 1)
    assert tallies[a.id].last == system.clock.now()


def test_dry_run_changes_nothing_and_a_second_run_does_nothing(system: MemorySystem) -> None:
    task = system.add("整理周报", "每周五", layer=Layer.SHORT_TERM, category="task")
    old = system.add("Legacy build notes", "make all", layer=Layer.LONG_TERM)
    system.read(old.id)
    system.clock.advance(days=200)  # type: ignore[attr-defined]
    state = system.roots.home / "state"
    before, journal_before = files(system), (state / "access.jsonl").read_bytes()
    system.recorded.clear()  # type: ignore[attr-defined]
    [dry] = run_maintenance(system.store, dry_run=True)
    assert [a.kind for a in dry.actions] == [Kind.EXPIRE, Kind.ARCHIVE]
    assert files(system) == before and (state / "access.jsonl").read_bytes() == journal_before
    assert system.recorded == []  # type: ignore[attr-defined]
    [real] = run_maintenance(system.store)
    assert [a.to_dict() for a in real.actions] == [a.to_dict() for a in dry.actions]
    assert by_id(system, task.id).status == "expired"
    after = files(system)
    [second] = run_maintenance(system.store)
    assert second.actions == [] and not second.changeset and files(system) == after


def test_planner_is_pure_and_ordered(system: MemorySystem) -> None:
    system.add("过期的任务", "x", layer=Layer.SHORT_TERM, category="task", ttl_days=1)
    system.add("Old knowledge", "y", layer=Layer.LONG_TERM)
    memories = system.global_vault.scan().memories
    later = START + timedelta(days=365)
    first = plan(memories, {}, later, Policy())
    assert [a.kind for a in first] == [Kind.EXPIRE, Kind.ARCHIVE]
    assert [a.to_dict() for a in plan(memories, {}, later, Policy())] == [a.to_dict() for a in first]
    assert plan(memories, {}, START, Policy()) == []
    assert all(m.scope is Scope.GLOBAL for m in memories)
