"""The timeline (`system.timeline`, `aimate mem timeline`): captures, additions, edits, lifecycle moves and
removals from real git history, uncommitted changes as pending, a vault outside git from its files — in
Chinese and English, through the facade and the CLI as a subprocess."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimate_memory.clock import FixedClock, SystemClock
from aimate_memory.config import load_config
from aimate_memory.errors import InvalidInputError
from aimate_memory.system import MemorySystem
from aimate_memory.system.records import TimelineRecord
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.roots import Roots


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(SystemClock().now())


@pytest.fixture
def system(tmp_path: Path, clock: FixedClock, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    roots = Roots(tmp_path / "home", None)
    with MemorySystem(roots, config=load_config(roots.home, None), clock=clock) as system:
        system.init()
        yield system


def kinds_of(record: TimelineRecord, memory_id: str) -> list[str]:
    """The memory's events, oldest first."""
    return [event.kind for event in reversed(record.events) if event.memory_id == memory_id]


def test_a_lifecycle_run_shows_expired_promoted_archived_and_superseded(system, clock: FixedClock) -> None:
    expiring = system.add("Try the staging flag 试一下预发开关", "临时。", layer=Layer.SHORT_TERM, ttl_days=1)
    used = system.add("Deploy needs VPN 部署需要 VPN", "Every time.", layer=Layer.SHORT_TERM, ttl_days=1)
    idle = system.add("Old logging choice 旧的日志方案", "log4j", category="decision", importance=2)
    replaced = system.add("Orders live in MySQL 订单存 MySQL", "旧库。", category="decision")
    for _ in range(3):  # used often enough, on enough days, to be promoted (short_term.promote_*)
        system.read(used.id)
        system.read(used.id)
        clock.advance(days=1)
    system.set_fields(replaced.id, {"status": "superseded"})
    clock.advance(days=400)
    (run,) = system.upkeep.maintain()
    assert run.changeset is not None and run.changeset.subject.startswith("maintenance:")

    record = system.timeline()
    assert kinds_of(record, expiring.id) == ["add", "expired"]
    assert kinds_of(record, used.id) == ["add", "promoted"]
    assert kinds_of(record, idle.id) == ["add", "archived"]
    assert kinds_of(record, replaced.id) == ["add", "superseded", "archived"]
    (promoted,) = [e for e in record.events if e.memory_id == used.id and e.kind == "promoted"]
    assert (promoted.layer, promoted.old_path) == ("long_term", used.rel_path.as_posix())
    assert promoted.path.startswith("long_term/") and promoted.subject.startswith("maintenance:")
    (expired,) = [e for e in record.events if e.kind == "expired"]
    assert expired.path.startswith("archive/short_term/") and expired.title == "Try the staging flag 试一下预发开关"
    assert all(event.commit and not event.pending for event in record.events)
    assert [event.when for event in record.events] == sorted((event.when for event in record.events), reverse=True)


def test_captures_carry_their_session_and_pending_changes_are_marked(system) -> None:
    hooked = system.remember(
        "以后提交信息都用英文写", source="hook", thread="claude-sess-1", status="active", force=True
    )
    distilled = system.add(
        "Prefer pytest fixtures over setUp", "From the session.", source="session", extra={"session": "sess-42"}
    )
    typed = system.add("Cache TTL is 5 minutes 缓存五分钟", "Decided in review.")
    path = system.global_vault.abs_path(typed.rel_path)
    path.write_text(path.read_text(encoding="utf-8") + "\n手改了一行。\n", encoding="utf-8")
    waiting = system.remember("I always use tabs", source="hook", thread="claude-sess-1", status="pending", force=True)
    assert waiting.memory is not None and hooked.memory is not None

    record = system.timeline()
    newest = {(event.memory_id, event.kind): event for event in reversed(record.events)}
    capture = newest[(hooked.memory.id, "capture")]
    assert (capture.session, capture.source, capture.pending) == ("claude-sess-1", "hook", False)
    assert capture.title == "以后提交信息都用英文写" and capture.commit
    assert newest[(distilled.id, "capture")].session == "sess-42"
    assert newest[(typed.id, "add")].session is None
    edit = newest[(typed.id, "edit")]
    assert (edit.pending, edit.commit) == (True, None)
    pending = newest[(waiting.memory.id, "capture")]
    assert (pending.pending, pending.commit, pending.session) == (True, None, "claude-sess-1")

    sessions = record.by_session()
    assert [e.memory_id for e in sessions["claude-sess-1"]] == [waiting.memory.id, hooked.memory.id]
    assert [e.memory_id for e in sessions["sess-42"]] == [distilled.id]
    assert typed.id in {e.memory_id for e in sessions[None]}
    days = record.by_day()
    assert sum(len(events) for events in days.values()) == len(record.events)
    assert TimelineRecord.from_dict(record.to_dict()) == record


