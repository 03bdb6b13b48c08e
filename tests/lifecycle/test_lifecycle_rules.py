"""Lifecycle rules with an injected clock: expire, promote, archive, sessions, journal fold, idempotence."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePosixPath

import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.lifecycle.maintenance import run_maintenance
from aimate_memory.lifecycle.planner import Kind, Policy, plan
from aimate_memory.system import MemorySystem
from aimate_memory.vault.changes import ChangeSet
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


@pytest.mark.parametrize(
    ("category", "folder", "expected"),
    [("note", "knowledge", "knowledge"), ("task", "projects", "project"), ("context", "knowledge", "knowledge")],
)
def test_promotion_by_journaled_use(system: MemorySystem, category: str, folder: str, expected: str) -> None:
    memory = system.add("Use Redis 做会话缓存", "We chose Redis.", layer=Layer.SHORT_TERM, category=category)
    journal = system.store.journal_for(system.global_vault)
    journal.record([memory.id] * 4, system.clock.now())
    assert [a.kind for a in run_maintenance(system.store)[0].actions] == [Kind.FOLD]
    assert by_id(system, memory.id).access_count == 4
    system.clock.advance(hours=1)  # type: ignore[attr-defined]
    journal.record([memory.id], system.clock.now())
    [run] = run_maintenance(system.store)
    assert [a.kind for a in run.actions] == [Kind.PROMOTE]
    promoted = by_id(system, memory.id)
    assert promoted.layer is Layer.LONG_TERM and promoted.category == expected
    assert promoted.rel_path.parts[:2] == ("long_term", folder)
    assert promoted.expires_at is None and promoted.doc.get("expires_at") is None
    assert promoted.source == "promotion" and promoted.access_count == 5
    assert promoted.accessed_at == system.clock.now()
    assert run.changeset is not None and run.changeset.subject == "maintenance: promoted 1"
    assert journal.tally()[0] == {}


def test_promotion_wins_over_expiry(system: MemorySystem) -> None:
    memory = system.add("常用命令 cheat sheet", "pytest -q", layer=Layer.SHORT_TERM, category="note")
    system.store.journal_for(system.global_vault).record([memory.id] * 5, system.clock.now())
    system.clock.advance(days=30)  # type: ignore[attr-defined]
    [run] = run_maintenance(system.store)
    assert [a.kind for a in run.actions] == [Kind.PROMOTE]


def test_long_term_archived_after_days_unused_unless_important_or_used(system: MemorySystem) -> None:
    old = system.add("旧的部署流程", "用 fabric 部署", layer=Layer.LONG_TERM, importance=3)
    key = system.add("Production database password rotation", "Quarterly.", layer=Layer.LONG_TERM, importance=4)
    used = system.add("Code review checklist", "Tests first.", layer=Layer.LONG_TERM, importance=2)
    system.clock.advance(days=60)  # type: ignore[attr-defined]
    system.store.journal_for(system.global_vault).record([used.id], system.clock.now())
    assert [a.kind for a in run_maintenance(system.store)[0].actions] == [Kind.FOLD]  # the use is folded
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


def test_journal_folds_in_one_batch_without_touching_updated_at(system: MemorySystem) -> None:
    a = system.add("选用 Redis 做会话缓存", "因为快", layer=Layer.LONG_TERM, category="decision")
    b = system.add("Prefer tabs", "in Go code", layer=Layer.CORE, category="preference")
    system.clock.advance(days=2)  # type: ignore[attr-defined]
    assert [hit.memory.id for hit in system.refresh() and system.search("Redis 会话").results] == [a.id]
    system.store.journal_for(system.global_vault).record([a.id, b.id, a.id], system.clock.now())
    system.recorded.clear()  # type: ignore[attr-defined]
    [run] = run_maintenance(system.store)
    assert sorted(x.kind for x in run.actions) == [Kind.FOLD, Kind.FOLD]
    after_a, after_b = by_id(system, a.id), by_id(system, b.id)
    assert (after_a.access_count, after_b.access_count) == (2, 1)  # the search above is not a use
    assert after_a.updated_at == a.updated_at and after_a.accessed_at == system.clock.now()
    [changeset] = system.recorded  # type: ignore[attr-defined]
    assert isinstance(changeset, ChangeSet)
    assert changeset.subject == "maintenance: access counts folded 2"
    assert {c.path for c in changeset.changes} == {a.rel_path, b.rel_path}
    assert run_maintenance(system.store)[0].actions == []


def test_dry_run_changes_nothing_and_a_second_run_does_nothing(system: MemorySystem) -> None:
    task = system.add("整理周报", "每周五", layer=Layer.SHORT_TERM, category="task")
    old = system.add("Legacy build notes", "make all", layer=Layer.LONG_TERM)
    system.store.journal_for(system.global_vault).record([old.id], system.clock.now())
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
