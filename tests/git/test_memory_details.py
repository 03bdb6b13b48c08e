"""A memory's details in one call (`system.details`, `aimate mem show --details`): the memory, its history
across moves, the supersede chain both ways, thread neighbours, `related` resolved (dangling marked),
`anchors`/`stale` passed through — Chinese and English, real git, the CLI as a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aimate_memory.errors import NotFoundError
from aimate_memory.system import MemorySystem
from aimate_memory.system.records import MemoryDetailsRecord
from aimate_memory.vault.layout import Scope


@pytest.fixture
def system(tmp_path: Path, new_system, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    system = new_system(tmp_path / "home")
    system.init()
    yield system
    system.close()


def supersede(system, old, title: str, body: str):
    """A new memory replacing `old`, linked both ways as `remember` links them, committed."""
    new = system.add(title, body, category="decision", extra={"supersedes": old.id})
    system.global_vault.update(system.get(old.id), {"status": "superseded", "superseded_by": new.id})
    system.git.commit(f"supersede {old.id[:8]}")
    return new


def chain(system) -> tuple:
    """Three versions of one decision, each superseding the one before."""
    oldest = system.add("订单存 MySQL", "最早的决定。", category="decision")
    middle = supersede(system, oldest, "Orders in Postgres 14", "Moved off MySQL.")
    newest = supersede(system, middle, "Orders in Postgres 16 订单库升级", "升级到 16。")
    return oldest, middle, newest


def test_details_hold_the_chain_both_ways_history_and_related(system) -> None:
    oldest, middle, newest = chain(system)
    system.set_fields(middle.id, {"related": [oldest.id, "no-such-memory", "Orders in Postgres 16 订单库升级"]})
    system.set_fields(middle.id, {"category": "knowledge"})  # a move: history must follow it
    system.refresh()

    details = system.details(middle.id[:8])
    assert details.memory["title"] == "Orders in Postgres 14" and details.memory["body"].strip() == "Moved off MySQL."
    assert details.location == f"global:{system.get(middle.id).rel_path.as_posix()}"
    assert details.frontmatter["superseded_by"] == newest.id
    assert [(link.id, link.title, link.status) for link in details.supersedes] == [
        (oldest.id, "订单存 MySQL", "superseded")
    ]
    assert [(link.id, link.title) for link in details.superseded_by] == [
        (newest.id, "Orders in Postgres 16 订单库升级")
    ]
    assert [link.title for link in system.details(newest.id).supersedes] == ["Orders in Postgres 14", "订单存 MySQL"]
    assert [link.title for link in system.details(oldest.id).superseded_by] == [
        "Orders in Postgres 14",
        "Orders in Postgres 16 订单库升级",
    ]
    assert [(link.ref, link.title, link.missing) for link in details.related] == [
        (oldest.id, "订单存 MySQL", False),
        ("no-such-memory", None, True),
        ("Orders in Postgres 16 订单库升级", "Orders in Postgres 16 订单库升级", False),
    ]
    actions = [entry["action"] for entry in details.history]
    assert actions[0] == "move" and actions[-1] == "add" and len(actions) >= 4
    assert details.history[0]["old_path"] == middle.rel_path.as_posix()
    assert details.history_note == ""
    assert (details.anchors, details.stale) == (None, None)
    assert MemoryDetailsRecord.from_dict(json.loads(json.dumps(details.to_dict()))) == details


def test_a_loop_in_the_chain_ends(system) -> None:
    first = system.add("A 甲", "x")
    second = system.add("B 乙", "y")
    for one, other in ((first, second), (second, first)):  # a hand edit made a loop
        system.global_vault.update(system.get(one.id), {"superseded_by": other.id})
    assert [link.id for link in system.details(first.id).superseded_by] == [second.id]


def test_thread_neighbours_anchors_and_stale(system) -> None:
    turns = [system.add(f"Turn {n} 第{n}句", f"说了第 {n} 句。", thread="conv-7") for n in range(5)]
    middle = turns[2]
    vault = system.global_vault
    anchors = [{"path": "src/db.py", "line": 12}]
    vault.update(system.get(middle.id), {"anchors": anchors, "stale": {"since": "2026-01-02", "why": "文件改了"}})
    # One turn a second apart is how a conversation is written; same-second ties are ordered by path.
    for n, turn in enumerate(turns):
        vault.update(system.get(turn.id), {"created_at": f"2026-01-01T10:00:0{n}+00:00"})
    system.refresh()
    details = system.details(middle.id)
    assert [link.title for link in details.thread_before] == ["Turn 1 第1句", "Turn 0 第0句"]
    assert [link.title for link in details.thread_after] == ["Turn 3 第3句", "Turn 4 第4句"]
    assert details.anchors == anchors
    # `stale` is computed (docs/anchors.md), never read from the file: a global memory is never stale
    assert details.stale is None
    assert system.details(system.add("Alone 独立", "x").id).thread_before == ()


def test_outside_git_the_history_says_why(tmp_path: Path, new_system, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    project = tmp_path / "no-git"
    project.mkdir()
    system = new_system(tmp_path / "home", project)
    system.init()
    memory = system.add("本项目用 pnpm", "不是 npm。", scope=Scope.PROJECT)
    details = system.details(memory.id)
    assert details.history == () and "not in a git repository" in details.history_note
    with pytest.raises(NotFoundError):
        system.details("nothing-like-this")
    system.close()


def test_cli_show_details(cli, initialized, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    with MemorySystem.open(global_only=True) as system:
        first = system.add("旧的缓存方案", "Memcached。", category="decision")
        second = supersede(system, first, "New cache plan", "Redis 7.")
        system.set_fields(second.id, {"related": ["ghost-ref"]})
    result = cli("mem", "show", second.id[:8], "--details", "--json")
    assert result.code == 0, result.err
    data = result.json()
    assert data["memory"]["title"] == "New cache plan"
    assert [link["title"] for link in data["supersedes"]] == ["旧的缓存方案"]
    assert data["related"] == [
        {
            "ref": "ghost-ref",
            "id": None,
            "title": None,
            "status": None,
            "layer": None,
            "scope": None,
            "path": None,
            "missing": True,
        }
    ]
    assert [entry["action"] for entry in data["history"]][-1] == "add"
    text = cli("mem", "show", "旧的缓存方案", "--details")
    assert text.code == 0, text.err
    for part in ("旧的缓存方案", "superseded by", "New cache plan", "history", "Memcached。"):
        assert part in text.out
    plain = cli("mem", "show", second.id)
    assert plain.code == 0 and "supersedes" in plain.out and "history" not in plain.out
