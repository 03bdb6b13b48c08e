"""The sync planner (pure): which branch, which step, and every disagreement refused with its fix."""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePosixPath

import pytest

from aimate_memory.git.sync_plan import (
    Relation,
    RemoteRefs,
    Step,
    SyncFacts,
    SyncRefusedError,
    choose_branch,
    is_setup_file,
    plan_sync,
)

SHA = {name: name * 40 for name in "abcdef"}


@pytest.mark.parametrize(
    ("head", "branches", "expected"),
    [
        ("main", {"main": SHA["a"]}, "main"),
        ("master", {"master": SHA["a"]}, "master"),  # the remote's default wins over `main`
        ("trunk", {"main": SHA["a"], "trunk": SHA["b"]}, "trunk"),
        (None, {}, "main"),  # an empty remote: main, whatever the person's init.defaultBranch says
        (None, {"main": SHA["a"]}, "main"),  # HEAD names an unborn branch (a bare repo made under master)
        (None, {"master": SHA["a"]}, "master"),  # the only branch there is
    ],
)
def test_choose_branch(head: str | None, branches: dict[str, str], expected: str) -> None:
    assert choose_branch(RemoteRefs(head, branches)) == expected


def test_choose_branch_refuses_several_without_a_default() -> None:
    with pytest.raises(SyncRefusedError) as caught:
        choose_branch(RemoteRefs(None, {"dev": SHA["a"], "master": SHA["b"]}))
    assert "dev, master" in caught.value.message and "HEAD" in caught.value.hint


BASE = SyncFacts(
    vault="/v",
    branch="main",
    local_branch="main",
    local_head=SHA["a"],
    remote_head=SHA["b"],
    last_synced=None,
    remote_keeps_last_sync=True,
    relation=Relation.DIVERGED,
    local_is_setup_only=False,
)


@pytest.mark.parametrize(
    ("changes", "step"),
    [
        ({"relation": Relation.SAME, "remote_head": SHA["a"]}, Step.UP_TO_DATE),
        ({"relation": Relation.AHEAD}, Step.PUSH),
        ({"relation": Relation.BEHIND}, Step.FAST_FORWARD),
        ({"relation": Relation.DIVERGED}, Step.MERGE),
        ({"local_head": None, "relation": None}, Step.ADOPT),  # a clone into an empty vault
        ({"relation": Relation.UNRELATED, "local_is_setup_only": True}, Step.ADOPT),  # a second device after init
        ({"remote_head": None, "relation": None}, Step.PUSH),  # the first device
        ({"remote_head": None, "local_head": None, "relation": None}, Step.CREATE),
        ({"local_branch": "master", "relation": Relation.BEHIND}, Step.ADOPT),  # nothing of ours left behind
        ({"last_synced": SHA["c"], "relation": Relation.AHEAD}, Step.PUSH),
    ],
)
def test_plan_steps(changes: dict, step: Step) -> None:
    assert plan_sync(replace(BASE, **changes)).step is step


def test_an_empty_remote_makes_the_branch_main() -> None:
    plan = plan_sync(replace(BASE, remote_head=None, relation=None, local_branch="master"))
    assert plan.step is Step.PUSH and plan.rename_from == "master"


def test_join_merges_unrelated_histories_once_asked() -> None:
    plan = plan_sync(replace(BASE, relation=Relation.UNRELATED, join=True))
    assert plan.step is Step.MERGE and plan.allow_unrelated


@pytest.mark.parametrize(
    ("changes", "message", "hint"),
    [
        ({"relation": Relation.UNRELATED}, "unrelated histories", "--join"),
        ({"local_branch": "master"}, "on branch master but the remote's branch is main", "branch -m master main"),
        (
            {"last_synced": SHA["c"], "remote_keeps_last_sync": False},
            "rewritten (force-pushed)",
            "push --force-with-lease origin main",
        ),
        ({"last_synced": SHA["c"], "remote_head": None, "relation": None}, "is gone", "push origin main"),
        # a rewritten remote is refused even when the person asked to join
        ({"last_synced": SHA["c"], "remote_keeps_last_sync": False, "join": True}, "rewritten", "reset --hard"),
    ],
)
def test_disagreements_are_refused_with_the_fix(changes: dict, message: str, hint: str) -> None:
    with pytest.raises(SyncRefusedError) as caught:
        plan_sync(replace(BASE, **changes))
    assert message in caught.value.message
    assert hint in caught.value.hint


TEMPLATE = "---\ntype: core\ntitle: Preferences / 偏好\n---\n\n# Preferences / 偏好\n\n<!-- 写下你的偏好 -->\n"
INSTALLED = (
    "---\nid: 0193f1c2-7b7e-7c3a-9d2e-5b1f0a7c4e21\ntype: core\ntitle: Preferences / 偏好\nstatus: active\n"
    "created_at: 2026-02-01T10:30:00+08:00\n---\n\n# Preferences / 偏好\n\n<!-- 写下你的偏好 -->\n"
)


def test_setup_files_are_what_init_wrote_untouched() -> None:
    templates = {PurePosixPath("core/preferences.md"): TEMPLATE, PurePosixPath("README.md"): "# Vault\n"}
    assert is_setup_file(PurePosixPath(".gitattributes"), "*.md merge=aimate-memory\n", templates)
    assert is_setup_file(PurePosixPath("README.md"), "# Vault\n", templates)
    assert is_setup_file(PurePosixPath("core/preferences.md"), INSTALLED, templates)  # own id and dates
    edited = INSTALLED.replace("<!-- 写下你的偏好 -->", "- I prefer pytest.")
    assert not is_setup_file(PurePosixPath("core/preferences.md"), edited, templates)
    assert not is_setup_file(PurePosixPath("README.md"), "# My vault\n", templates)
    assert not is_setup_file(PurePosixPath("long_term/knowledge/x.md"), INSTALLED, templates)
    assert not is_setup_file(PurePosixPath("core/preferences.md"), "---\n: [broken\n---\n", templates)
