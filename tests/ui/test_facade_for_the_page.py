"""What the page needs from the facade, tested on the facade: an edit of fields and body in one checked step
(`set_fields(..., body=…)`), a context preview that counts no use, and sections that say their allowance and
what they left out (docs/ui.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimate_memory.errors import InvalidInputError
from aimate_memory.system import MemorySystem
from aimate_memory.system.records import ContextRecord


@pytest.fixture
def system(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    with MemorySystem.open(cwd=tmp_path) as opened:
        opened.init()
        yield opened


@pytest.mark.parametrize(
    ("title", "body", "new_body"),
    [
        ("Session cache", "We chose Redis.", "We chose Redis for its TTLs."),
        ("会话缓存", "我们选了 Redis。", "我们选了 Redis，因为它支持过期。"),
    ],
)
def test_set_fields_with_a_body_writes_both_in_one_commit(
    system: MemorySystem, isolated_git: None, title: str, body: str, new_body: str
) -> None:
    memory = system.add(title, body, category="decision", scope="global")
    commits = len(system.git.log(limit=100))
    edited = system.set_fields(memory.id, {"importance": "5", "tags": "cache，redis"}, body=new_body)
    assert (edited.importance, edited.tags, edited.body.strip()) == (5, ["cache", "redis"], new_body)
    assert len(system.git.log(limit=100)) == commits + 1
    # The same body again is no change at all: no write, no commit.
    system.set_fields(memory.id, {}, body=new_body + "\n")
    assert len(system.git.log(limit=100)) == commits + 1


@pytest.mark.parametrize(
    ("fields", "body", "said"),
    [
        ({"importance": "9"}, "a new body", "importance"),
        ({"title": "fine"}, "key AKIAIOSFODNN7EXAMPLE here", "looks like"),
        ({"category": "a/../b"}, "x", "category"),
        ({"title": "好"}, "控制字符\x00", "control"),
    ],
)
def test_a_refused_value_leaves_the_file_as_it_was(
    system: MemorySystem, fields: dict[str, str], body: str, said: str
) -> None:
    memory = system.add("Keep me", "the original body", scope="global")
    path = system.global_vault.abs_path(memory.rel_path)
    before = path.read_bytes()
    with pytest.raises(InvalidInputError) as caught:
        system.set_fields(memory.id, fields, body=body)
    assert said in caught.value.message.lower()
    assert path.read_bytes() == before


def test_a_context_counts_no_use_and_sections_say_what_they_left_out(system: MemorySystem) -> None:
    core_ids = {
        system.add(f"Rule {number}", "Always write the tests first. " * 12, layer="core", category="rule").id
        for number in range(6)
    }
    core_ids.add(system.add("规则", "提交说明用中文写。", layer="core", category="rule").id)
    journal = system.store.journal_for(system.global_vault)
    preview = ContextRecord.of(system.build_context(None, 120))
    [core] = [section for section in preview.sections if section["layer"] == "core"]
    placed = {item["id"] for item in core["items"]}
    left = {item["id"] for item in core["left_out"]}
    assert left and not placed & left
    assert core_ids == placed | left  # every core memory is one or the other
    assert core["allowance"] >= core["tokens"] and core["allowance"] <= 120
    assert sum(section["tokens"] for section in preview.sections) == preview.total_tokens
    system.build_context(None, 120)  # neither does an assistant's: shown is not used (docs/lifecycle.md "Uses")
    assert journal.tally() == {}
