"""Conflicts through `aimate mem` as a subprocess with the real models: `remember` names the memory it may
contradict and the three ways out, `review` shows both and keeps one, `add` warns (docs/design.md,
"Conflicts")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import in_process, linked_models, make_runner

if TYPE_CHECKING:
    from aimate_memory.embedding.lazy import LazyEmbedder
    from aimate_memory.system import MemorySystem

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> Path:
    """A cache folder of its own, named by `embedding.cache_dir`: links to the run's one (`model_cache`)."""
    return linked_models(model_cache, tmp_path_factory.mktemp("models") / "cache")


@pytest.fixture
def run(initialized: Path, workdir: Path, models: Path, isolated_git: None):
    runner = make_runner(initialized, workdir, vectors=True)

    def call(*args: str):
        return runner(*args, env={"AIMATE_EMBEDDING__CACHE_DIR": str(models), "AIMATE_NO_DAEMON": "1"})

    return call


@pytest.fixture
def written(initialized: Path, loaded_models: LazyEmbedder, isolated_git: None) -> Callable[[], MemorySystem]:
    """The home `run` works on, opened in the test process with the module's loaded models: what a test
    writes before the command it is about (the memory a `remember` may contradict), without a CLI process
    and a model load for each (~1 s of CPU). The CLI's own `add`/`remember` of such a memory is tested
    below (`test_add_warns_and_writes`, the said-twice cases)."""
    return lambda: in_process(initialized, models=loaded_models, AIMATE_CAPTURE__EMBEDDING="true")


def test_remember_names_the_conflict_and_review_keeps_the_new_one(run, written) -> None:
    with written() as system:
        first_id = system.remember("I prefer 4-space indentation").memory.id
    said = run("mem", "remember", "我习惯用 Tab 缩进")
    assert said.code == 0, said.err
    new_id = said.out.split()[2]
    assert said.out.startswith(f"pending review: {new_id} as core/preference")
    assert f'may contradict {first_id[:8]} "I prefer 4-space indentation"' in said.out
    assert "indentation: tabs here, 4 spaces there" in said.out
    assert f"aimate mem review --accept {new_id}" in said.out and f"--reject {new_id}" in said.out
    again = run("mem", "remember", "我习惯用 Tab 缩进")  # said twice before review: one proposal, said twice
    assert again.code == 0 and again.out.startswith(f"already waiting for review: {new_id[:8]}"), again.out
    assert "may contradict" not in again.out
    listed = run("mem", "review")
    assert "我习惯用 Tab 缩进" in listed.out and "may contradict" in listed.out
    assert "I prefer 4-space indentation" in listed.out  # both sides, side by side
    accepted = run("mem", "review", "--accept", new_id)
    assert accepted.code == 0 and "supersedes" in accepted.out
    core = {item["title"]: item["status"] for item in run("mem", "list", "--status", "all", "--json").json()}
    assert core["我习惯用 Tab 缩进"] == "active" and core["I prefer 4-space indentation"] == "superseded"


def test_remember_json_and_settling_flags(run, written) -> None:
    with written() as system:
        redis_id = system.remember("We chose Redis for sessions", kind="decision").memory.id
    result = run("mem", "remember", "会话缓存改用 Memcached", "--kind", "decision", "--json").json()
    assert result["action"] == "conflict" and result["memory"]["status"] == "pending"
    [conflict] = result["conflicts"]
    assert conflict["id"] == redis_id and conflict["slot"] == "cache"
    assert set(conflict) == {"id", "title", "path", "scope", "layer", "category", "reason", "slot", "cosine"}
    again = run("mem", "remember", "会话缓存改用 Memcached", "--kind", "decision", "--json").json()
    assert again["action"] == "exists" and again["memory"]["id"] == result["memory"]["id"] and not again["conflicts"]
    both = run("mem", "remember", "会话缓存改用 Memcached", "--kind", "decision", "--keep-both", "--json").json()
    assert both["action"] == "written" and both["conflicts"] == []
    bad = run("mem", "remember", "x y z", "--keep-both", "--replace", "abc")
    assert bad.code != 0 and "give one" in bad.err and "Traceback" not in bad.err


def test_add_warns_and_writes(run, written) -> None:
    with written() as system:  # the rule the `add` below may contradict, as `mem add` writes it
        system.add("回复用中文", "", layer="core", category="rule")
    added = run("mem", "add", "Always reply in English", "--layer", "core", "--category", "rule")
    assert added.code == 0 and added.out.startswith("added ")
    assert "may contradict" in added.err and '"回复用中文"' in added.err and "reply language" in added.err


def test_an_english_conflict_said_twice_is_one_proposal(run, written) -> None:
    with written() as system:
        system.remember("我习惯用 Tab 缩进")
    held = run("mem", "remember", "I prefer 4-space indentation", "--json").json()
    again = run("mem", "remember", "I prefer 4-space indentation", "--json").json()
    assert held["action"] == "conflict" and again["action"] == "exists"
    assert again["memory"]["id"] == held["memory"]["id"] and again["memory"]["status"] == "pending"
    with written() as system:  # `review --json`'s list (`review_view`), read in process: the remembers are the test
        listed = [item.to_dict() for item in system.git.pending_changes()]
    assert [item["id"] for item in listed if item.get("memory_status") == "pending"] == [held["memory"]["id"]]


@pytest.mark.parametrize(
    ("first", "second", "new"),
    [
        ("I prefer 4-space indentation", "YAML files use 2-space indentation", "我习惯用 Tab 缩进"),
        ("缩进用四个空格", "YAML 文件用两个空格缩进", "I indent with tabs"),
    ],
)
def test_accepting_retires_only_what_the_person_names(run, written, first: str, second: str, new: str) -> None:
    """Issue 39: accepting a capture superseded every memory its conflict named. Review says before the
    accept what it retires; `--replace ID` retires that one and the other stays active."""
    with written() as system:
        ids = [system.add(text, "", layer="core", category="preference").id for text in (first, second)]
    held = run("mem", "remember", new, "--json").json()
    assert held["action"] == "conflict" and {c["id"] for c in held["conflicts"]} == set(ids), held
    new_id = held["memory"]["id"]
    said = run("mem", "remember", new)  # said again: the lines name the way to retire one
    listed = run("mem", "review")
    assert f"accept {new_id[:8]} retires {ids[0][:8]}" in listed.out or f"retires {ids[1][:8]}" in listed.out
    assert "--replace ID" in listed.out and ids[0][:8] in listed.out and ids[1][:8] in listed.out, listed.out
    assert said.code == 0
    wrong = run("mem", "review", "--accept", new_id, "--replace", "ffffffff")
    assert wrong.code != 0 and "none of the memories it may contradict" in wrong.err and "Traceback" not in wrong.err
    both = run("mem", "review", "--accept", new_id, "--replace", ids[0][:8], "--keep-both")
    assert both.code != 0 and "give one" in both.err
    with written() as system:  # `review --json`'s list, read in process: the refused calls are the test
        assert system.git.pending_changes()[0].to_dict()["id"] == new_id  # nothing was accepted by a refused call
    accepted = run("mem", "review", "--accept", new_id, "--replace", ids[0][:8])
    assert accepted.code == 0 and f"supersedes {ids[0][:8]}" in accepted.out and ids[1][:8] not in accepted.out
    status = {item["id"]: item["status"] for item in run("mem", "list", "--status", "all", "--json").json()}
    assert status[new_id] == "active" and status[ids[0]] == "superseded" and status[ids[1]] == "active"
