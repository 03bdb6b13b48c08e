"""Conflict detection (capture/conflict.py): the table's reading of a sentence in English and Chinese, the
decision, and — with the real multilingual model — the shipped thresholds on the labelled pairs."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from aimate_memory.capture.conflict import (
    ActiveMemory,
    Thresholds,
    default_rules,
    find_conflicts,
    judge,
    read,
)
from aimate_memory.config.defaults import DEFAULTS

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "tests" / "data" / "conflict_pairs.jsonl"
SHIPPED = Thresholds(DEFAULTS["capture"]["conflict_subject_threshold"], DEFAULTS["capture"]["conflict_threshold"])


def test_every_pattern_in_the_table_compiles_and_every_slot_has_values() -> None:
    rules = default_rules()
    assert len(rules.slots) >= 25
    assert all(slot.values for slot in rules.slots)
    assert len({slot.name for slot in rules.slots}) == len(rules.slots)


@pytest.mark.parametrize(
    ("text", "slot", "affirmed", "rejected"),
    [
        ("I prefer 4-space indentation", "indentation", {"4 spaces"}, set()),
        ("我习惯用 Tab 缩进", "indentation", {"tabs"}, set()),
        ("Python 文件用四个空格缩进", "indentation", {"4 spaces"}, set()),
        ("We use pnpm, not npm", "JavaScript package manager", {"pnpm"}, {"npm"}),
        ("不再用 npm，统一用 pnpm", "JavaScript package manager", {"pnpm"}, {"npm"}),
        ("CI moved from GitHub Actions to GitLab CI", "CI", {"GitLab CI"}, {"GitHub Actions"}),
        ("会话缓存之前用的是 Memcached，后来换成了 Redis", "cache", {"Redis"}, {"Memcached"}),
        ("前端不再用 TypeScript，改回 JavaScript", "JavaScript flavour", {"JavaScript"}, {"TypeScript"}),
        ("每行不超过 80 个字符", "line length", {"80"}, set()),
        ("The maximum line length is 120 characters", "line length", {"120"}, set()),
        ("请用中文回复我", "reply language", {"Chinese"}, set()),
    ],
)
def test_reading_slots_in_both_languages(text: str, slot: str, affirmed: set[str], rejected: set[str]) -> None:
    reading = read(text).slots[slot]
    assert (set(reading.affirmed), set(reading.rejected)) == (affirmed, rejected)


def test_ambiguous_values_need_their_subject() -> None:
    # "English" is a reply language only when the sentence is about replies; "tabs" only with indentation.
    assert "reply language" not in read("代码注释也用英文写").slots
    assert "comment language" in read("代码注释也用英文写").slots
    assert "indentation" not in read("Close the browser tabs before recording").slots
    # A Latin value never matches inside a word: "ts" is not in "tests", "js" not in "Vue.js".
    assert "JavaScript flavour" not in read("Run the tests with Vue.js devtools open").slots


def test_negation_and_its_look_alikes() -> None:
    assert read("Don't add type hints to the scripts").negated
    assert read("提交前不用跑测试").negated
    assert not read("每行不超过 80 个字符").negated  # a limit, not a negation
    assert not read("Keep lines no more than 88 characters").negated


@pytest.mark.parametrize(
    ("old", "new", "conflict"),
    [
        ("I prefer 4-space indentation", "我习惯用 Tab 缩进", True),
        ("We chose Redis for sessions", "会话缓存改用 Memcached", True),
        ("Use ruff for linting", "Don't use flake8 anymore", False),  # the slot decides: they agree
        ("We chose Redis for the session cache", "会话缓存之前用的是 Memcached，后来换成了 Redis", False),
        ("I prefer 4-space indentation", "I prefer dark themes in the terminal", False),
    ],
)
def test_the_table_alone_decides_without_a_model(old: str, new: str, conflict: bool) -> None:
    """No model loaded (cosine None): a shared slot with different values is a conflict; nothing else is."""
    assert bool(find_conflicts(new, [ActiveMemory("old", old, None)], SHIPPED)) is conflict


def test_polarity_needs_the_cosine() -> None:
    old, new = read("Use type hints everywhere"), read("Don't add type hints, keep the scripts untyped")
    assert judge(new, old, 0.8, SHIPPED).conflict and judge(new, old, 0.8, SHIPPED).evidence == "polarity"
    assert not judge(new, old, 0.1, SHIPPED).conflict
    assert not judge(new, old, None, SHIPPED).conflict


def test_reason_names_both_sides() -> None:
    [found] = find_conflicts("我习惯用 Tab 缩进", [ActiveMemory("m1", "I prefer 4-space indentation", 0.35)], SHIPPED)
    assert found.memory_id == "m1" and found.slot == "indentation"
    assert found.reason == "indentation: tabs here, 4 spaces there"


def test_labelled_pairs_cover_labels_languages_and_splits() -> None:
    rows = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 60
    assert set(Counter(row["label"] for row in rows)) == {"conflict", "compatible", "unrelated"}
    assert set(Counter(row["lang"] for row in rows)) == {"en", "zh", "mixed"}
    splits = Counter(row["split"] for row in rows)
    assert splits["heldout"] >= 25 and splits["dev"] >= 60 and splits["fresh"] >= 30
    for split in ("dev", "heldout", "fresh"):
        labels = Counter(row["label"] for row in rows if row["split"] == split)
        assert min(labels.values()) >= 5, (split, labels)


@pytest.mark.slow
def test_shipped_thresholds_measure_as_documented(tmp_path: Path) -> None:
    """scripts/conflict_eval.py with the real USE model: the numbers docs/benchmarks.md reports."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import conflict_eval

    pairs = conflict_eval.with_cosines(conflict_eval.load(), str(tmp_path))
    scores = {
        split: conflict_eval.score([p for p in pairs if p.split == split], SHIPPED) for split in conflict_eval.SPLITS
    }
    assert scores["dev"].precision == 1.0 and scores["dev"].recall == 1.0
    assert scores["heldout"].precision == 1.0 and scores["heldout"].recall >= 0.9
    assert scores["fresh"].precision == 1.0 and scores["fresh"].recall >= 0.5
    for lang in ("en", "zh", "mixed"):
        part = [p for p in pairs if p.split in ("dev", "heldout") and p.lang == lang]
        assert conflict_eval.score(part, SHIPPED).precision == 1.0, lang
