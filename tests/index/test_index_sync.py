"""The index against real files, real SQLite + sqlite-vec and the real embedding models."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from aimate_memory.clock import SystemClock
from aimate_memory.embedding.base import EmbedderUnavailable
from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.errors import AimateError
from aimate_memory.system import MemorySystem
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer
from aimate_memory.vault.roots import Roots
from tests.conftest import linked_models, reembedded, seed_models

MEMORIES = [
    ("选用 Redis 做会话缓存", "我们决定用 Redis 做会话缓存，因为延迟低，而且支持过期时间。", "decision"),
    ("数据库迁移规范", "所有数据库迁移必须可回滚，上线前在预发环境演练。", "knowledge"),
    ("Use pytest fixtures", "We prefer pytest fixtures over unittest setUp methods for test isolation.", "knowledge"),
    ("Deploy checklist", "Before deploying, run the smoke tests and check the error budget dashboard.", "knowledge"),
    ("Login bug", "The login page times out when the OAuth provider is slow; add a retry with backoff.", "knowledge"),
]


@pytest.fixture(scope="session")
def shared_embedder(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> LazyEmbedder:
    """One loaded model for the whole session: loading costs ~2 s per process."""
    cache = linked_models(model_cache, tmp_path_factory.mktemp("index-sync") / "models")
    embedder = LazyEmbedder({"enabled": True, "provider": "auto", "model": None, "cache_dir": str(cache)})
    assert embedder.get() is not None, embedder.unavailable
    return embedder


@pytest.fixture
def system(home: Path, shared_embedder: LazyEmbedder) -> MemorySystem:
    mem = MemorySystem(Roots(home, None), clock=SystemClock(), embedder=shared_embedder)  # the shared model
    mem.init()
    for title, body, category in MEMORIES:
        mem.add(title, body, layer=Layer.LONG_TERM, category=category)
    yield mem
    mem.close()


def ranked_titles(system: MemorySystem, query: str, k: int = 3) -> list[str]:
    return [hit.memory.title for hit in system.search(query, k).results]


def test_sync_indexes_everything_and_a_second_sync_reads_nothing(system: MemorySystem) -> None:
    first = system.refresh()["global"]
    assert first.added == len(MEMORIES) + 2 and first.embedded_chunks > 0  # + the two core templates
    second = system.refresh()["global"]
    assert second.changed == 0 and second.unchanged == first.scanned and second.embedded_chunks == 0


def test_chinese_and_english_queries_find_their_memories(system: MemorySystem) -> None:
    system.refresh()
    assert ranked_titles(system, "会话缓存用的什么")[0] == "选用 Redis 做会话缓存"
    assert ranked_titles(system, "迁移回滚")[0] == "数据库迁移规范"
    assert ranked_titles(system, "which test framework do we prefer")[0] == "Use pytest fixtures"
    assert ranked_titles(system, "what to do before deploying")[0] == "Deploy checklist"
    response = system.search("OAuth timeout", 3)
    assert response.mode == "hybrid" and response.results[0].memory.title == "Login bug"
    assert "OAuth" in response.results[0].snippet and response.results[0].highlights


def test_deleting_the_index_and_reindexing_gives_identical_results(system: MemorySystem, home: Path) -> None:
    system.refresh()
    queries = ["缓存", "pytest", "deploy smoke tests", "数据库", "retry backoff"]
    before = {q: [(h.memory.id, round(h.score, 6)) for h in system.search(q, 5).results] for q in queries}
    system.close()
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (home / name).unlink(missing_ok=True)
    report = system.store.reindex()["global"]
    assert report.rebuilt and report.added == len(MEMORIES) + 2
    after = {q: [(h.memory.id, round(h.score, 6)) for h in system.search(q, 5).results] for q in queries}
    assert after == before


def test_moved_file_is_found_at_its_new_path_without_reembedding(system: MemorySystem, home: Path) -> None:
    system.refresh()
    memory = next(m for m in system.list() if m.title == "Deploy checklist")
    source = home / "memory" / memory.rel_path.as_posix()
    target = home / "memory" / "long_term" / "decisions" / "deploy.md"
    shutil.move(source, target)
    report = system.refresh()["global"]
    assert report.moved == 1 and report.embedded_chunks == 0 and report.added == report.deleted == 0
    hit = system.search("deploy smoke tests", 1).results[0]
    assert hit.memory.id == memory.id and hit.memory.rel_path.as_posix() == "long_term/decisions/deploy.md"
    # The frontmatter decides (docs/design.md §3); the folder that disagrees is a diagnosed problem.
    assert hit.memory.category == "knowledge"
    assert any("category 'knowledge'" in problem.reason for problem in system.memories.diagnose())


def test_edit_reembeds_only_the_changed_chunk(system: MemorySystem, home: Path) -> None:
    system.refresh()
    memory = next(m for m in system.list() if m.title == "Login bug")
    path = home / "memory" / memory.rel_path.as_posix()
    path.write_text(path.read_text(encoding="utf-8") + "\n## 补充\n\n登录超时与 OAuth 服务商有关。\n", encoding="utf-8")
    report = system.refresh()["global"]
    assert report.updated == 1 and report.embedded_chunks == 1
    assert system.search("登录超时", 1).results[0].memory.id == memory.id


def test_broken_file_keeps_its_last_good_entry_and_does_not_block_others(system: MemorySystem, home: Path) -> None:
    system.refresh()
    memory = next(m for m in system.list() if m.title == "Use pytest fixtures")
    path = home / "memory" / memory.rel_path.as_posix()
    path.write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    new = home / "memory" / "long_term" / "knowledge" / "hand.md"
    new.write_text("# 手写的笔记\n\n向量数据库选型：sqlite-vec。\n", encoding="utf-8")
    report = system.refresh()["global"]
    assert report.errors == 1 and report.added == 1
    assert ranked_titles(system, "sqlite-vec 选型", 1) == ["手写的笔记"]
    assert "Use pytest fixtures" in ranked_titles(system, "pytest fixtures", 3)  # last good entry
    errors = system.store.index_for(system.global_vault).file_errors()
    assert [(e[0], e[2]) for e in errors] == [(memory.rel_path.as_posix(), "BrokenYamlError")]


def test_deleted_file_leaves_the_index(system: MemorySystem, home: Path) -> None:
    system.refresh()
    memory = next(m for m in system.list() if m.title == "数据库迁移规范")
    os.unlink(home / "memory" / memory.rel_path.as_posix())
    assert system.refresh()["global"].deleted == 1
    assert "数据库迁移规范" not in ranked_titles(system, "数据库迁移", 5)


def test_filters_layer_status_tags_and_time(system: MemorySystem) -> None:
    system.add("短期任务：修复登录", "明天修复登录超时", layer=Layer.SHORT_TERM, category="task", tags=["todo"])
    system.refresh()
    only_short = system.search("登录", 5, MemoryFilter(layers=(Layer.SHORT_TERM,))).results
    assert [h.memory.layer for h in only_short] == [Layer.SHORT_TERM]
    tagged = system.search("登录", 5, MemoryFilter(tags=("todo",))).results
    assert [h.memory.title for h in tagged] == ["短期任务：修复登录"]
    future = SystemClock().now().replace(year=2100)
    assert system.search("登录", 5, MemoryFilter(updated_after=future)).results == []
    assert len(system.query(MemoryFilter(layers=(Layer.LONG_TERM,)))) == len(MEMORIES)


def test_reads_are_journaled_not_written_and_results_are_not_uses(system: MemorySystem, home: Path) -> None:
    system.refresh()
    before = {p: p.read_bytes() for p in (home / "memory").rglob("*.md")}
    hits = system.search("Redis 缓存", 2).results
    assert hits and system.store.journal_for(system.global_vault).tally() == {}
    system.read(hits[0].memory.id)
    tallies = system.store.journal_for(system.global_vault).tally()
    assert set(tallies) == {hits[0].memory.id}
    assert {p: p.read_bytes() for p in (home / "memory").rglob("*.md")} == before


def test_sensitive_memories_are_not_indexed(home: Path, shared_embedder: LazyEmbedder) -> None:
    (home).mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text("privacy:\n  sensitive_keywords: [内部密码, secret-project]\n")
    mem = MemorySystem(Roots(home, None), embedder=shared_embedder)
    mem.init()
    with pytest.raises(AimateError, match="nothing written"):  # refused before it reaches the disk
        mem.add("VPN", "内部密码是 hunter2", category="knowledge")
    # Written by hand instead: kept out of the index.
    (home / "memory/long_term/knowledge/vpn.md").write_text("# VPN\n\n内部密码是 hunter2\n", encoding="utf-8")
    mem.add("Public", "the public roadmap", category="knowledge")
    report = mem.refresh()["global"]
    assert report.excluded == 1
    assert "VPN" not in [h.memory.title for h in mem.search("hunter2 VPN 内部密码", 5).results]
    assert mem.search("roadmap", 5).results[0].memory.title == "Public"
    mem.close()


def test_sync_limited_to_changed_paths_handles_edits_moves_and_folder_renames(system: MemorySystem, home: Path) -> None:
    system.refresh()
    index = system.store.index_for(system.global_vault)
    memory = next(m for m in system.list() if m.title == "Deploy checklist")
    vault = home / "memory"
    old = memory.rel_path.as_posix()
    new = "long_term/decisions/deploy.md"
    (vault / old).rename(vault / new)
    report = index.refresh(paths=[old, new])
    assert (report.scanned, report.moved, report.deleted, report.added) == (1, 1, 0, 0)
    (vault / "long_term" / "decisions").rename(vault / "long_term" / "决定")
    report = index.refresh(paths=["long_term/decisions", "long_term/决定"])
    assert report.moved == 2 and report.deleted == 0  # the Redis decision and the moved checklist
    hit = system.search("deploy smoke tests", 1).results[0]
    # The frontmatter's category stands; the renamed folder only changes the path.
    assert hit.memory.rel_path.as_posix() == "long_term/决定/deploy.md" and hit.memory.category == "knowledge"
    (vault / "long_term" / "决定" / "deploy.md").unlink()
    assert index.refresh(paths=["long_term/决定/deploy.md"]).deleted == 1
    assert index.refresh().changed == 0  # the full walk agrees with what the targeted syncs did


def test_estimated_vector_scores_keep_the_exact_head_and_search_verifies_contenders(
    system: MemorySystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aimate_memory.index.candidates import TAIL_SAMPLES
    from aimate_memory.retrieval import hybrid

    topics = ["cache", "deploy", "login", "数据库", "会话", "tests", "queue"]
    for n in range(60):
        topic = topics[n % len(topics)]
        system.add(f"Note {n} on {topic}", f"Meeting note {n}: what we decided about {topic} this week.")
    system.refresh()
    index = system.store.index_for(system.global_vault)
    query = system.store.embedder.get().embed_query("which cache did we choose")
    everything = index.vector_candidates(query, 1000, 1000)
    estimated = index.vector_candidates(query, 3, 1000)
    assert everything.exact.all() and len(everything.scores) > 3 + TAIL_SAMPLES
    assert estimated.exact.sum() == 3 + TAIL_SAMPLES
    assert set(estimated.chunk_rowids.tolist()) == set(everything.chunk_rowids.tolist())
    truth = dict(zip(everything.chunk_rowids.tolist(), everything.scores.tolist(), strict=True))
    head = estimated.take(estimated.exact)
    for rowid, value in zip(head.chunk_rowids.tolist(), head.scores.tolist(), strict=True):
        assert value == pytest.approx(truth[rowid], abs=1e-6)

    def top(k: int = 8) -> list[tuple[str, float, float]]:
        return [(hit.memory.id, hit.score, hit.factors["vector"]) for hit in system.search("which cache", k).results]

    all_exact = top()
    monkeypatch.setattr(hybrid, "EXACT_VECTOR_CANDIDATES", 3)
    verified = top()  # the contenders' estimated cosines are replaced by exact ones before the final ranking
    assert [row[0] for row in verified] == [row[0] for row in all_exact]
    assert [row[2] for row in verified] == pytest.approx([row[2] for row in all_exact], abs=1e-6)


def _vector_rows(system: MemorySystem) -> tuple[int, int, str | None]:
    conn = system.store.index_for(system.global_vault).conn
    chunks = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    signed = conn.execute("SELECT COUNT(*) FROM chunks_vec").fetchone()[0]
    flag = conn.execute("SELECT value FROM meta WHERE key = 'vectors_pending'").fetchone()
    return chunks, signed, flag[0] if flag else None


@pytest.mark.parametrize(
    ("title", "body"),
    [
        ("Kafka retention", "Keep order events for 14 days in Kafka."),
        ("日志保留策略", "订单事件在 Kafka 中保留十四天。"),
    ],
)
def test_chunks_added_without_the_model_get_vectors_at_the_next_sync_that_has_it(
    system: MemorySystem, home: Path, title: str, body: str
) -> None:
    system.refresh()
    assert _vector_rows(system)[2] == "0"  # every chunk has its vector: unchanged syncs skip the scan
    # Another process whose model is unavailable (same configuration, so the same index) adds a memory.
    offline = LazyEmbedder(dict(system.store.embedder.settings))
    offline.unavailable = EmbedderUnavailable("test: model unavailable", None)
    other = MemorySystem(Roots(home, None), clock=SystemClock(), embedder=offline)
    other.add(title, body, layer=Layer.LONG_TERM, category="knowledge")
    other.refresh()
    other.close()
    chunks, signed, flag = _vector_rows(system)
    assert flag == "1" and signed < chunks
    report = system.refresh()["global"]
    assert report.embedded_chunks >= 1
    chunks, signed, flag = _vector_rows(system)
    assert (signed, flag) == (chunks, "0")
    assert system.search(body, 1).results[0].memory.title == title


def test_an_index_from_before_the_pending_flag_is_checked_once(system: MemorySystem) -> None:
    system.refresh()
    conn = system.store.index_for(system.global_vault).conn
    missing = conn.execute("SELECT MAX(rowid) FROM chunks").fetchone()[0]
    conn.execute("DELETE FROM chunks_vec WHERE rowid = ?", (missing,))
    conn.execute("DELETE FROM meta WHERE key = 'vectors_pending'")
    system.refresh()
    chunks, signed, flag = _vector_rows(system)
    assert (signed, flag) == (chunks, "0")


def test_a_move_seen_half_way_by_a_sync_ends_up_indexed(system: MemorySystem, home: Path) -> None:
    # Found by tests/reliability/test_concurrent_writers.py: `rm` writes the archive copy, then removes the
    # original; a sync in between records the copy as a duplicate id, and it had stayed out of the index.
    system.refresh()
    memory = next(m for m in system.memories.scan().memories if m.title == "数据库迁移规范")
    vault = home / "memory"
    copy = vault / "archive" / memory.rel_path
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(vault / memory.rel_path, copy)
    first = system.refresh()["global"]
    assert first.errors == 1  # the copy: a duplicate id while both exist
    (vault / memory.rel_path).unlink()
    system.refresh()
    indexed = {m.id: m.rel_path.as_posix() for m in system.query(MemoryFilter(statuses=()))}
    assert indexed[memory.id] == copy.relative_to(vault).as_posix()
    assert system.search("数据库迁移", 3).results[0].memory.id == memory.id


def test_vectors_of_an_older_bundled_minilm_are_all_embedded_again(
    system: MemorySystem, home: Path, model_cache: Path
) -> None:
    # An index written before the bundled MiniLM ran quantized carries the fingerprint without its revision:
    # its vectors are from the float model, so the next sync starts a worker that re-embeds every chunk
    # (a process of its own, which loads the models from the home like any command).
    seed_models(home, model_cache)
    system.refresh()
    index = system.store.index_for(system.global_vault)
    chunks = index.conn.execute("SELECT COUNT(DISTINCT chunk_hash) FROM chunks").fetchone()[0]
    index.conn.execute(
        "UPDATE meta SET value = ? WHERE key = 'embedder_fingerprint'", ('{"model": null, "provider": "auto"}',)
    )
    assert index.needs_rebuild() == "the embedding model changed"
    report = system.refresh()["global"]
    assert not report.rebuilt and "re-embedding in the background" in report.warnings[0]
    assert ranked_titles(system, "Redis 会话缓存")[0] == "选用 Redis 做会话缓存"  # by keywords meanwhile
    assert reembedded(system), (home / "state" / "reembed.log").read_text()
    assert index.conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == chunks
    assert ranked_titles(system, "会话缓存用的是什么")[0] == "选用 Redis 做会话缓存"


@pytest.mark.parametrize("title", ["数据库迁移规范", "Deploy checklist"])
def test_a_refresh_of_named_files_still_finds_who_else_holds_their_id(
    system: MemorySystem, home: Path, title: str
) -> None:
    """A refresh of named files (a write's, the watcher's) reads the index's rows for those paths and for the
    ids the files say, not every row (index/refresh.py): a copy named alone is still a duplicate of the file
    it was copied from, and becomes the memory once that file is gone — as with every row read."""
    system.refresh()
    index = system.store.index_for(system.global_vault)
    memory = next(m for m in system.memories.scan().memories if m.title == title)
    vault = home / "memory"
    copy = (Path("archive") / memory.rel_path).as_posix()
    (vault / copy).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(vault / memory.rel_path, vault / copy)
    report = index.refresh(paths=[copy])
    assert (report.errors, report.added) == (1, 0)  # a duplicate: the original holds the id, not named
    reason = index.conn.execute("SELECT reason FROM file_errors WHERE path = ?", (copy,)).fetchone()[0]
    assert memory.rel_path.as_posix() in reason
    (vault / memory.rel_path).unlink()
    assert index.refresh(paths=[memory.rel_path.as_posix()]).deleted == 1
    report = index.refresh(paths=[copy])
    assert (report.errors, report.added) == (0, 1)
    indexed = {m.id: m.rel_path.as_posix() for m in system.query(MemoryFilter(statuses=()))}
    assert indexed[memory.id] == copy
    assert index.refresh().changed == 0  # the full walk agrees with what the named refreshes did
