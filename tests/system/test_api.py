"""The Python API takes what a caller writes: strings or enums, str paths, scopes honoured (issue 16 §5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimate_memory.errors import InvalidInputError
from aimate_memory.system import MemorySystem
from aimate_memory.vault.layout import Layer, Scope


@pytest.fixture
def project(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("[project]\nname = 'demo'\n", encoding="utf-8")
    with MemorySystem.open(project=str(folder)) as system:
        system.init()
    return folder


def test_open_takes_a_str_project_and_add_takes_layer_and_scope_names(project: Path) -> None:
    with MemorySystem.open(project=str(project)) as system:
        note = system.add("Flaky login test", "TODO fix", layer="short_term", category="task")
        assert note.layer is Layer.SHORT_TERM and note.scope is Scope.PROJECT and note.expires_at is not None
        chosen = system.add("选用 Redis 做会话缓存", "延迟低", layer="long_term", category="decision", scope="global")
        assert chosen.scope is Scope.GLOBAL
        assert system.global_vault.abs_path(chosen.rel_path).is_file()
        assert not system.project_vault.abs_path(chosen.rel_path).exists()  # type: ignore[union-attr]
        enum_too = system.add("Prefer tabs", layer=Layer.CORE, category="preference", scope=Scope.GLOBAL)
        assert enum_too.category == "preference"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"layer": "medium_term"}, "layer"),
        ({"scope": "team"}, "scope"),
        ({"status": "finished"}, "status"),  # "done" is a status: a task the person closed
        ({"category": "a/../../b"}, "category"),
        ({"ttl_days": float("nan"), "layer": "short_term"}, "time to live"),
    ],
)
def test_an_invalid_value_names_the_field_and_writes_nothing(project: Path, kwargs: dict, field: str) -> None:
    with MemorySystem.open(project=project) as system:
        before = sorted(p for p in (project / ".aimate").rglob("*.md"))
        with pytest.raises(InvalidInputError) as caught:
            system.add("Something", "body", **kwargs)
        assert field in caught.value.message
        assert sorted(p for p in (project / ".aimate").rglob("*.md")) == before


def test_sessions_are_not_added_as_memories(project: Path) -> None:
    with MemorySystem.open(project=project) as system, pytest.raises(InvalidInputError) as caught:
        system.add("A chat", layer="session")
    assert "session" in (caught.value.hint or "")


def test_a_refused_secret_or_nul_leaves_nothing_on_disk(project: Path) -> None:
    with MemorySystem.open(project=project) as system:
        before = sorted((project / ".aimate").rglob("*.md"))
        with pytest.raises(InvalidInputError) as caught:
            system.add("AWS 凭据", "key AKIAIOSFODNN7EXAMPLE in the deploy script")
        assert "AKIAIOSFODNN7EXAMPLE" not in caught.value.message
        with pytest.raises(InvalidInputError):
            system.add("binary", "a\x00b")
        assert sorted((project / ".aimate").rglob("*.md")) == before
        allowed = system.add("Example key", "AKIAIOSFODNN7EXAMPLE is AWS's documented example", allow_secret=True)
        assert allowed.title == "Example key"


def test_read_is_a_use_and_search_is_not(project: Path) -> None:
    from aimate_memory.clock import FixedClock, SystemClock

    clock = FixedClock(SystemClock().now())
    with MemorySystem.open(project=project, clock=clock) as system:
        note = system.add("Redis note", "Redis keeps session keys", layer="short_term", category="note")
        system.refresh()
        for _ in range(6):
            assert [hit.memory.id for hit in system.search("Redis").results] == [note.id]
        journal = system.store.journal_for(system.store.vault_for("project"))
        assert journal.tally() == {}
        for _ in range(3):  # promotion wants uses on several days (short_term.promote_min_days)
            for _ in range(2):
                system.read(note.id[:8])
            clock.advance(days=1)
        assert journal.tally()[note.id].count == 6
        plan = system.upkeep.maintain(dry_run=True)
        assert [action.kind for run in plan for action in run.actions] == ["promote"]


@pytest.mark.parametrize(
    ("first", "second", "query"),
    [
        ("Redis keeps the session keys", "Redis keeps the session tokens", "Redis session"),
        ("会话缓存用 Redis 保存", "会话缓存用 Redis 存储", "会话缓存 Redis"),
    ],
)
def test_uses_in_the_journal_count_in_the_ranking(project: Path, first: str, second: str, query: str) -> None:
    """A use lives only in state/access.jsonl (docs/lifecycle.md "Uses") and still feeds the ranking's use
    factor: of two memories alike, the one read often ranks first; the files are not touched."""
    with MemorySystem.open(project=project) as system:
        one = system.add(first, layer="long_term", category="knowledge")
        other = system.add(second, layer="long_term", category="knowledge")
        system.refresh()
        before = {hit.memory.id: hit.factors["access"] for hit in system.search(query).results}
        assert before[one.id] == before[other.id] == 1.0
        files = {path: path.read_bytes() for path in (project / ".aimate").rglob("*.md")}
        for _ in range(9):
            system.read(other.id[:8])
        after = system.search(query).results
        assert after[0].memory.id == other.id
        assert after[0].factors["access"] == pytest.approx(1.1)  # 1 + 0.1·log10(9 + 1)
        assert {path: path.read_bytes() for path in files} == files


@pytest.mark.parametrize("read", ["list", "search", "stats"])
def test_reads_work_on_a_fresh_home_before_any_sync(home: Path, monkeypatch: pytest.MonkeyPatch, read: str) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    system = MemorySystem.open(global_only=True)
    system.init()
    system.add("选用 Redis 做会话缓存", "延迟低，支持过期。", category="decision")
    system.add("Flaky login test", "The OAuth provider is slow.", layer="short_term", category="task")
    if read == "list":
        assert {m.title for m in system.list()} >= {"选用 Redis 做会话缓存", "Flaky login test"}
    elif read == "search":
        assert system.search("会话缓存").results[0].memory.title == "选用 Redis 做会话缓存"
        assert system.search("OAuth").results[0].memory.title == "Flaky login test"
    else:
        assert system.retrieval.stats()["global"]["memories"] >= 2


def test_the_newest_come_from_either_vault(project: Path) -> None:
    # Each vault gives its own newest; the cut comes after merging them (it used to keep the project's first).
    from datetime import datetime, timedelta, timezone

    from aimate_memory.clock import FixedClock

    start = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
    for day, (title, scope) in enumerate(
        [("项目旧笔记 old project note", "project"), ("Project note", "project"), ("最新的全局决定 newest", "global")]
    ):
        with MemorySystem.open(project=project, clock=FixedClock(start + timedelta(days=day))) as system:
            system.add(title, "body", layer="long_term", category="knowledge", scope=scope)
    from aimate_memory.vault.filters import MemoryFilter

    long_term = MemoryFilter(layers=(Layer.LONG_TERM,))  # not the placeholder core files, written today
    with MemorySystem.open(project=project) as system:
        system.refresh()
        newest = [memory.title for memory in system.list(long_term, limit=2)]
        assert newest == ["最新的全局决定 newest", "Project note"]
        by_created = system.query(long_term, limit=1, order="created")
        assert [memory.title for memory in by_created] == ["最新的全局决定 newest"]
