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
from aimate_memory.vault.roots import Roots
from tests.conftest import linked_models

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
    system.git.commit("test: counters written by hand")  # uncommitted, they would be unreviewed edits: left alone
    en1 = system.add("Order service database", EN, layer=Layer.LONG_TERM, category="decision")
    en2 = system.add("Order service database", EN + " Decided in March.", layer=Layer.LONG_TERM, category="decision")
    other_layer = system.add("选用 Redis 做会话缓存", ZH, layer=Layer.SHORT_TERM, category="note")
    unrelated = system.add("前端构建用 Vite", "Vite 比 webpack 快很多。", layer=Layer.LONG_TERM)
    system.refresh()
    groups = find_duplicates(system.store.index_for(system.global_vault), 0.92).groups
    members = sorted(sorted([g.survivor.id, *(e.id for e, _, _ in g.others)]) for g in groups)
    assert members == sorted([sorted([keep.id, dup.id]), sorted([en1.id, en2.id])])
    zh_group = next(g for g in groups if keep.id in {g.survivor.id, *(e.id for e, _, _ in g.others)})
    assert zh_group.survivor.id == dup.id  # the more important one survives
    assert all(method == "text" for _, _, method in zh_group.others)

    # `maintain` only reports them.
    [run] = run_maintenance(system.store)
    assert len(run.duplicates) == 2 and run.actions == []

    [dry] = run_dedupe(system.store, apply=False)
    assert len(dry.duplicates) == 2 and dry.changeset is None
    [merged] = run_dedupe(system.store, apply=True)
    assert merged.changeset is not None and merged.changeset.subject.startswith("dedupe: merged 2")
    memories = {m.id: m for m in system.global_vault.scan().memories}
    survivor = memories[dup.id]
    assert survivor.tags == ["redis", "cache"] and survivor.importance == 5
    assert survivor.access_count == 3  # a legacy count is read, never summed into the file (uses are journaled)
    assert keep.id in survivor.doc.get("supersedes")
    loser = memories[keep.id]
    assert loser.archived and loser.status == "superseded" and loser.doc.get("superseded_by") == dup.id
    assert not memories[other_layer.id].archived and not memories[unrelated.id].archived
    assert run_dedupe(system.store, apply=True)[0].actions == []  # nothing left to merge


def test_text_cosine() -> None:
    assert text_cosine({"a": 1}, {"a": 2}) == pytest.approx(1.0)
    assert text_cosine({"a": 1}, {"b": 1}) == 0.0
    assert text_cosine({}, {"a": 1}) == 0.0


def test_maintain_and_dedupe_cli(cli, initialized, home: Path) -> None:
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


def _members(search) -> list[list[str]]:
    return sorted(sorted([g.survivor.id, *(e.id for e, _, _ in g.others)]) for g in search.groups)


def test_a_second_search_reads_only_what_changed_and_finds_the_same_groups(system: MemorySystem) -> None:
    from aimate_memory.lifecycle.dedupe import DedupeMemo

    keep = system.add("选用 Redis 做会话缓存", ZH, layer=Layer.LONG_TERM, category="decision")
    dup = system.add("选用 Redis 做会话缓存", ZH + "\n", layer=Layer.LONG_TERM, category="decision")
    en = system.add("Order service database", EN, layer=Layer.LONG_TERM, category="decision")
    other = system.add("Frontend build", "We build the frontend with Vite; it is much faster.", layer=Layer.LONG_TERM)
    system.refresh()
    index = system.store.index_for(system.global_vault)
    first = find_duplicates(index, 0.92)
    assert first.searched == len(first.memo.checked) >= 4
    assert _members(first) == [sorted([keep.id, dup.id])]

    again = find_duplicates(index, 0.92, memo=DedupeMemo.from_json(first.memo.to_json()))  # as stored
    assert again.searched == 0 and _members(again) == _members(first)

    vault = system.global_vault
    vault.update(vault.load(other.rel_path), {"title": "Order service database"}, touch=False)
    (vault.root / other.rel_path).write_text(
        (vault.root / other.rel_path).read_text(encoding="utf-8").split("\n---\n")[0] + "\n---\n" + EN + "\n",
        encoding="utf-8",
    )  # now a near-duplicate of `en`
    system.refresh()
    third = find_duplicates(index, 0.92, memo=again.memo)
    assert third.searched == 1
    assert _members(third) == sorted([sorted([keep.id, dup.id]), sorted([en.id, other.id])])

    system.remove(dup.id)  # a partner gone (archived): its pair goes with it
    system.refresh()
    fourth = find_duplicates(index, 0.92, memo=third.memo)
    assert fourth.searched == 0 and _members(fourth) == [sorted([en.id, other.id])]
    assert find_duplicates(index, 0.99, memo=fourth.memo).searched == len(fourth.memo.checked)  # new threshold


def test_maintain_keeps_the_memo_and_a_damaged_one_means_a_full_search(system: MemorySystem) -> None:
    from aimate_memory.lifecycle.dedupe import MEMO_VERSION
    from aimate_memory.lifecycle.maintenance import MEMO_FILE, state_dir

    system.add("选用 Redis 做会话缓存", ZH, layer=Layer.LONG_TERM, category="decision")
    system.add("选用 Redis 做会话缓存", ZH + "\n", layer=Layer.LONG_TERM, category="decision")
    [first] = run_maintenance(system.store, dry_run=True)
    memo = state_dir(system.store, system.global_vault) / MEMO_FILE
    assert memo.is_file() and len(first.duplicates) == 1
    memo.write_text("{not json", encoding="utf-8")
    [second] = run_maintenance(system.store, dry_run=True)
    assert [g.to_dict() for g in second.duplicates] == [g.to_dict() for g in first.duplicates]
    assert memo.read_text(encoding="utf-8").startswith(f'{{"version": {MEMO_VERSION}')


@pytest.mark.slow
def test_vectors_decide_between_memories_the_embedder_reads(home: Path, tmp_path: Path, model_cache: Path) -> None:
    from aimate_memory.embedding.lazy import LazyEmbedder

    embedder = LazyEmbedder({"provider": "auto", "cache_dir": str(linked_models(model_cache, tmp_path / "models"))})
    with MemorySystem(Roots(home, None), clock=FixedClock(START), embedder=embedder) as system:
        system.init()
        zh = [system.add("选用 Redis 做会话缓存", text, layer=Layer.LONG_TERM) for text in (ZH, ZH + "\n")]
        en = [system.add("Order service database", text, layer=Layer.LONG_TERM) for text in (EN, EN + " In March.")]
        system.add("前端构建用 Vite", "Vite 比 webpack 快很多。", layer=Layer.LONG_TERM)
        system.add("Frontend build", "We build the frontend with Vite; it is much faster.", layer=Layer.LONG_TERM)
        system.refresh()
        index = system.store.index_for(system.global_vault)
        search = find_duplicates(index, 0.92)
        assert _members(search) == sorted([sorted(m.id for m in zh), sorted(m.id for m in en)])
        assert {method for g in search.groups for _, _, method in g.others} == {"vector"}
        assert search.memo.vectors == embedder.get().identity
        again = find_duplicates(index, 0.92, memo=search.memo)
        assert again.searched == 0 and [g.to_dict() for g in again.groups] == [g.to_dict() for g in search.groups]
