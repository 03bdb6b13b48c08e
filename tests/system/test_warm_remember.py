"""What a long-lived process (the daemon, an MCP server) no longer does twice for a `remember` or a session start
(docs/design.md §12, "What a warm remember reads once"), with the real models, English and Chinese — and that
each answer is the one it gave before: a capture waiting for review is read once per version of its file (an
edit by hand is read again); the facade's own searches cut no snippets but find, score and order the same; a
sync that changed nothing keeps the vector search's sign bits, one that wrote a memory makes it findable."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from aimate_memory.index.memory_index import MemoryIndex
from aimate_memory.index.refresh_embed import chunks_without_vectors
from aimate_memory.system import MemorySystem
from tests.conftest import in_process

if TYPE_CHECKING:
    from collections.abc import Callable

    from aimate_memory.embedding.lazy import LazyEmbedder

pytestmark = pytest.mark.slow

WAITING = {
    "en": ("The staging server is at staging.example.com", "Staging moved: the server is now staging2.example.com"),
    "zh": ("测试服务器地址是 staging.example.com", "测试服务器迁移了，现在的地址是 staging2.example.com"),
}
EDITED = {"en": "The staging server moved to staging3.example.com", "zh": "测试服务器搬到了 staging3.example.com"}
MEMORIES = (
    ("We decided to keep the session cache in Redis with a 30 s timeout", "decision"),
    ("我们决定把计费接口的缓存放在 Redis 集群里", "decision"),
    ("The billing API runs behind nginx on port 8080", "knowledge"),
    ("计费服务的日志写到 /var/log/billing 目录", "knowledge"),
)
QUESTIONS = ("which cache did we choose for the billing API?", "计费接口的缓存用什么？")


@pytest.mark.parametrize("language", sorted(WAITING))
def test_a_waiting_capture_said_again_is_read_once_per_version(system: MemorySystem, language: str) -> None:
    before, after = WAITING[language]
    assert system.remember(before, kind="knowledge").action == "written"
    waiting = system.remember(after, kind="knowledge", confidence=0.7, source="mcp")
    assert waiting.action == "pending" and waiting.memory is not None
    again = system.remember(after, kind="knowledge", confidence=0.7, source="mcp")
    assert again.action == "exists" and again.memory is not None and again.memory.id == waiting.memory.id
    assert again.reason.startswith("same words as")
    # The person rewrites the waiting proposal by hand: its old words are no longer waiting, its new ones are.
    path = system.global_vault.abs_path(waiting.memory.rel_path)
    path.write_text(path.read_text(encoding="utf-8").replace(after, EDITED[language]), encoding="utf-8")
    system.refresh()
    edited = system.remember(EDITED[language], kind="knowledge", confidence=0.7, source="mcp")
    assert edited.action == "exists" and edited.memory is not None and edited.memory.id == waiting.memory.id
    old_words = system.remember(after, kind="knowledge", confidence=0.7, source="mcp")
    assert old_words.memory is not None and old_words.memory.id != waiting.memory.id
    assert not old_words.reason.startswith("same words as")


def test_a_search_without_snippets_finds_the_same(system: MemorySystem, monkeypatch: pytest.MonkeyPatch) -> None:
    for text, kind in MEMORIES:
        assert system.remember(text, kind=kind).action == "written"
    # One moment for both searches: a memory's age is read to the second, and two searches that straddled a
    # second's turn (more likely under load) scored its time factor apart and failed this exact comparison.
    moment = system.store.clock.now()
    monkeypatch.setattr(system.store.clock, "now", lambda: moment)
    for question in QUESTIONS:
        shown = system.search(question, 10)
        bare = system.search(question, 10, snippets=False)
        assert shown.results, question
        assert [(hit.memory.id, hit.score, hit.factors) for hit in bare.results] == [
            (hit.memory.id, hit.score, hit.factors) for hit in shown.results
        ]
        assert any(hit.snippet for hit in shown.results)
        assert all(hit.snippet == "" and hit.highlights == [] for hit in bare.results)


def test_a_sync_keeps_the_sign_bits_unless_it_wrote(system: MemorySystem) -> None:
    for text, kind in MEMORIES[:2]:
        system.remember(text, kind=kind)
    index = system.store.index_for(system.global_vault)
    system.search(QUESTIONS[0], 5)
    kept = index._vectors._bits
    assert kept is not None
    system.refresh()  # nothing changed on disk
    system.search(QUESTIONS[0], 5)
    assert index._vectors._bits is kept
    written = system.remember("计费服务的告警发到 #billing-alerts 频道", kind="knowledge")
    assert written.memory is not None
    found = system.search("计费告警发到哪个频道", 5)
    assert index._vectors._bits is not kept
    hit = next(hit for hit in found.results if hit.memory.id == written.memory.id)
    assert "similarity" in hit.factors  # found by its vector too, not by its words alone
    assert not chunks_without_vectors(index.conn)  # the write's own chunks looked at alone, every one embedded
    # A restatement supersedes (two files written) and a removal: the bits patched after each write are the
    # bits a fresh load of the whole table gives, in the same order.
    restated = system.remember(
        "We decided to keep the session cache in Redis, with a 30 second timeout", kind="decision"
    )
    assert restated.action == "written" and restated.supersedes is not None
    _assert_bits_as_loaded(index)
    system.remove(written.memory.id, purge=True)  # the daemon's watcher then syncs the path it saw go
    system.store.refresh_vault(system.global_vault, [written.memory.rel_path.as_posix()])
    assert not any(hit.memory.id == written.memory.id for hit in system.search("计费告警发到哪个频道", 5).results)
    _assert_bits_as_loaded(index)


def _assert_bits_as_loaded(index: MemoryIndex) -> None:
    patched = index._vectors._bits
    assert patched is not None
    index._vectors.forget()
    loaded = index._vectors._sign_bits()
    for column in ("chunk_rowids", "memory_rowids", "scripts", "words"):
        assert np.array_equal(getattr(patched, column), getattr(loaded, column)), column


@pytest.mark.slow
def test_after_remembers_the_daemon_answers_as_a_fresh_process(
    cli_vectors, home: Path, loaded_models: LazyEmbedder, isolated_git: None
) -> None:
    """The daemon's sign bits patched by each `remember` (and kept by the watcher's sync after it) rank as the
    bits a fresh process reads whole: the same results, in the same order, in English and Chinese. The vault
    it starts from is written in process with the module's loaded models (what `init` and `add TEXT` write),
    where five CLI processes each loaded them (~1 s of CPU apiece)."""
    with in_process(home, models=loaded_models) as system:
        for text, _kind in MEMORIES:
            system.add(text, "", layer="long_term", importance=3)
    daemon = {"AIMATE_NO_DAEMON": "0"}
    assert cli_vectors("mem", "daemon", "start", env=daemon).code == 0
    try:
        deadline = time.monotonic() + 120
        while not json.loads(cli_vectors("mem", "daemon", "status", "--json", env=daemon).out or "{}").get(
            "model_loaded"
        ):
            assert time.monotonic() < deadline, "the daemon's models did not load"
            time.sleep(0.5)
        for sentence in ("We decided to keep the billing cache warm at startup", "我们决定计费缓存在启动时预热"):
            assert cli_vectors("mem", "remember", sentence, env=daemon).code == 0
            for question in QUESTIONS:
                served = cli_vectors("mem", "search", question, "--json", env=daemon)
                here = cli_vectors("mem", "search", question, "--json", env={"AIMATE_NO_DAEMON": "1"})
                ranked = [[(hit["id"], hit["score"]) for hit in json.loads(found.out)] for found in (served, here)]
                assert [hit_id for hit_id, _ in ranked[0]] == [hit_id for hit_id, _ in ranked[1]], question
                assert [score for _, score in ranked[0]] == pytest.approx([score for _, score in ranked[1]], abs=1e-3)
    finally:
        cli_vectors("mem", "daemon", "stop", env=daemon)


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_context_built_again_to_fit_searches_once_until_a_write(
    system: MemorySystem, question: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session start's context built again with a smaller budget (the hook's `BUDGET_TRIES`) reuses the first
    build's search — the same items — and a write in between makes it search again."""
    for text, kind in MEMORIES:
        system.remember(text, kind=kind)
    searched: list[str] = []
    search = system.retrieval.search
    monkeypatch.setattr(
        system.retrieval, "search", lambda query, *a, **k: searched.append(query) or search(query, *a, **k)
    )
    first = system.build_context(question, 3000)
    smaller = system.build_context(question, 400)
    assert searched == [question]
    assert "Redis" in first.text
    with monkeypatch.context() as nothing_kept:  # what the same build gives searching anew: the same text
        nothing_kept.setattr("aimate_memory.system.context.KEPT_SEARCH_SECONDS", -1.0)
        assert system.build_context(question, 400).text == smaller.text
    assert searched == [question, question]
    written = system.remember("We decided the billing cache keeps seven days of entries", kind="decision")
    assert written.memory is not None and written.memory.title in system.build_context(question, 3000).text
    assert searched.count(question) == 3  # (the remember's own supersede search is in the list too)


