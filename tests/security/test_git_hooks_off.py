"""The tool's git never runs the repository's code (issue 35, point 8; git/command.py): a project whose
hooks write a marker — `.git/hooks/` (`reference-transaction`, `post-index-change`, `pre-commit`,
`post-commit`) or a husky-style `core.hooksPath` in the repository's config — gets none written by init, add,
edit + commit, review, log, timeline, stale or search, in English and Chinese. Plain git in the same
repository does run them (the hooks are live)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.repos import git
from tests.security.conftest import hostile_project

pytestmark = pytest.mark.usefixtures("isolated_git")

HOOKS = ("reference-transaction", "post-index-change", "pre-commit", "post-commit", "pre-push")


def with_hooks(folder: Path, marker: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in HOOKS:
        hook = folder / name
        hook.write_text(f'#!/bin/sh\necho "{name}" >> "{marker}"\nexit 0\n', encoding="utf-8")
        hook.chmod(hook.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


@pytest.fixture(params=["git-hooks", "hooks-path"])
def hooked(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Path]:
    """A cloned project whose git hooks write to `marker` (its `.git/hooks`, or `.husky` by core.hooksPath)."""
    project = hostile_project(tmp_path / "clone", "retrieval:\n  decay: 0.9\n", {"src/app.py": "PORT = 8080\n"})
    marker = tmp_path / "hooks-ran.txt"
    if request.param == "git-hooks":
        with_hooks(project / ".git" / "hooks", marker)
    else:
        with_hooks(project / ".husky", marker)
        git(project, "config", "core.hooksPath", ".husky")
    return project, marker


def test_the_tools_git_runs_no_repository_hook(cli, home: Path, hooked: tuple[Path, Path]) -> None:
    project, marker = hooked
    env = {"AIMATE_NO_DAEMON": "1"}
    steps = [
        ("mem", "init"),
        ("mem", "add", "The API listens on port 8080", "--layer", "long_term", "--body", "See src/app.py."),
        ("mem", "add", "部署前先跑冒烟测试", "--layer", "core"),
        ("mem", "review"),
        ("mem", "log"),
        ("mem", "timeline"),
        ("mem", "stale"),
        ("mem", "search", "端口"),
    ]
    for args in steps:
        result = cli(*args, cwd=project, env=env)
        assert result.code == 0, (args, result.err)
    memory = next((project / ".aimate" / "memory").rglob("*.md"))
    memory.write_text(memory.read_text(encoding="utf-8") + "\nEdited by hand.\n", encoding="utf-8")
    assert cli("mem", "commit", "-m", "hand edit", cwd=project, env=env).code == 0
    assert cli("mem", "--global", "init", env=env).code == 0
    assert not marker.exists(), marker.read_text(encoding="utf-8")
    assert "hand edit" in git(project, "log", "--format=%s")  # the tool did commit, without the hooks
    # The hooks are live: git itself runs them.
    git(project, "commit", "-q", "--allow-empty", "-m", "by hand")
    assert "pre-commit" in marker.read_text(encoding="utf-8")


def test_git_prefix_reaches_every_git_the_vault_runs(tmp_path: Path) -> None:
    from aimate_memory.git.repo import VaultRepo

    project = hostile_project(tmp_path / "p", "")
    marker = tmp_path / "m.txt"
    with_hooks(project / ".git" / "hooks", marker)
    with VaultRepo(project) as repo:
        repo.git("commit", "--allow-empty", "-m", "through the vault's own runner")
    assert not marker.exists() and os.path.isdir(project / ".git")
