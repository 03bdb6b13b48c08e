"""A project vault a team can commit (issue 26): `.aimate/memory/` goes in with the code, the index, state and
conversations never do; `init --local` keeps all of `.aimate/` out; commits there are the person's."""

from __future__ import annotations

from pathlib import Path

import pytest

NO_IDENTITY = {"GIT_AUTHOR_NAME": "", "GIT_AUTHOR_EMAIL": "", "GIT_COMMITTER_NAME": "", "GIT_COMMITTER_EMAIL": ""}


@pytest.fixture
def project(tmp_path: Path, run_git) -> Path:
    path = tmp_path / "work" / "proj"
    path.mkdir(parents=True)
    run_git(path, "init", "-q", "-b", "main")
    (path / "main.go").write_text("package main\n", encoding="utf-8")
    return path


def untracked(run_git, project: Path) -> list[str]:
    return sorted(run_git(project, "ls-files", "--others", "--exclude-standard").split())


@pytest.mark.parametrize("said", ["把会话缓存迁到 Valkey", "Move the session cache to Valkey"])
def test_sessions_index_and_state_stay_out_and_memories_go_in(cli, project: Path, run_git, said: str) -> None:
    init = cli("mem", "init", cwd=project)
    assert init.code == 0 and "aimate mem init --local" in init.out  # says what to commit and the other way
    assert cli("mem", "add", "Use Go 1.22", "--layer", "core", "--body", "Go 1.22 只。", cwd=project).code == 0
    assert cli("mem", "session", "append", "--role", "user", said, cwd=project).code == 0
    assert cli("mem", "search", "Go", cwd=project).code == 0  # builds the project's index.db
    aimate = project / ".aimate"
    assert (aimate / "index.db").exists() and list((aimate / "memory" / "sessions").glob("*.md"))
    files = untracked(run_git, project)
    assert ".aimate/.gitignore" in files and any(f.startswith(".aimate/memory/core/") for f in files)
    assert not [f for f in files if "sessions/" in f or f.startswith((".aimate/index.db", ".aimate/state/"))]
    committed = cli("mem", "commit", "-m", "memory: Go version", cwd=project)
    assert committed.code == 0, committed.err
    shown = run_git(project, "show", "--name-only", "--format=%an <%ae>", "HEAD").split("\n")
    assert shown[0] == "Test Person <test@example.com>"  # the person's identity, as git has it
    assert not [f for f in shown if "sessions/" in f]


def test_an_existing_gitignore_gets_the_missing_lines(cli, project: Path) -> None:
    gitignore = project / ".aimate" / ".gitignore"
    gitignore.parent.mkdir()
    gitignore.write_text("# ours\nindex.db*\nstate/\n", encoding="utf-8")  # what init wrote before
    assert cli("mem", "init", cwd=project).code == 0
    lines = gitignore.read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["# ours", "index.db*", "state/"] and "memory/sessions/" in lines
    assert lines.count("index.db*") == 1


def test_init_local_keeps_the_whole_aimate_folder_out(cli, project: Path, run_git) -> None:
    assert cli("mem", "init", "--local", cwd=project).code == 0
    assert cli("mem", "add", "本地记忆", "--body", "只在这台机器上。", cwd=project).code == 0
    assert untracked(run_git, project) == ["main.go"]
    assert "/.aimate/" in (project / ".git" / "info" / "exclude").read_text(encoding="utf-8").splitlines()
    assert cli("mem", "init", "--local", cwd=project).code == 0  # again: the line is not repeated
    assert (project / ".git" / "info" / "exclude").read_text(encoding="utf-8").count("/.aimate/") == 1


def test_init_local_outside_a_repository_is_refused_before_anything_is_made(cli, tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "work" / "plain"
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text("", encoding="utf-8")
    result = cli("mem", "init", "--local", cwd=folder)
    assert result.code == 1 and "not in a git repository" in result.err
    assert not (folder / ".aimate").exists() and not (home / "memory").exists()


@pytest.mark.parametrize("title", ["项目约定：用 uv", "Use uv for virtualenvs"])
def test_a_project_commit_without_a_git_identity_is_refused_with_the_hint(
    cli, project: Path, run_git, title: str
) -> None:
    assert cli("mem", "init", cwd=project, env=NO_IDENTITY).code == 0  # the global vault's own repo: allowed
    assert cli("mem", "add", title, "--body", "uv venv", cwd=project, env=NO_IDENTITY).code == 0
    refused = cli("mem", "commit", "-m", "memory: uv", cwd=project, env=NO_IDENTITY)
    assert refused.code == 1 and "no git identity" in refused.err and "git config --global user.name" in refused.err
    assert run_git(project, "rev-parse", "-q", "--verify", "HEAD", check=False) == ""  # nothing committed
    assert title in cli("mem", "review", cwd=project).out  # the change waits, unharmed
