"""Said again is never a copy (issue 39; docs/design.md, "Capture from a conversation"), with the real models
through the Python API, in English and Chinese: a restatement in other words or another language is the
memory it restates (a use of it, in the journal); a proposal said again in a later session is not proposed a
second time but counts (`said: 2` in the waiting file, which review shows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimate_memory.system import MemorySystem
from aimate_memory.system.capture import SAID_FIELD
from aimate_memory.vault.filters import MemoryFilter

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture
def system(home: Path, workdir: Path, models: Path, isolated_git: None, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AIMATE_CAPTURE__EMBEDDING", "true")
    monkeypatch.setenv("AIMATE_EMBEDDING__CACHE_DIR", str(models))
    with MemorySystem.open(cwd=workdir) as opened:
        opened.init()
        opened.refresh()
        yield opened


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
    # A change of mind is close too, but it is no restatement: it waits as the conflict it is.
    assert system.remember("I prefer unittest over pytest now", kind="preference").action == "conflict"


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
