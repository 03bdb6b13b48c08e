"""Near-duplicates: KNN candidates per memory, same layer only; merging keeps tags, importance and counts."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.lifecycle.dedupe import find_duplicates, text_cosine
from aimate_memory.lifecycle.maintenance import run_dedupe, run_maintenance
from aimate_memory.system import MemorySystem
from aimate_memory.vault.layout import Layer

START = datetime(2026, 2, 1, 10, 0, tzinfo=timezone(timedelta(hours=8)))
ZH = "我们决定用 Redis 做会话缓存，因为它很快，支持过期时间，运维也熟悉。会话数据每个用户不超过 4KB。"
EN = "We chose PostgreSQL for the order service because we need transactions and mature tooling."


@pytest.fixture
def system(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    with MemorySystem.open(global_only=True, clock=FixedClock(START)) as system:
        system.init()
        yield system


def test_find_and_merge_near_duplicates(system: MemorySystem) -> None:
    keep = system.add("选用 Redis 做会话缓存", ZH, layer=Layer.LONG_TERM, category="decision", tags=["cache"])
    dup = system.add(
        "选用 Redis 做会话缓存", ZH + "\n", layer=Layer.LONG_TERM, category="decision", tags=["redis"], importance=5
    )
    vault = system.global_vault
    vault.update(vault.load(dup.rel_path), {"access_count": 3}, touch=False)
    vault.update(vault.load(keep.rel_path), {"access_count": 2}, touch=False)
    system.commit("test: counters written by hand")  # uncommitted, they would be unreviewed edits: left alone
    en1 = system.add("Order service database", EN, layer=Layer.LONG_TERM, category="decision")
    en2 = system.add("Order service database", EN + " Decided in March.", layer=Layer.LONG_TERM, category="decision")
    other_layer = system.add("选用 Redis 做会话缓存", ZH, layer=Layer.SHORT_TERM, category="note")
    unrelated = system.add("前端构建用 Vite", "Vite 比 webpack 快很多。", layer=Layer.LONG_TERM)
    system.sync()
    groups = find_duplicates(system.index_for(system.global_vault), 0.92)
    members = sorted(sorted([g.survivor.id, *(e.id for e, _, _ in g.others)]) for g in groups)
    assert members == sorted([sorted([keep.id, dup.id]), sorted([en1.id, en2.id])])
    zh_group = next(g for g in groups if keep.id in {g.survivor.id, *(e.id for e, _, _ in g.others)})
    assert zh_group.survivor.id == dup.id  # the more important one survives
    assert all(method == "text" for _, _, method in zh_group.others)

    # `maintain` only reports them.
    [run] = run_maintenance(system)
    assert len(run.duplicates) == 2 and run.actions == []

    [dry] = run_dedupe(system, apply=False)
    assert len(dry.duplicates) == 2 and dry.changeset is None
    [merged] = run_dedupe(system, apply=True)
    assert merged.changeset is not None and merged.changeset.subject.startswith("dedupe: merged 2")
    memories = {m.id: m for m in system.global_vault.scan().memories}
    survivor = memories[dup.id]
    assert survivor.tags == ["redis", "cache"] and survivor.importance == 5 and survivor.access_count == 5
    assert keep.id in survivor.doc.get("supersedes")
    loser = memories[keep.id]
    assert loser.archived and loser.status == "superseded" and loser.doc.get("superseded_by") == dup.id
    assert not memories[other_layer.id].archived and not memories[unrelated.id].archived
    assert run_dedupe(system, apply=True)[0].actions == []  # nothing left to merge


def test_text_cosine() -> None:
    assert text_cosine({"a": 1}, {"a": 2}) == pytest.approx(1.0)
    assert text_cosine({"a": 1}, {"b": 1}) == 0.0
    assert text_cosine({}, {"a": 1}) == 0.0


def test_maintain_and_dedupe_cli(cli, home: Path) -> None:
    assert cli("mem", "init").code == 0
    vault = home / "memory"
    (vault / "short_term/tasks/old.md").write_text(
        "---\ncreated_at: 2020-01-01T00:00:00+00:00\nexpires_at: 2020-01-15T00:00:00+00:00\n---\n# 旧任务 old task\n",
        encoding="utf-8",
    )
    (vault / "long_term/knowledge/a.md").write_text(f"# 会话缓存\n\n{ZH}\n", encoding="utf-8")
    (vault / "long_term/knowledge/b.md").write_text(f"# 会话缓存\n\n{ZH}\n\n", encoding="utf-8")
    # reviewed by the person: uncommitted hand-made files would be left alone (tests/lifecycle/test_hand_edits.py)
    assert cli("mem", "commit", "-m", "memory: hand-made notes").code == 0
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    dry = cli("mem", "maintain", "--dry-run", "--json")
    assert dry.code == 0, dry.err
    [plan] = dry.json()
    assert [a["kind"] for a in plan["actions"]] == ["expire"] and len(plan["duplicates"]) == 1
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before
    table = cli("mem", "maintain", "--dry-run")
    assert "expire" in table.out and "旧任务" in table.out and "would do" in table.out
    real = cli("mem", "maintain")
    assert real.code == 0 and "expired 1" in real.out and "near-duplicates" in real.out
    assert (vault / "archive/short_term/tasks/old.md").exists()
    assert cli("mem", "maintain", "--json").json()[0]["actions"] == []
    applied = cli("mem", "dedupe", "--apply")
    assert applied.code == 0 and "merged 1" in applied.out, applied.out + applied.err
    assert len(list((vault / "archive/long_term/knowledge").glob("*.md"))) == 1
    assert "no near-duplicates" in cli("mem", "dedupe").out
