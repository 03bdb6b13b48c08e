"""The metrics behind `aimate mem eval`: pure, over ranked ids and what was expected; no index, no disk."""

from __future__ import annotations

import json

import pytest

from aimate_memory.retrieval.evaluation import EvalQuery, QueryFileError, parse_queries, score_query, summarize


def q(*expected: str, line: int = 1) -> EvalQuery:
    return EvalQuery(line, "question", expected)


def test_recall_at_k_and_reciprocal_rank() -> None:
    ranked = ["aaa", "bbb", "ccc", "ddd", "eee", "fff"]
    score = score_query(q("ccc", "fff"), ranked)
    assert score.hits == {1: 0.0, 5: 0.5, 10: 1.0}
    assert score.reciprocal_rank == pytest.approx(1 / 3)
    assert score.missing == ()
    first = score_query(q("aaa"), ranked)
    assert first.hits[1] == 1.0 and first.reciprocal_rank == 1.0


def test_prefixes_match_and_one_id_counts_once() -> None:
    ranked = ["4f2a9c01-full-id", "77aa0000-other"]
    assert score_query(q("4f2a9c01"), ranked).hits[1] == 1.0
    # two prefixes of the same id are not two hits
    twice = score_query(q("4f2a", "4f2a9c"), ranked)
    assert twice.hits[10] == 0.5 and twice.missing == ("4f2a9c",)


def test_nothing_found_scores_zero_and_lists_the_misses() -> None:
    score = score_query(q("zzz"), [])
    assert score.hits == {1: 0.0, 5: 0.0, 10: 0.0} and score.reciprocal_rank == 0.0 and score.missing == ("zzz",)
    # beyond the deepest cut-off is a miss even when the id came back
    deep = score_query(q("k"), [f"x{i}" for i in range(10)] + ["k"])
    assert deep.missing == ("k",) and deep.reciprocal_rank == pytest.approx(1 / 11)


def test_summary_is_the_mean_over_queries() -> None:
    report = summarize([score_query(q("a"), ["a"]), score_query(q("b"), ["x", "b"]), score_query(q("c"), [])])
    assert report.recall[1] == pytest.approx(1 / 3) and report.recall[5] == pytest.approx(2 / 3)
    assert report.mrr == pytest.approx((1 + 0.5 + 0) / 3)
    assert report.as_dict()["queries"] == 3 and "per_query" not in report.as_dict()
    assert report.as_dict(verbose=True)["per_query"][2]["missing"] == ["c"]


def test_parse_reads_both_languages_and_skips_blank_lines() -> None:
    text = "\n".join(
        [
            json.dumps({"query": "deploy checklist", "expected": ["4f2a"]}),
            "",
            json.dumps({"query": "会话缓存", "expected": ["77aa", "88bb"]}, ensure_ascii=False),
        ]
    )
    queries = parse_queries(text)
    assert [(item.line, item.query, item.expected) for item in queries] == [
        (1, "deploy checklist", ("4f2a",)),
        (3, "会话缓存", ("77aa", "88bb")),
    ]


def test_every_bad_line_is_reported_with_its_number() -> None:
    text = "\n".join(
        [
            json.dumps({"query": "ok", "expected": ["a"]}),
            "{not json",
            json.dumps({"query": "", "expected": ["a"]}),
            json.dumps({"query": "no ids", "expected": []}),
            json.dumps(["a list"]),
            json.dumps({"query": "bad id", "expected": [3]}),
        ]
    )
    with pytest.raises(QueryFileError) as caught:
        parse_queries(text)
    assert [line for line, _ in caught.value.problems] == [2, 3, 4, 5, 6]
    assert "not JSON" in caught.value.problems[0][1]