def test_the_conflict_pool_kept_across_writes_equals_one_read_whole(
    system: MemorySystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After each `remember` (a new decision, a superseding one, a rule; English and Chinese) the pool a
    long-lived process keeps — the vectors of the memories whose files did not change kept, the rest read —
    is the pool a fresh process reads whole, row for row, bit for bit; and one capture walks the core and
    decision folders once, not once per check (docs/design.md §12, "A remember's own wall")."""
    import aimate_memory.system.conflicts as conflicts_module
    from aimate_memory.system.conflicts import Conflicts

    walks: list[int] = []
    walk = conflicts_module.sides_stats
    monkeypatch.setattr(conflicts_module, "sides_stats", lambda root: (walks.append(1), walk(root))[1])
    vault = system.global_vault
    sentences = (
        *((text, kind) for text, kind in MEMORIES if kind == "decision"),
        ("We decided to keep the session cache in Redis, with a 60 s timeout", "decision"),  # changes the first
        ("Always run ruff before committing", "rule"),
        ("提交代码前一定要先运行测试", "rule"),
    )
    for sentence, kind in sentences:
        system.conflicts.check(sentence, vault)  # the pool as it stood before this write
        walks.clear()
        assert system.remember(sentence, kind=kind).action in ("written", "conflict")
        assert len(walks) == 1  # the restatement's check and the conflict check share one walk
        kept = system.conflicts._pool(vault)
        fresh = Conflicts(system.store, system.retrieval, system.memories, system.conflicts._reader)
        whole = fresh._pool(vault)
        assert [one.id for one in kept.sided] == [one.id for one in whole.sided] and kept.vectors is not None
        assert whole.vectors is not None and np.array_equal(kept.vectors, whole.vectors)


LEFT_FOR_AFTER = {
    "en": ("We decided the invoice exporter runs on FastAPI and writes Parquet nightly", "发票导出器用什么框架？"),
    "zh": ("我们决定发票导出器每天夜里写 Parquet 文件", "what does the invoice exporter write nightly?"),
}


@pytest.mark.parametrize("language", sorted(LEFT_FOR_AFTER))
def test_what_a_remember_leaves_for_after_its_answer(
    system: MemorySystem, language: str, home: Path, loaded_models: LazyEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `remember` in a process that keeps serving (the daemon) leaves one piece of work for after its answer:
    embedding the memory just written as a later capture's candidate and as a question in the other script
    reads it (docs/design.md §12, "What a remember leaves for after its answer"). Done, the next search embeds
    none of it — and finds, scores and orders what a fresh process finds; the memory itself was written and
    indexed before the answer."""
    from aimate_memory.retrieval.hybrid import said_forms

    for text, kind in MEMORIES:
        system.remember(text, kind=kind)
    left: list[Callable[[], object]] = []
    system.store.after_answer = left.append
    sentence, question = LEFT_FOR_AFTER[language]
    written = system.remember(sentence, kind="decision")
    assert written.action == "written" and written.memory is not None and len(left) == 1
    newest = said_forms([system.store.index_for(system.global_vault)], 8, [written.memory.id])
    assert len(newest) == 1 and "Parquet" in newest[0]  # indexed before the answer, and its cross-script form
    model = loaded_models.get()
    assert model is not None
    embedded: list[str] = []
    embed = model.embed
    monkeypatch.setattr(model, "embed", lambda texts: (embedded.extend(texts), embed(texts))[1])
    for work in left:
        work()
    # New to this process: the next search would have embedded its form, the next capture its body.
    assert newest[0] in embedded and written.memory.body.strip() in embedded
    embedded.clear()
    served = [(hit.memory.id, round(hit.score, 4)) for hit in system.search(question).results]
    assert written.memory.id in [memory_id for memory_id, _ in served] and newest[0] not in embedded
    with in_process(home, models=loaded_models) as fresh:
        assert [(hit.memory.id, round(hit.score, 4)) for hit in fresh.search(question).results] == served


@pytest.mark.parametrize("language", sorted(LEFT_FOR_AFTER))
def test_a_captures_own_vector_is_its_query_vector_bit_for_bit(loaded_models: LazyEmbedder, language: str) -> None:
    """What the supersede cosines rely on (`Capture._cosines` takes the capture's vector from the search's query
    path, kept, instead of embedding it again as a document): the two paths give the same vector, bit for bit,
    for the default embedder — so no supersede decision moves."""
    model = loaded_models.get()
    assert model is not None
    for text in (LEFT_FOR_AFTER[language][0], *(text for text, _ in MEMORIES)):
        assert np.array_equal(model.embed_query(text), model.embed([text])[0]), text
