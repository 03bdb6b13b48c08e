"""Per-term statistics for keyword evidence (MemoryIndex.term_matches): the same values as asking FTS5
plainly (a count and a match per term), with bounded work when terms are common.

The budget is shrunk so a few dozen memories behave like a 100k-memory vault."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.index import keyword_search
from aimate_memory.index.memory_index import MemoryIndex
from aimate_memory.index.textproc import fts_query_from_terms, query_terms
from aimate_memory.retrieval import relevance
from aimate_memory.system import MemorySystem
from aimate_memory.vault.roots import Roots

QUERIES = [
    "why did the deploy pipelines fail",  # stems: pipelines → pipelin, fail/failed
    "Buildkite runners for the pipeline",  # a rare term and a common one
    "database connections incident",  # common terms that never share a note with "pipeline"
    "部署流水线 缓存",  # Chinese bigrams, common and rare
    "猫 和 pipeline",  # a lone CJK character: a prefix term
    "quantum chromodynamics",  # in no chunk
    "流水线 pipeline 数据库",  # mixed
]


@pytest.fixture
def system(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemorySystem]:
    monkeypatch.setenv("AIMATE_GIT__AUTO_COMMIT", "false")
    clock = FixedClock(datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc))
    mem = MemorySystem(Roots(home, None), clock=clock, embedder=LazyEmbedder({"enabled": False}))
    mem.init()
    for day in range(30):
        rare = " We tried Buildkite for the runners." if day % 10 == 3 else ""
        mem.add(f"Pipeline note {day}", f"The deploy pipeline failed on day {day}.{rare}")
        clock.advance(days=1)
    for number in range(20):
        mem.add(f"Incident review {number}", f"Incident {number}: the database ran out of connections.")
        clock.advance(hours=1)
    for number in range(12):
        cache = "，需要排查缓存" if number % 4 == 0 else ""
        cat = "。猫咪在键盘上" if number % 3 == 0 else ""
        mem.add(f"部署记录 {number}", f"部署流水线今天又失败了{cache}{cat}。数据库也慢。")
        clock.advance(hours=1)
    mem.refresh()
    yield mem
    mem.close()


def plain_matches(
    index: MemoryIndex, terms: list[tuple[str, bool]], chunks: np.ndarray
) -> tuple[list[int], np.ndarray]:
    """What relevance first did: per term, FTS5 counts its chunks and matches it within the given ones."""
    counts, matched = [], np.zeros((len(terms), len(chunks)), dtype=bool)
    wanted = json.dumps(chunks.tolist())
    for number, term in enumerate(terms):
        match = fts_query_from_terms([term])
        counts.append(
            index.conn.execute("SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (match,)).fetchone()[0]
        )
        holding = index.conn.execute(
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
            (match, wanted),
        ).fetchall()
        matched[number] = np.isin(chunks, [row[0] for row in holding])
    return counts, matched


def evidence_of(documents: list[int] | np.ndarray, rows: int, matched: np.ndarray) -> np.ndarray:
    return relevance.keyword_evidence(matched, relevance.term_weights(documents, rows))


def assert_same_as_plain(index: MemoryIndex, query: str, chunks: np.ndarray) -> None:
    terms = query_terms(query)
    found = index.term_matches(terms, chunks)
    counts, matched = plain_matches(index, terms, chunks)
    rows = index.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    assert found.rows == rows
    assert found.documents.tolist() == counts, query
    assert (found.matched == matched).all(), query
    assert (
        evidence_of(found.documents, found.rows, found.matched).tolist() == evidence_of(counts, rows, matched).tolist()
    )


@pytest.mark.parametrize("budget", [keyword_search.KEYWORD_POSTINGS_BUDGET, 10, 3])
def test_same_values_as_plain_fts5_for_candidates_and_any_chunks(
    system: MemorySystem, monkeypatch: pytest.MonkeyPatch, budget: int
) -> None:
    """At the real budget every term is rare here; at 10 and 3 "pipeline", "部署" and the rest are common,
    so the candidates' own MATCH bounds the work (and at 3 every term is common: the rarest-term path)."""
    monkeypatch.setattr(keyword_search, "KEYWORD_POSTINGS_BUDGET", budget)
    index = system.store.index_for(system.global_vault)
    every_chunk = np.asarray([row[0] for row in index.conn.execute("SELECT rowid FROM chunks")], dtype=np.int64)
    for query in QUERIES:
        candidates = index.keyword_candidates(query_terms(query), 40).chunk_rowids
        assert_same_as_plain(index, query, candidates)
        assert_same_as_plain(index, query, every_chunk)  # chunks no candidate search chose: looked up one by one
        assert_same_as_plain(index, query, every_chunk[:0])


def test_counts_follow_the_index_after_edits_and_deletes(system: MemorySystem) -> None:
    index = system.store.index_for(system.global_vault)
    terms = query_terms("buildkite 缓存")
    before = index.term_matches(terms, np.zeros(0, dtype=np.int64)).documents.tolist()
    assert before == [3, 3]
    gone = next(memory for memory in system.list() if memory.title == "Pipeline note 3")  # holds Buildkite
    system.remove(gone.id, purge=True)
    system.add("Buildkite again", "Buildkite 缓存 runners came back.")
    system.refresh()
    after = index.term_matches(terms, np.zeros(0, dtype=np.int64)).documents.tolist()
    assert after == plain_matches(index, terms, np.zeros(0, dtype=np.int64))[0]
    assert after == [3, 4]  # one Buildkite note deleted, one added that holds both


def test_common_terms_are_read_only_where_they_meet_the_candidates(
    system: MemorySystem, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyword_search, "KEYWORD_POSTINGS_BUDGET", 10)
    index = system.store.index_for(system.global_vault)
    terms = query_terms("Buildkite pipeline 缓存 部署")
    candidates = index.keyword_candidates(terms, 40).chunk_rowids
    statements: list[str] = []
    index.conn.set_trace_callback(statements.append)
    try:
        found = index.term_matches(terms, candidates)
    finally:
        index.conn.set_trace_callback(None)
    assert found.documents.tolist()[1] > 10 and found.documents.tolist()[3] > 10  # pipeline, 部署: common
    reads = [sql for sql in statements if "MATCH" in sql and "COUNT" not in sql]
    for common in ('"pipeline"', '"部署"'):
        read = [sql for sql in reads if common in sql]
        assert read and all(f"AND {common}" in sql for sql in read), read  # never its whole postings list
    assert not [sql for sql in reads if " rowid IN" in sql]  # no seek per chunk for candidates (only "+rowid IN")
    assert found.matched[0].sum() == 3 and found.matched[2].sum() == 3  # Buildkite, 缓存: every candidate holding them
