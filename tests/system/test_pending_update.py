"""An update waiting for review retires what it updates only when the person accepts it (issue 39; docs/design.md,
"Changes of mind across sessions"), with the real models, English and Chinese: an agent's capture (pending) close
to an active memory of its own layer and category names that memory; until review the old one stays active and
in context; review shows it beside the update; accepting supersedes it (status superseded, linked both ways);
"keep both" keeps it."""

from __future__ import annotations

import pytest

from aimate_memory.system import MemorySystem
from aimate_memory.system.conflicts import conflicts_with

pytestmark = pytest.mark.slow

UPDATES = {
    "en": ("The staging server is at staging.example.com", "Staging moved: the server is now staging2.example.com"),
    "zh": ("测试服务器地址是 staging.example.com", "测试服务器迁移了，现在的地址是 staging2.example.com"),
}


@pytest.mark.parametrize("language", sorted(UPDATES))
@pytest.mark.parametrize("keep_both", [False, True])
def test_an_update_supersedes_on_accept_only(system: MemorySystem, language: str, keep_both: bool) -> None:
    before, after = UPDATES[language]
    old = system.remember(before, kind="knowledge")
    assert old.action == "written" and old.memory is not None
    new = system.remember(after, kind="knowledge", confidence=0.7, source="mcp")  # an agent's: pending
    assert new.action == "pending" and new.memory is not None
    assert system.get(old.memory.id).status == "active"  # a model's word alone retires nothing
    assert conflicts_with(system.get(new.memory.id)) == [old.memory.id]
    [item] = [item for item in system.git.pending_changes() if item.change.memory_id == new.memory.id]
    assert [conflict.id for conflict in item.conflicts] == [old.memory.id]  # review shows what it replaces
    [accepted] = system.git.accept([new.memory.id], keep_both=keep_both)
    assert accepted.action == "accept"
    kept_old = system.get(old.memory.id)
    if keep_both:
        assert kept_old.status == "active" and system.get(new.memory.id).status == "active"
    else:
        assert "supersedes" in accepted.detail
        assert kept_old.status == "superseded" and kept_old.doc is not None
        assert kept_old.doc.get("superseded_by") == new.memory.id
        assert system.get(new.memory.id).doc.get("supersedes") == old.memory.id
