"""`aimate mem done`: a task the person finished is closed — archived with status done, one commit — in
Chinese and English; a memory that is not a task is refused (issue 39, "Promotion means use")."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a dozen CLI subprocesses per case


@pytest.mark.parametrize("title", ["TODO: add pagination to /users", "待办：给 /users 接口加分页"])
def test_done_closes_a_task_and_refuses_anything_else(cli, initialized, home: Path, title: str) -> None:
    task = cli("mem", "add", title, "--layer", "short_term", "--category", "task", "--json").json()
    rule = cli(
        "mem", "add", "Always run ruff 提交前运行 ruff", "--layer", "core", "--category", "rule", "--json"
    ).json()

    closed = cli("mem", "done", task["id"][:8])
    assert closed.code == 0, closed.err
    assert "done:" in closed.out
    [listed] = cli("mem", "list", "--status", "done", "--json").json()
    assert (listed["id"], listed["status"]) == (task["id"], "done")
    assert listed["path"].startswith("archive/short_term/tasks/")
    vault = home / "memory"
    subject = subprocess.run(["git", "-C", str(vault), "log", "-1", "--format=%s"], capture_output=True, text=True)
    assert subject.stdout.strip() == f'memory: done "{title}"'
    assert task["id"] not in {memory["id"] for memory in cli("mem", "list", "--json").json()}  # no longer live

    refused = cli("mem", "done", rule["id"][:8])
    assert refused.code != 0 and "not a task" in refused.err
