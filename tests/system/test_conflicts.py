"""Conflicts through the Python API with the real models (docs/design.md, "Conflicts"): a core memory or
decision that may contradict an active one — in English, Chinese, or across them — is written pending with
`conflicts_with`, never beside it and never over it; review keeps one (accept supersedes, keep both,
reject); `remember(keep_both=…, replaces=…)` settles it at once; `add` is checked too."""

from __future__ import annotations

import subprocess
import uuid
from pathlib import Path

import pytest

from aimate_memory.errors import InvalidInputError
from aimate_memory.system import MemorySystem
from aimate_memory.system.conflicts import conflicts_with
from aimate_memory.vault.filters import MemoryFilter

pytestmark = pytest.mark.slow


def git(home: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(home / "memory"), *args], capture_output=True, text=True, check=True).stdout


def statuses(system: MemorySystem, *ids: str) -> list[str]:
    return [system.get(memory_id).status for memory_id in ids]


@pytest.mark.parametrize(
    ("old", "new", "slot", "kind"),
    [
        ("I prefer 4-space indentation", "我习惯用 Tab 缩进", "indentation", None),
        ("我习惯用 Tab 缩进", "I prefer 4-space indentation", "indentation", None),
        ("回复用中文", "以后请用英文回答我", "reply language", "rule"),
        ("Always use double quotes for strings", "Prefer single quotes in Python code", "string quotes", "rule"),
    ],
)
def test_a_contradicting_core_memory_waits_for_the_person(
    system: MemorySystem, home: Path, old: str, new: str, slot: str, kind: str | None
) -> None:
    first = system.remember(old, kind=kind)
    assert first.action == "written"
    result = system.remember(new, kind=kind)
    assert result.action == "conflict" and result.memory is not None
    [conflict] = result.conflicts
    assert conflict["id"] == first.memory.id and conflict["slot"] == slot and conflict["title"] == first.memory.title
    written = system.get(result.memory.id)
    assert written.status == "pending" and conflicts_with(written) == [first.memory.id]
    assert system.get(first.memory.id).status == "active"  # nothing replaced unasked
    system.refresh()
    core = system.core_markdown()
    assert old in core and new not in core  # a pending memory reaches no session
    assert result.memory.rel_path.name in git(home, "status", "--porcelain")  # uncommitted: waits for review


def test_a_decision_across_languages_and_an_explicit_change(system: MemorySystem) -> None:
    redis = system.remember("We chose Redis for sessions", kind="decision")
    result = system.remember("会话缓存改用 Memcached", kind="decision")
    assert result.action == "conflict" and result.conflicts[0]["id"] == redis.memory.id
    assert "Memcached here, Redis there" in result.conflicts[0]["reason"]
    # A close restatement would supersede on its own (cosine ≥ capture.supersede_threshold); one that
    # contradicts is held back instead: the person chooses.
    ci = system.remember("We use GitHub Actions for CI", kind="decision")
    moved = system.remember("CI moved from GitHub Actions to GitLab CI", kind="decision")
    assert moved.action == "conflict" and moved.supersedes is None
    assert statuses(system, ci.memory.id) == ["active"]


@pytest.fixture
def uncommitted(monkeypatch: pytest.MonkeyPatch) -> None:
    """`git.auto_commit` off for the vault `system` opens next (asked before it): for a test that asserts
    nothing about commits, where each of its 14 `remember`s ran git (~0.35 s of wall each at load 11,
    2026-11-29). What is committed when is tested by this module's other tests and tests/git."""
    monkeypatch.setenv("AIMATE_GIT__AUTO_COMMIT", "false")


@pytest.mark.parametrize(
    ("old", "new", "slot"),
    [
        (
            "Create `docs/plans/refactor.md` with the steps",
            "Save the plans in `notes/plans` from now on",
            "file location",
        ),
        ("为每个爬虫指定专属数据库", "强制所有模块使用 data/db/news.db 这一个数据库", "database sharing"),
        ("把数据访问层迁移到基于仓储模式的实现", "数据访问层统一改用活动记录模式", "approach"),
        (
            "Migrate the crawlers to a strategy-pattern implementation",
            "Switch the crawlers to a direct-import approach",
            "approach",
        ),
    ],
)
def test_a_change_of_mind_over_weeks_is_a_conflict(
    uncommitted: None, system: MemorySystem, old: str, new: str, slot: str
) -> None:
    """Issue 39's replay: a folder of plans moved, one database each became one for all."""
    assert system.config.get("git.auto_commit") is False  # `uncommitted` came first
    first = system.remember(old, kind="decision")
    for n in range(12):  # other decisions around it: the nearest are picked by the stored vectors
        system.remember(f"We decided to serve report {n} from the reporting API", kind="decision")
    result = system.remember(new, kind="decision")
    assert result.action == "conflict" and [c["id"] for c in result.conflicts] == [first.memory.id]
    assert result.conflicts[0]["slot"] == slot


