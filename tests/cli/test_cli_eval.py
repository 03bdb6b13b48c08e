"""`aimate mem eval QUERIES.jsonl` as a real subprocess over a real vault with English and Chinese memories."""

from __future__ import annotations

import json
from pathlib import Path


def seed(cli) -> dict[str, str]:
    """Three memories added through the CLI to the `initialized` home; their ids by title."""
    ids = {}
    for title, body in (
        ("选用 Redis 做会话缓存", "我们决定用 Redis 做会话缓存，延迟低。"),
        ("Deploy checklist", "Run the smoke tests before every deploy."),
        ("Release notes style", "Write release notes in the past tense, one line per change."),
    ):
        added = cli("mem", "add", title, "--body", body, "--json")
        assert added.code == 0, added.err
        ids[title] = added.json()["id"]
    return ids


def write(path: Path, rows: list) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n")
    return path


def test_eval_scores_the_vault_in_both_languages(cli, initialized, tmp_path: Path) -> None:
    ids = seed(cli)
    queries = write(
        tmp_path / "q.jsonl",
        [
            {"query": "会话缓存", "expected": [ids["选用 Redis 做会话缓存"][:8]]},
            {"query": "smoke tests deploy", "expected": [ids["Deploy checklist"]]},
            {"query": "kubernetes autoscaling", "expected": [ids["Release notes style"][:8]]},
        ],
    )
    shown = cli("mem", "eval", str(queries), "--json", "--verbose")
    assert shown.code == 0, shown.err
    report = shown.json()
    assert report["queries"] == 3
    per_query = report["per_query"]
    assert per_query[0]["recall"]["1"] == 1.0 and per_query[1]["reciprocal_rank"] == 1.0
    # a question about something the vault does not hold finds nothing: a miss, listed
    assert per_query[2]["missing"] == [ids["Release notes style"][:8]]
    assert abs(report["recall"]["10"] - 2 / 3) < 1e-9 and abs(report["mrr"] - 2 / 3) < 1e-9
    text = cli("mem", "eval", str(queries), "--verbose")
    assert "R@1 0.667" in text.out and "MRR 0.667" in text.out
    assert "line 3" in text.out and "kubernetes autoscaling" in text.out and "line 1" not in text.out


def test_eval_reports_bad_lines_and_scores_nothing(cli, initialized, tmp_path: Path) -> None:
    """The file is read whole before anything is scored: an empty vault is enough."""
    queries = write(
        tmp_path / "bad.jsonl",
        [{"query": "会话缓存", "expected": ["abc"]}, "{oops", {"query": "no ids", "expected": []}],
    )
    shown = cli("mem", "eval", str(queries))
    assert shown.code == 1
    assert "2 bad line(s)" in shown.err and "bad.jsonl:2" in shown.err and "bad.jsonl:3" in shown.err
    assert "R@1" not in shown.out
    missing = cli("mem", "eval", str(tmp_path / "absent.jsonl"))
    assert missing.code == 1 and "cannot read" in missing.err
