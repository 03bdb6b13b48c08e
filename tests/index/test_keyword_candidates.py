"""Keyword candidates on a real index when terms are common: bounded work, sensible results.

The budgets are shrunk so a few dozen memories behave like a 100k-memory vault."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.index import keyword_search
from aimate_memory.index.memory_index import MemoryIndex
from aimate_memory.index.textproc import query_terms
from aimate_memory.system import MemorySystem
from aimate_memory.vault.roots import Roots


@pytest.fixture
def system(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemorySystem]:
    monkeypatch.setenv("AIMATE_GIT__AUTO_COMMIT", "false")  # 70 commits would be most of the time
    clock = FixedClock(datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc))
    mem = MemorySystem(Roots(home, None), clock=clock, embedder=LazyEmbedder({"enabled": False}))
    mem.init()
    # Every note mentions the deploy pipeline (common); a few name a rare tool; written a day apart.
    for day in range(40):
        rare = " We tried Buildkite for the runners." if day % 10 == 3 else ""
        mem.add(f"Pipeline note {day}", f"The deploy pipeline failed on day {day}.{rare}")
        clock.advance(days=1)
    # Another common word that never shares a note with "pipeline".
    for number in range(32):
        mem.add(f"Incident review {number}", f"Incident {number}: the database ran out of connections.")
        clock.advance(hours=1)
    mem.add("部署流水线", "部署流水线今天又失败了，需要排查缓存。")
    mem.refresh()
    monkeypatch.setattr(keyword_search, "KEYWORD_POSTINGS_BUDGET", 30)
    yield mem
    mem.close()


def titles(index: MemoryIndex, query: str, limit: int = 100) -> list[str]:
    found = index.keyword_candidates(query_terms(query), limit)
    memories = index.memories(found.memory_rowids.tolist())
    return [memories[rowid].title for rowid in dict.fromkeys(found.memory_rowids.tolist())]


def test_postings_count_stems_and_chinese_bigrams(system: MemorySystem) -> None:
    index = system.store.index_for(system.global_vault)
    postings = index._keywords.postings(query_terms("pipelines failing buildkite 流水线 zzz"))
    pipeline, fail, buildkite, liushui, shuixian, nothing = postings
    assert pipeline >= 40 and fail >= 40  # "pipelines" and "failing" count as their stems
    assert buildkite == 4 and liushui == shuixian == 1 and nothing == 0


def test_a_rare_term_chooses_the_candidates_when_the_rest_is_common(system: MemorySystem) -> None:
    index = system.store.index_for(system.global_vault)
    found = titles(index, "buildkite deploy pipeline")
    assert sorted(found) == ["Pipeline note 13", "Pipeline note 23", "Pipeline note 3", "Pipeline note 33"]


def test_a_query_of_common_words_takes_the_newest_matches_unranked(system: MemorySystem) -> None:
    index = system.store.index_for(system.global_vault)
    assert titles(index, "deploy pipeline", 5) == [f"Pipeline note {day}" for day in range(39, 34, -1)]
    found = index.keyword_candidates(query_terms("deploy pipeline"), 5)
    assert set(found.scores.tolist()) == {1.0}  # keyword relevance cannot tell them apart: no bm25


def test_when_no_chunk_holds_every_common_term_the_rarest_decides(system: MemorySystem) -> None:
    index = system.store.index_for(system.global_vault)
    # both are over the budget and never meet: the rarer one ("incident", 32 notes) ranks its newest
    assert titles(index, "pipeline incident", 5) == [f"Incident review {n}" for n in range(31, 26, -1)]


def test_a_rare_chinese_term_beside_a_common_english_one(system: MemorySystem) -> None:
    index = system.store.index_for(system.global_vault)
    assert titles(index, "deploy 失败") == ["部署流水线"]


def test_hybrid_search_with_common_terms_still_answers_in_both_languages(system: MemorySystem) -> None:
    english = [hit.memory.title for hit in system.search("buildkite pipeline", 10).results]
    assert english and all(title.startswith("Pipeline note") for title in english)
    chinese = [hit.memory.title for hit in system.search("流水线 缓存", 3).results]
    assert chinese[0] == "部署流水线"