def test_the_check_sees_files_changed_since_the_last(system: MemorySystem, workdir: Path) -> None:
    """What a check reads is kept until a file under the core and decision folders changes: an edit by hand,
    a new file and a deleted one are all seen by the next check."""
    vault = system.global_vault
    plans = system.remember("Keep the plans in docs/plans", kind="decision").memory
    moved = "计划文件改放到 notes/plans"
    assert [c.id for c in system.conflicts.check(moved, vault)] == [plans.id]
    assert [c.id for c in system.conflicts.check(moved, vault)] == [plans.id]  # from what the first one kept
    path = vault.root / plans.rel_path
    path.write_text(path.read_text(encoding="utf-8").replace("docs/plans", "notes/plans"), encoding="utf-8")
    assert system.conflicts.check(moved, vault) == []  # edited by hand: they agree now
    copy = path.with_name("copy-" + path.name)
    other = str(uuid.uuid4())
    text = path.read_text(encoding="utf-8").replace(plans.id, other).replace("notes/plans", "docs/plans")
    copy.write_text(text, encoding="utf-8")
    assert [c.id for c in system.conflicts.check(moved, vault)] == [other]
    copy.unlink()
    assert system.conflicts.check(moved, vault) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I prefer 4-space indentation", "Python 文件用四个空格缩进"),
        ("Use ruff for linting", "Don't use flake8 anymore"),
        ("I prefer 4-space indentation", "我喜欢深色主题的编辑器"),
    ],
)
def test_agreeing_and_unrelated_memories_are_written(system: MemorySystem, old: str, new: str) -> None:
    system.remember(old, kind="preference")
    result = system.remember(new, kind="preference")
    assert result.action in ("written", "exists") and not result.conflicts


def test_an_agents_decision_that_contradicts_is_pending_however_sure(system: MemorySystem) -> None:
    system.remember("数据库选用 PostgreSQL", kind="decision")
    sure = system.remember("We moved the main database to MongoDB", kind="decision", source="mcp", confidence=0.99)
    assert sure.action == "conflict" and sure.memory.status == "pending"


def test_keep_both_and_replace_settle_it_at_once(system: MemorySystem) -> None:
    spaces = system.remember("I prefer 4-space indentation")
    held = system.remember("我习惯用 Tab 缩进")
    assert held.action == "conflict"
    both = system.remember("我习惯用 Tab 缩进", keep_both=True)
    assert both.action == "written" and both.memory.status == "active"
    system.refresh()
    # the held-back copy of the same words is settled, not left behind as a second pending file
    assert [m.title for m in system.list() if m.title == "我习惯用 Tab 缩进"] == ["我习惯用 Tab 缩进"]
    two = system.remember("Use 2-space indentation", kind="preference", replaces=spaces.memory.id[:8])
    assert two.action == "written" and two.supersedes == spaces.memory.id
    assert statuses(system, spaces.memory.id) == ["superseded"]
    with pytest.raises(InvalidInputError, match="not an active memory"):
        system.remember("Use 8-space indentation", kind="preference", replaces=spaces.memory.id)


def test_review_keeps_one_of_the_two(system: MemorySystem, home: Path) -> None:
    old = system.remember("I prefer 4-space indentation")
    new = system.remember("我习惯用 Tab 缩进")
    [item] = [item for item in system.git.pending_changes() if item.change.memory_id == new.memory.id]
    assert [conflict.id for conflict in item.conflicts] == [old.memory.id]  # review shows both
    assert item.to_dict()["conflicts"][0]["title"] == "I prefer 4-space indentation"
    skipped = system.git.accept_all()
    assert [o.action for o in skipped if o.path.endswith(new.memory.rel_path.name)] == ["skipped"]
    [accepted] = system.git.accept([new.memory.id[:8]])
    assert accepted.action == "accept" and "supersedes" in accepted.detail
    assert statuses(system, new.memory.id, old.memory.id) == ["active", "superseded"]
    kept = system.get(new.memory.id)
    assert conflicts_with(kept) == [] and kept.doc is not None and kept.doc.get("supersedes") == old.memory.id
    shown = git(home, "show", "--stat", "--format=%s", "HEAD")
    assert new.memory.rel_path.name in shown and old.memory.rel_path.name in shown  # one commit, both files
    assert git(home, "status", "--porcelain").strip() == ""


