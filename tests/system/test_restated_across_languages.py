"""A rule said again in the other language is the rule (issue 39: "提交代码前一定要先运行 ruff" after "Always run
ruff before committing" was a second core rule, USE cosine .48, and `dedupe` found nothing), with the real
models through the Python API, both directions: a use of the memory it restates, never a copy; `dedupe` finds
such a pair (method `translation`); a distinct rule on the same subject ("提交前先跑测试") stays apart
(capture/translation.py; docs/design.md, "Said again, in the other language")."""

from __future__ import annotations

import pytest

from aimate_memory.lifecycle.dedupe import TRANSLATION
from aimate_memory.system import MemorySystem
from aimate_memory.vault.filters import MemoryFilter
from tests.system.conftest import rules_grouped_by_dedupe

pytestmark = pytest.mark.slow


def uses(system: MemorySystem, memory_id: str) -> int:
    tally = system.store.journal_for(system.global_vault).tally().get(memory_id)
    return tally.count if tally is not None else 0


@pytest.mark.parametrize(
    ("rule", "translated", "distinct"),
    [
        ("Always run ruff before committing", "提交代码前一定要先运行 ruff", "提交前先跑测试"),
        ("提交前先跑测试", "Run the tests before you commit", "Always run ruff before committing"),
    ],
)
def test_a_rule_said_in_the_other_language_is_that_rule(
    system: MemorySystem, rule: str, translated: str, distinct: str
) -> None:
    kept = system.remember(rule, kind="rule")
    assert kept.action == "written" and kept.memory is not None
    said = system.remember(translated, kind="rule")
    assert said.action == "exists" and said.memory is not None and said.memory.id == kept.memory.id
    assert "says again" in said.reason
    assert uses(system, kept.memory.id) == 1  # the repetition counts as a use of the rule
    other = system.remember(distinct, kind="rule")
    assert other.action == "written" and other.memory is not None and other.memory.id != kept.memory.id
    system.refresh()
    titles = [memory.title for memory in system.list(MemoryFilter(statuses=("active", "pending")))]
    assert rule in titles and distinct in titles and translated not in titles  # no copy of the translation


def test_dedupe_finds_a_rule_kept_in_both_languages_and_leaves_a_neighbour(system: MemorySystem) -> None:
    """Written as typed (`add`, which never asks what a text restates), then found by dedupe."""
    texts = [
        "Always run ruff before committing",
        "提交代码前一定要先运行 ruff",
        "提交前先跑测试",
        "数据库文件放在 data 目录",
        "Keep the database files in the data folder",
        "Back up the database every night",
    ]
    ids, groups = rules_grouped_by_dedupe(system, texts)
    # The rule about ruff in two languages (USE .47): found by the lexicon; the data folder's (.79): a paraphrase
    # already. "提交前先跑测试" and "Back up the database every night" share a subject, and stay.
    assert groups == {tuple(sorted(ids[:2])): {TRANSLATION}, tuple(sorted(ids[3:5])): {"paraphrase"}}


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("Always run ruff before committing.", "提交代码前一定要先运行 ruff。"),
        ("提交代码前一定要先运行 ruff。", "Always run ruff before committing."),
    ],
)
def test_a_proposal_said_again_in_the_other_language_counts(system: MemorySystem, first: str, again: str) -> None:
    """A session's proposal, said in the other language in a later session: not proposed a second time."""
    [proposed] = system.capture.propose_from_session("first-session", [("user", first)])
    assert proposed.memory is not None
    system.refresh()  # the next session ends in a later process, which syncs first
    assert system.capture.propose_from_session("second-session", [("user", again)]) == []
    listed = system.list(MemoryFilter(statuses=("active", "pending")))
    assert [memory.id for memory in listed if "ruff" in memory.title] == [proposed.memory.id]
