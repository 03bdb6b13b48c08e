"""A paraphrased restatement in a later session, with the real models (issue 39: "do not reset seeds" said four
ways became three core rules; docs/design.md, "Said again counts"): each wording — in other words or in the
other language, at USE cosines between the restatement bar (.70, measured on the replay's real restatements)
and the old .85 — is the memory it restates, a use of it, never a copy or a conflict; a sentence on another
subject built alike is written; `dedupe` groups wordings typed in as separate rules."""

from __future__ import annotations

import pytest

from aimate_memory.system import MemorySystem
from aimate_memory.vault.filters import MemoryFilter

pytestmark = pytest.mark.slow

RULES = {
    "en": ("Do not reset the seeds", ["Please don't reset the random seeds again", "不要重置随机种子"]),
    "zh": ("不要重置随机种子", ["Do not reset the seeds", "别再重置随机种子了"]),
}


@pytest.mark.parametrize("language", sorted(RULES))
def test_a_paraphrase_or_translation_is_the_rule_it_restates(system: MemorySystem, language: str) -> None:
    rule, wordings = RULES[language]
    kept = system.remember(rule, kind="rule")
    assert kept.action == "written" and kept.memory is not None
    for wording in wordings:
        said = system.remember(wording, kind="preference")  # another category: the restatement check decides
        assert said.action == "exists", (wording, said.reason)
        assert said.memory is not None and said.memory.id == kept.memory.id
    system.refresh()
    active = system.list(MemoryFilter(statuses=("active", "pending")))
    assert not {memory.title for memory in active} & set(wordings)  # no copy, in either language
    other = system.remember("Do not reset the database" if language == "en" else "不要重置数据库")
    assert other.memory is not None and other.memory.id != kept.memory.id


def test_dedupe_groups_the_wordings_of_one_rule(system: MemorySystem) -> None:
    texts = ["Do not reset the seeds", "不要重置随机种子", "Leave the seeds alone, never reset them", "Keep the logs"]
    ids = [system.add(text, text, layer="core", category="rule").id for text in texts]
    system.refresh()
    [run] = [run for run in system.upkeep.dedupe() if run.scope == "global"]
    grouped = [{group.survivor.id, *(entry.id for entry, _, _ in group.others)} for group in run.duplicates]
    assert grouped == [set(ids[:3])]
