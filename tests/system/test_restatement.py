"""Said again is never a copy (issue 39; docs/design.md, "Capture from a conversation"), with the real models
through the Python API, in English and Chinese: a restatement in other words or another language is the
memory it restates (a use of it, in the journal); a proposal said again in a later session is not proposed a
second time but counts (`said: 2` in the waiting file, which review shows)."""

from __future__ import annotations

import pytest

from aimate_memory.system import MemorySystem
from aimate_memory.system.capture import SAID_FIELD
from aimate_memory.vault.filters import MemoryFilter
from tests.system.conftest import rules_grouped_by_dedupe

pytestmark = pytest.mark.slow


def uses(system: MemorySystem, memory_id: str) -> int:
    tally = system.store.journal_for(system.global_vault).tally().get(memory_id)
    return tally.count if tally is not None else 0


@pytest.mark.parametrize(
    ("first", "first_kind", "again", "again_kind"),
    [
        ("I prefer pytest over unittest", "preference", "我更喜欢用 pytest，而不是 unittest", "rule"),
        ("提交代码前一定要先运行 ruff", "rule", "提交代码前务必先运行 ruff", "preference"),
    ],
)
def test_said_again_in_other_words_is_that_memory(
    system: MemorySystem, first: str, first_kind: str, again: str, again_kind: str
) -> None:
    kept = system.remember(first, kind=first_kind)
    assert kept.action == "written" and kept.memory is not None
    said = system.remember(again, kind=again_kind)
    assert said.action == "exists" and said.memory is not None and said.memory.id == kept.memory.id
    assert "says again" in said.reason
    assert uses(system, kept.memory.id) == 1  # the repetition counts as a use; the file is unchanged
    system.refresh()
    listed = {memory.id: memory.title for memory in system.list(MemoryFilter(statuses=("active", "pending")))}
    assert kept.memory.id in listed and said.memory.title in listed.values()
    assert not any(again.rstrip("。.") in title for title in listed.values())  # no copy in either language
    # A change of mind is as close (.96), but it is no restatement: never swallowed as the memory it reverses.
    turned = system.remember("I prefer unittest over pytest now", kind="preference")
    assert turned.action in ("written", "conflict") and turned.memory is not None
    assert turned.memory.id != kept.memory.id


@pytest.mark.parametrize(
    ("decision", "again"),
    [
        (
            "We decided to use Pinia for state management in the frontend.",
            "From now on we use Pinia for state management.",
        ),
        ("我们决定前端的状态管理使用 Pinia。", "以后前端的状态管理都使用 Pinia。"),
    ],
)
def test_a_proposal_said_again_counts_instead_of_a_second_copy(system: MemorySystem, decision: str, again: str) -> None:
    [proposed] = system.capture.propose_from_session("first-session", [("user", decision)])
    assert proposed.action == "pending" and proposed.memory is not None
    system.refresh()  # the next session ends in a later process, which syncs first
    assert system.capture.propose_from_session("second-session", [("user", again)]) == []
    waiting = system.list(MemoryFilter(statuses=("pending",)))
    assert [memory.id for memory in waiting] == [proposed.memory.id]
    assert system.get(proposed.memory.id).doc.get(SAID_FIELD) == 2


def test_dedupe_finds_paraphrases_in_both_languages_and_never_merges_a_disagreement(system: MemorySystem) -> None:
    """Issue 39: "do not reset seeds" said several ways were separate core rules and `dedupe` found 0 groups.
    Written as typed (`add`), as before this check existed, then found by dedupe: a paraphrase, and a
    translation (search vectors .40 apart, the USE part .89). "I prefer unittest over pytest now" is as
    close to its opposite (.97) and takes the other side: never merged."""
    texts = [
        "Do not reset the seeds",
        "Never reset seeds",
        "I prefer pytest over unittest",
        "我更喜欢用 pytest，而不是 unittest",
        "I prefer unittest over pytest now",
    ]
    ids, groups = rules_grouped_by_dedupe(system, texts)
    assert set(groups) == {tuple(sorted(ids[:2])), tuple(sorted(ids[2:4]))}
    assert groups[tuple(sorted(ids[2:4]))] == {"paraphrase"}  # across languages: the USE part decides
