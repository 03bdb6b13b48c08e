# ruff: noqa: F811  (the fixtures `hook` and `project` are imported from test_hook_sessions and taken by name)
"""Issue 39's everyday defects, as a new user meets them through the real CLI and hooks (Claude Code's payloads),
in English and Chinese: reads never write the team's files (after session starts, prompts, searches, `context`,
`show` and `maintain`, the project's `git status` is clean, `review` lists nothing, `timeline` shows no edit
nobody made, and a task shown everywhere stays a task); a global long-term memory reaches a project's session
start."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import in_process
from tests.integrations.conftest import in_project
from tests.integrations.test_hook_sessions import (  # noqa: F401  (fixtures used by name)
    CLAUDE_SID,
    claude,
    context_of,
    git_identity,
    hook,
    project,
)

pytestmark = pytest.mark.slow  # a dozen CLI and hook subprocesses per case

READS = {
    "en": ("The API uses FastAPI with SQLAlchemy 2", "TODO: add pagination to /users", "pagination for users"),
    "zh": ("数据库用 PostgreSQL 16", "待办：给 /orders 加分页", "分页"),
}
GLOBAL_FACTS = {
    "en": "The MCP server for filesystem access is running within Docker",
    "zh": "我的开发机是 macOS，shell 用 zsh",
}


def _git(project: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_reads_never_write_the_teams_files(cli, hook, project: Path, lang: str, home: Path) -> None:
    fact, task, query = READS[lang]
    # The project's two memories, added and accepted in process as `add` and `review --accept-all` do it
    # (`in_process`; those faces have tests of their own): the test is about the reads after.
    with in_process(home, project) as system:
        system.add(fact, "", layer="long_term", category="knowledge")
        task_id = system.add(task, "", layer="short_term", category="task").id
        assert system.git.accept_all()
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "the project and its memory")

    for round_ in range(3):  # shown in session starts, prompts, searches and contexts; read by `show`
        start = context_of(hook("session-start", claude(project, f"{CLAUDE_SID[:-1]}{round_}", "SessionStart")))
        assert task in start and fact in start
        assert task in context_of(hook("prompt", claude(project, CLAUDE_SID, "UserPromptSubmit", prompt=task)))
        assert cli("mem", "search", query, cwd=project).code == 0
        assert cli("mem", "context", query, cwd=project).code == 0
        assert cli("mem", "show", task_id[:8], cwd=project).code == 0
    assert cli("mem", "maintain", cwd=project).code == 0

    assert _git(project, "status", "--porcelain") == ""  # `git commit -am` sweeps nothing into a code commit
    assert cli("mem", "review", "--json", cwd=project).json() == []
    timeline = cli("mem", "timeline", cwd=project).out
    assert " edit " not in timeline and "promote" not in timeline, timeline
    [still] = cli("mem", "list", "--layer", "short_term", "--json", cwd=project).json()
    assert (still["id"], still["category"]) == (task_id, "task")  # shown is not used: never promoted


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_global_long_term_memory_reaches_a_projects_session_start(hook, home: Path, project: Path, lang: str) -> None:
    fact = GLOBAL_FACTS[lang]
    # Remembered in process as `remember --kind knowledge --scope global` files it (its CLI face: tests/cli):
    # the session start is the test.
    with in_project(home, project) as system:
        remembered = system.remember(fact, kind="knowledge", scope="global")
    assert remembered.action == "written", remembered.to_dict()

    start = context_of(hook("session-start", claude(project, CLAUDE_SID, "SessionStart", source="startup")))
    assert "## Long-term memory · global" in start
    assert fact in start.split("## Long-term memory · global", 1)[1]