def test_review_keep_both_and_reject(system: MemorySystem) -> None:
    redis = system.remember("会话缓存用 Redis", kind="decision")
    memcached = system.remember("Session caching moved to Memcached", kind="decision")
    system.git.accept([memcached.memory.id], keep_both=True)
    assert statuses(system, redis.memory.id, memcached.memory.id) == ["active", "active"]
    assert conflicts_with(system.get(memcached.memory.id)) == []
    valkey = system.remember("会话缓存改用 Valkey", kind="decision")
    assert valkey.action == "conflict"
    system.git.reject([valkey.memory.id])
    assert statuses(system, redis.memory.id) == ["active"]
    system.refresh()
    assert valkey.memory.id not in [memory.id for memory in system.list()]


def test_add_reports_what_a_core_memory_may_contradict(system: MemorySystem) -> None:
    tabs = system.add("缩进统一用 Tab", layer="core", category="rule")
    spaces = system.add("Indent with 4 spaces", layer="core", category="rule")
    assert [conflict.id for conflict in system.conflicts.of(spaces)] == [tabs.id]
    note = system.add("Indent with 2 spaces in YAML", layer="long_term", category="knowledge")
    assert system.conflicts.of(note) == []  # only core memories and decisions take sides


def test_no_model_the_table_alone_decides(home: Path, workdir: Path, isolated_git: None, monkeypatch) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    monkeypatch.setenv("AIMATE_CAPTURE__EMBEDDING", "false")
    with MemorySystem.open(cwd=workdir) as system:
        system.init()
        system.refresh()
        system.remember("Use pytest for all tests", kind="rule")
        result = system.remember("Tests are written with unittest, not pytest", kind="rule")
        assert result.action == "conflict" and result.conflicts[0]["cosine"] is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("We chose Redis for sessions", "会话缓存改用 Memcached"),
        ("数据库选用 PostgreSQL", "We moved the main database to MySQL"),
    ],
)
def test_a_conflict_said_twice_is_one_proposal(system: MemorySystem, old: str, new: str) -> None:
    """Issue 39: the same sentence again while it waits is the person saying it twice — not a second pending
    copy, not a conflict with itself; the review shows one item, said twice."""
    first = system.remember(old, kind="decision")
    held = system.remember(new, kind="decision")
    assert held.action == "conflict" and held.memory is not None
    again = system.remember(new, kind="decision")
    assert again.action == "exists" and again.memory is not None and again.memory.id == held.memory.id
    assert again.conflicts == () and "waiting for your review" in again.reason
    pending = system.list(MemoryFilter(statuses=("pending",)))
    assert [memory.id for memory in pending] == [held.memory.id]
    assert system.get(held.memory.id).doc.get("said") == 2
    assert statuses(system, first.memory.id) == ["active"]


def test_warming_capture_writes_nothing_and_the_checks_decide_as_before(system: MemorySystem, home: Path) -> None:
    """What a daemon runs once its models are loaded (`Capture.warm`; docs/design.md §12, "What a warm request
    reads twice"): capture's tables, the kind model and each vault's conflict pool read ahead — nothing written,
    nothing committed; the conflicts found after it, in Chinese and English, are the ones found without it."""
    redis = system.remember("We chose Redis for sessions", kind="decision")
    quotes = system.remember("Always use double quotes for strings", kind="rule")
    assert redis.memory is not None and quotes.memory is not None
    head, listed = git(home, "rev-parse", "HEAD"), system.list(MemoryFilter(statuses=()))
    system.warm_capture()
    assert git(home, "rev-parse", "HEAD") == head and git(home, "status", "--porcelain") == ""
    assert system.list(MemoryFilter(statuses=())) == listed
    chinese = system.remember("会话缓存改用 Memcached", kind="decision")
    assert chinese.action == "conflict" and chinese.conflicts[0]["id"] == redis.memory.id
    english = system.remember("Prefer single quotes in Python code", kind="rule")
    assert english.action == "conflict" and english.conflicts[0]["id"] == quotes.memory.id


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I prefer pytest to unittest", "我更喜欢用 pytest，而不是 unittest"),
        ("我更喜欢用 pytest，而不是 unittest", "I prefer pytest to unittest"),
    ],
)
def test_a_restatement_across_languages_is_no_conflict(system: MemorySystem, old: str, new: str) -> None:
    """Issue 39's everyday use: "我更喜欢用 pytest，而不是 unittest" after "I prefer pytest to unittest" was held
    as a conflict ("prefer X to Y" read as naming both as sides). Said again in the other language, it is
    the memory it restates (said twice) or updates it: never pending, never a second active copy."""
    first = system.remember(old)
    again = system.remember(new)
    assert again.conflicts == () and again.memory is not None, again
    if again.action == "exists":
        assert again.memory.id == first.memory.id and statuses(system, first.memory.id) == ["active"]
    else:
        assert again.action == "written" and again.supersedes == first.memory.id, again
        assert statuses(system, first.memory.id, again.memory.id) == ["superseded", "active"]