def test_renames_are_followed_and_removals_shown(system) -> None:
    memory = system.add("Use ruff for lint 用 ruff 检查", "ruff check .", category="knowledge")
    moved = system.set_fields(memory.id, {"category": "decision"})
    purged = system.add("Scratch note 草稿", "delete me", layer=Layer.SHORT_TERM)
    system.remove(purged.id, purge=True)
    record = system.timeline()
    assert kinds_of(record, memory.id) == ["add", "moved"]
    (move,) = [e for e in record.events if e.kind == "moved"]
    assert (move.old_path, move.path) == (memory.rel_path.as_posix(), moved.rel_path.as_posix())
    assert kinds_of(record, purged.id) == ["add", "removed"]
    (removal,) = [e for e in record.events if e.kind == "removed"]
    assert removal.title == "Scratch note 草稿"


def test_since_limit_and_scope(system, clock: FixedClock) -> None:
    for n in range(4):
        system.add(f"Note {n} 笔记{n}", "x")
    everything = system.timeline()
    latest = system.timeline(limit=2)
    assert latest.events == everything.events[:2] and latest.truncated and not everything.truncated
    assert system.timeline(since="1 day").events == everything.events
    assert system.timeline(since="今天").events == everything.events
    clock.advance(days=3)  # `since` counts back from the system's clock: three days on, nothing is recent
    assert system.timeline(since="2d").events == ()
    assert system.timeline(scope="global").events == everything.events
    with pytest.raises(InvalidInputError):
        system.timeline(limit=0)
    with pytest.raises(InvalidInputError):
        system.timeline(since="whenever")


def test_a_vault_outside_git_is_told_from_its_files(tmp_path: Path, new_system) -> None:
    project = tmp_path / "plain-project"  # no git repository: the project vault is not in git
    project.mkdir()
    system = new_system(tmp_path / "home", project)
    system.init()
    added = system.add("本项目用 pnpm", "不是 npm。", scope=Scope.PROJECT)
    captured = system.add("Run tests with -n 0", "x", scope=Scope.PROJECT, source="mcp")
    gone = system.add("Old build note 旧构建说明", "x", scope=Scope.PROJECT)
    system.remove(gone.id)
    record = system.timeline(scope="project")
    assert any("project vault is not in git" in warning for warning in record.warnings)
    assert kinds_of(record, added.id) == ["add"]
    assert kinds_of(record, captured.id) == ["capture"]
    assert kinds_of(record, gone.id)[-1] == "archived"
    assert all(event.commit is None and not event.pending for event in record.events)
    both = system.timeline()
    assert {event.scope for event in both.events} == {"global", "project"}


def test_cli_timeline(cli, initialized, home: Path) -> None:
    assert cli("mem", "add", "用 Redis 做缓存", "--body", "决定。").code == 0
    assert cli("mem", "add", "Use tabs", "--layer", "short_term").code == 0
    assert cli("mem", "rm", "Use tabs").code == 0

    result = cli("mem", "timeline", "--json")
    assert result.code == 0, result.err
    events = result.json()["events"]
    assert [(e["kind"], e["title"]) for e in events[:3]] == [
        ("archived", "Use tabs"),
        ("add", "Use tabs"),
        ("add", "用 Redis 做缓存"),
    ]
    text = cli("mem", "timeline", "--since", "7d")
    assert text.code == 0, text.err
    assert "用 Redis 做缓存" in text.out and "archived" in text.out
    by_session = cli("mem", "timeline", "--by", "session", "-n", "1")
    assert (
        by_session.code == 0 and "outside any session" in by_session.out and "older events left out" in by_session.out
    )
    wrong = cli("mem", "timeline", "--by", "week")
    assert wrong.code == 1 and "--by takes day or session" in wrong.err
    bad_date = cli("mem", "timeline", "--since", "someday")
    assert bad_date.code == 1 and "Traceback" not in bad_date.err


def test_one_facade_asked_again_sees_each_new_commit(system, clock: FixedClock) -> None:
    """The committed events are kept by HEAD (`GitActions._committed_events`, what the daemon asks again and
    again): asked again with nothing new, the same record; after a commit, its event is there — English and
    Chinese."""
    first = system.add("Use pnpm for the web app", "Not npm.", category="decision")
    before = system.timeline()
    assert system.timeline() == before
    clock.advance(seconds=5)
    second = system.add("网站用 pnpm 管理依赖", "不用 npm。", category="decision")
    after = system.timeline()
    assert kinds_of(after, second.id) == ["add"] and kinds_of(after, first.id) == ["add"]
    assert len(after.events) == len(before.events) + 1
    clock.advance(seconds=5)
    system.remove(first.id, purge=True)
    assert kinds_of(system.timeline(), first.id)[-1] == "removed"
