"""One-off requests are not rules (issue 39; capture/heard.py `asks_for_now`, rules.AT_HAND_CUES,
capture/classify.py): a request for the work at hand — these changes, this error, what the assistant answered, a
piece of work for the person, one step of the task — is never proposed from a conversation, and kept by an
explicit `remember` as a task for now, not a core rule; said with always/from now on/以后/每次 it stands.
Chinese and English, the pure functions, the real models in process and the real CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from aimate_memory.capture.classify import AT_HAND_REASON, classify
from aimate_memory.capture.distill import distill
from aimate_memory.capture.heard import asks_for_now, heard, worth_keeping
from tests.conftest import in_process

if TYPE_CHECKING:
    from aimate_memory.embedding.lazy import LazyEmbedder

ONE_OFF = [
    "Please create a commit message for these changes",
    "帮我写一下这次改动的提交信息",
    "Then rename the master branch to 'main'.",
    "请把登录按钮的颜色改成蓝色",
    "Put the error summary into a single code block so I can copy it",
    "Let's go with your suggestion and update the docs.",
    "按你的建议重构一下登录模块",
    "帮我把日志模块改为异步写入。",
    "然后将配置拆分为独立的模块。",
]
STANDING = [
    "From now on, write every commit message in English.",
    "以后每次都用中文写提交信息",
    "Always rename branches with a ticket number prefix.",
    "不要把密钥提交到仓库",
]


@pytest.mark.parametrize("request_for_now", ONE_OFF)
def test_a_request_for_the_work_at_hand_is_never_heard(request_for_now: str) -> None:
    assert asks_for_now(request_for_now)
    assert heard(1, request_for_now) == [] and not worth_keeping(request_for_now)
    assert distill([("user", request_for_now)], lambda text: classify(text, has_project=True), 0.0, 3) == []


@pytest.mark.parametrize("standing", STANDING)
def test_said_to_stand_it_is_heard_whatever_it_asks_for(standing: str) -> None:
    assert not asks_for_now(standing)
    assert [statement.text for statement in heard(1, standing)] == [standing]


def test_of_a_request_for_now_joined_to_a_standing_clause_the_clause_is_heard() -> None:
    assert [statement.text for statement in heard(2, "帮我修一下这个错误，以后使用中文回答")] == ["以后使用中文回答"]
    joined = "Please write a changelog entry for these changes, and from now on always update the changelog."
    assert [statement.text for statement in heard(2, joined)] == [joined]


def test_a_way_of_working_said_as_a_step_still_stands() -> None:
    """A step of the task that says how to go about any task holds beyond this one."""
    assert not asks_for_now("Then ask any questions you might have.")
    assert heard(1, "Then ask any questions you might have.")


@pytest.mark.parametrize("request_for_now", ONE_OFF)
def test_remembered_a_request_for_now_is_kept_as_a_task_not_a_rule(request_for_now: str) -> None:
    found = classify(request_for_now, has_project=True)
    assert (found.layer.value, found.scope.value, found.drop) == ("short_term", "project", False)
    # Filed a task because it asks for now, or a note (a transient situation) by the model already.
    assert (found.kind == "task" and AT_HAND_REASON in found.reason) or found.kind == "note", found.reason
    given = classify(request_for_now, has_project=True, kind="rule")  # the person's own word wins
    assert (given.kind, given.layer.value) == ("rule", "core")


@pytest.mark.slow
def test_remember_keeps_a_request_for_now_as_a_task_and_a_standing_one_as_a_rule(
    loaded_models: LazyEmbedder, tmp_path: Path, isolated_git: None
) -> None:
    """With the kind model reading the sentence's embedding, as a person's `remember` and a model's
    `memory_remember` (a confidence) file it: a task of the project, never a core rule, never dropped."""
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    with in_process(tmp_path / "aimate-home", project, loaded_models, AIMATE_CAPTURE__EMBEDDING="true") as system:
        for text in ONE_OFF[:2]:
            typed = system.remember(text)
            assert typed.action == "written" and typed.memory is not None
            assert (typed.memory.layer.value, typed.memory.category, typed.memory.scope.value) == (
                "short_term",
                "task",
                "project",
            )
            assert AT_HAND_REASON in typed.reason
        by_model = system.remember(ONE_OFF[3], confidence=0.9, source="mcp")
        assert by_model.action == "written" and by_model.memory is not None
        assert (by_model.memory.layer.value, by_model.memory.category) == ("short_term", "task")
        for text in STANDING[:2]:
            standing = system.remember(text)
            assert standing.memory is not None and standing.memory.layer.value == "core", standing.reason


def test_remember_on_the_command_line_says_it_kept_a_request_as_a_task(cli, initialized, tmp_path: Path) -> None:
    """`aimate mem remember` in a project: the JSON and the line a person reads say why it is a task."""
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert cli("mem", "init", cwd=project).code == 0
    for text in ONE_OFF[:2]:
        done = cli("mem", "remember", text, "--json", cwd=project)
        assert done.code == 0, done.err
        memory = done.json()["memory"]
        assert (memory["layer"], memory["category"], memory["scope"]) == ("short_term", "task", "project")
    line = cli("mem", "remember", "Please write a changelog entry for these changes", cwd=project).out
    assert "as short_term/task (project)" in line and "a request for the work at hand" in line
