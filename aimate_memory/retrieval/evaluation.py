"""Retrieval quality on a person's own questions: parse a queries file, score ranked ids against what was expected.

Pure: no index, no disk. The facade runs the searches (`system.retrieval.evaluate`); this module only reads lines and
computes recall@k and MRR, so a change of model or weights can be checked on one's own memories."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# The cut-offs reported; the largest is also how many results each query asks for.
CUTOFFS = (1, 5, 10)


@dataclass(frozen=True)
class EvalQuery:
    line: int  # 1-based line in the queries file, so a miss can be found again
    query: str
    expected: tuple[str, ...]  # memory ids or id prefixes (as `search` shows them, e.g. 8 characters)


@dataclass(frozen=True)
class QueryScore:
    query: EvalQuery
    ranked: tuple[str, ...]  # ids returned, best first
    hits: dict[int, float]  # k -> share of the expected ids found in the top k
    reciprocal_rank: float  # 1 / rank of the first expected id found; 0 when none is
    missing: tuple[str, ...]  # expected entries not in the top max(CUTOFFS)

    def as_dict(self) -> dict[str, Any]:
        return {
            "line": self.query.line,
            "query": self.query.query,
            "expected": list(self.query.expected),
            "ranked": list(self.ranked),
            "recall": {str(k): v for k, v in self.hits.items()},
            "reciprocal_rank": self.reciprocal_rank,
            "missing": list(self.missing),
        }


@dataclass(frozen=True)
class EvalReport:
    scores: list[QueryScore]
    recall: dict[int, float] = field(default_factory=dict)  # k -> mean over queries
    mrr: float = 0.0

    def as_dict(self, verbose: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "queries": len(self.scores),
            "recall": {str(k): v for k, v in self.recall.items()},
            "mrr": self.mrr,
        }
        if verbose:
            data["per_query"] = [score.as_dict() for score in self.scores]
        return data


class QueryFileError(ValueError):
    """Lines of a queries file that are not queries; all of them, each with its line number."""

    def __init__(self, problems: list[tuple[int, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"line {line}: {reason}" for line, reason in problems))


def parse_queries(text: str) -> list[EvalQuery]:
    """One JSON object per line: {"query": str, "expected": [str, …]}. Blank lines are skipped.
    Every bad line is reported at once (QueryFileError), so a file is fixed in one pass, and nothing is scored
    from a file with a bad line — a silently skipped question would flatter the numbers."""
    queries: list[EvalQuery] = []
    problems: list[tuple[int, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.append((number, f"not JSON ({exc.msg})"))
            continue
        reason = _shape_problem(item)
        if reason:
            problems.append((number, reason))
            continue
        expected = tuple(entry.strip() for entry in item["expected"])
        queries.append(EvalQuery(number, item["query"].strip(), expected))
    if problems:
        raise QueryFileError(problems)
    return queries


def _shape_problem(item: Any) -> str | None:
    if not isinstance(item, dict):
        return 'expected an object {"query": …, "expected": [...]}'
    query, expected = item.get("query"), item.get("expected")
    if not isinstance(query, str) or not query.strip():
        return '"query" must be a non-empty string'
    if not isinstance(expected, list) or not expected:
        return '"expected" must be a non-empty list of memory ids'
    if not all(isinstance(entry, str) and entry.strip() for entry in expected):
        return '"expected" entries must be non-empty strings (memory ids or id prefixes)'
    return None


def score_query(query: EvalQuery, ranked: Sequence[str], cutoffs: Sequence[int] = CUTOFFS) -> QueryScore:
    """Recall@k: share of the expected entries matched in the top k; an entry matches an id it is a prefix of.
    Each ranked id counts for at most one expected entry, so two prefixes of one id are not two hits."""
    first_rank: dict[str, int] = {}
    used: set[int] = set()
    for entry in query.expected:
        for rank, memory_id in enumerate(ranked, 1):
            if rank not in used and memory_id.startswith(entry):
                first_rank[entry] = rank
                used.add(rank)
                break
    hits = {k: sum(rank <= k for rank in first_rank.values()) / len(query.expected) for k in cutoffs}
    reciprocal = 1.0 / min(first_rank.values()) if first_rank else 0.0
    deepest = max(cutoffs)
    missing = tuple(entry for entry in query.expected if first_rank.get(entry, deepest + 1) > deepest)
    return QueryScore(query, tuple(ranked), hits, reciprocal, missing)


def summarize(scores: list[QueryScore], cutoffs: Sequence[int] = CUTOFFS) -> EvalReport:
    if not scores:
        return EvalReport(scores, {k: 0.0 for k in cutoffs}, 0.0)
    recall = {k: sum(score.hits[k] for score in scores) / len(scores) for k in cutoffs}
    mrr = sum(score.reciprocal_rank for score in scores) / len(scores)
    return EvalReport(scores, recall, mrr)
