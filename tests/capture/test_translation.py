"""A restatement across languages (capture/translation.py; issue 39): the lexicon reads a pair in two languages
whose cosine is under the restatement bar, in both directions; distinct rules on one subject stay apart."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from aimate_memory.capture.translation import CROSS_COSINE, across_languages, says_again, says_the_same, stem

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "tests" / "data" / "crosslang_pairs.jsonl"


@pytest.mark.parametrize(
    ("known", "new", "cosine"),
    [
        ("Always run ruff before committing", "提交代码前一定要先运行 ruff", 0.48),
        ("提交前先跑测试", "Run the tests before you commit", 0.69),
        ("Put the plans in docs/plans", "计划文档放在 docs/plans 目录", 0.73),
        ("不要删除已有的测试", "Don't delete existing tests", 0.80),
    ],
)
def test_the_same_rule_in_the_other_language(known: str, new: str, cosine: float) -> None:
    verdict = says_the_same(new, known, cosine)
    assert verdict.same, verdict.reason
    assert says_the_same(known, new, cosine).same  # either order
    assert says_again(new, known, cosine, bar=0.70)


@pytest.mark.parametrize(
    ("known", "new", "cosine", "why"),
    [
        ("Always run ruff before committing", "提交前先跑测试", 0.45, "names ruff"),  # no ruff on one side
        ("提交前先跑测试", "Always run ruff before committing", 0.45, "names ruff"),
        ("Never commit the .env file", ".env 文件要提交到仓库", 0.60, "one says not to"),
        ("不要用 print 调试", "Debug with print", 0.60, "one says not to"),
        ("The API server runs on port 8080", "API 服务跑在 3000 端口", 0.60, "names"),  # another number
        ("测试文件放在 tests 目录", "Each test file covers one module", 0.52, "words agree"),
        ("Always run ruff before committing", "提交代码前一定要先运行 ruff", 0.30, "cosine"),  # too far to read
    ],
)
def test_a_distinct_rule_on_the_subject_stays_apart(known: str, new: str, cosine: float, why: str) -> None:
    verdict = says_the_same(new, known, cosine)
    assert not verdict.same and why in verdict.reason


def test_only_a_pair_in_two_languages_is_read_by_the_lexicon() -> None:
    assert across_languages("Use ruff", "用 ruff") and not across_languages("用 ruff", "只用 ruff 检查")
    assert not says_the_same("Do not reset the seeds", "Never reset the random seeds", 0.65).same
    assert not says_the_same("Always run ruff before committing", "提交代码前一定要先运行 ruff", None).same
    assert says_again("Never reset seeds", "Do not reset the seeds", 0.91, bar=0.70)  # the bar alone


def test_stems_meet_the_glosses() -> None:
    assert [stem(word) for word in ("committing", "files", "classes", "dependencies", "formatted", "tests")] == [
        "commit",
        "file",
        "class",
        "dependency",
        "format",
        "test",
    ]


def test_the_pair_set_is_balanced_and_bilingual() -> None:
    rows = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line.strip()]
    counts = Counter((row["dir"], row["label"]) for row in rows)
    assert all(counts[(direction, label)] >= 20 for direction in ("en-zh", "zh-en") for label in ("same", "distinct"))
    assert all(across_languages(row["a"], row["b"]) for row in rows)


@pytest.mark.slow
def test_the_pair_set_measures_as_documented(tmp_path: Path) -> None:
    """scripts/crosslang_eval.py with the real USE model: the numbers docs/benchmarks.md reports."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import crosslang_eval

    pairs = crosslang_eval.with_cosines(crosslang_eval.load(), str(tmp_path))
    assert min(pair.cosine for pair in pairs if pair.label == "same") < CROSS_COSINE + 0.1  # the case it is for
    for direction in crosslang_eval.DIRECTIONS:
        part = [pair for pair in pairs if pair.direction == direction and pair.split == "dev"]
        said = [pair for pair in part if crosslang_eval.after(pair)]
        found = sum(1 for pair in said if pair.label == "same")
        assert found == len(said), direction  # precision 1.00
        assert found >= 21 > sum(1 for pair in part if crosslang_eval.before(pair)), direction  # recall ≥ .88
    fresh = [pair for pair in pairs if pair.split == "fresh"]  # written after the rules were frozen
    assert all(crosslang_eval.after(pair) == (pair.label == "same") for pair in fresh)
