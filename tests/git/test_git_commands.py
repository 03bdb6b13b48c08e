"""The git commands through a Typer app, as the CLI will register them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from aimate_memory.errors import AimateError
from aimate_memory.git import GitCommitter, init_vault_repo, pending_changes
from aimate_memory.git.commands import register, review_cmd
from aimate_memory.vault.layout import Layer, Scope

TITLE = "选用 Redis 做会话缓存"


@pytest.fixture
def system(tmp_path: Path, new_system, run_git):
    project = tmp_path / "proj"
    project.mkdir()
    run_git(project, "init", "-q", "-b", "main")
    (project / "main.go").write_text("package main\n", encoding="utf-8")
    system = new_system(tmp_path / "home", project)
    system.init()
    init_vault_repo(system.global_vault.root)
    system.on_change(GitCommitter(lambda: system.config))
    return system


@pytest.fixture
def invoke(system):
    app = typer.Typer()
    register(app, lambda ctx: system)

    @app.callback()
    def _root() -> None:
        pass

    runner = CliRunner()

    def run(*args: str, input: str | None = None):
        result = runner.invoke(app, list(args), input=input)
        if result.exception and not isinstance(result.exception, SystemExit):
            raise result.exception
        return result

    return run


def test_review_json_accept_and_log(system, invoke, run_git) -> None:
    memory = system.add(TITLE, "正文。", layer=Layer.LONG_TERM, category="decision", scope=Scope.GLOBAL)
    path = system.global_vault.abs_path(memory.rel_path)
    path.write_text(path.read_text(encoding="utf-8").replace("正文。", "手改。"), encoding="utf-8")
    listed = [c for c in json.loads(invoke("review", "--json").stdout) if c["scope"] == "global"]
    assert [(c["scope"], c["status"], c["path"], c["title"]) for c in listed] == [
        ("global", "modified", str(memory.rel_path), TITLE)
    ]
    assert "+手改。" in listed[0]["diff"]
    assert "+手改。" in invoke("diff", memory.id).stdout
    assert "+手改。" in invoke("diff").stdout
    out = invoke("review", "--accept", str(memory.rel_path)).stdout
    assert out.startswith("accepted [global]")
    log = json.loads(invoke("log", memory.id, "--json").stdout)
    assert [entry["action"] for entry in log] == ["update", "add"]
    assert log[0]["subject"] == f'memory: accept edit "{TITLE}" (long_term/decisions)'
    assert "memory: accept edit" in invoke("log").stdout


def test_commit_project_vault_only_vault_paths(system, invoke, run_git) -> None:
    project = system.roots.project_dir
    system.add("项目决定", "用 Go 写。", scope=Scope.PROJECT)
    run_git(project, "add", "main.go")
    result = invoke("commit", "-m", "memory: 项目记忆", "--project")
    assert result.exit_code == 0, result.stdout
    files = run_git(project, "show", "--name-only", "--format=", "HEAD").split()
    assert files and all(f.startswith(".aimate/memory/") for f in files)
    assert run_git(project, "diff", "--cached", "--name-only").split() == ["main.go"]
    assert invoke("commit", "-m", "again", "--project").stdout.startswith("nothing to commit")


def test_interactive_review(system, monkeypatch, run_git) -> None:
    root = system.global_vault.root
    (root / "short_term" / "notes" / "a.md").write_text("# 笔记 A\n", encoding="utf-8")
    (root / "short_term" / "notes" / "b.md").write_text("# 笔记 B\n", encoding="utf-8")
    # the project vault's uncommitted .gitattributes and README come first (project first): skip them
    monkeypatch.setattr("sys.stdin", io.StringIO("s\ns\na\nr\n"))
    done = review_cmd(system, interactive=True)
    assert [(d["path"], d["action"]) for d in done] == [
        ("short_term/notes/a.md", "accept"),
        ("short_term/notes/b.md", "reject"),
    ]
    assert pending_changes(root) == []
    assert [c.path.as_posix() for c in pending_changes(system.project_vault.root)] == [".gitattributes", "README.md"]
    assert (root.parent / "state" / "rejected").is_dir()


def test_errors_are_aimate_errors(system, invoke) -> None:
    with pytest.raises(AimateError, match="no uncommitted memory change"):
        invoke("review", "--reject", "nope.md")
    with pytest.raises(AimateError, match="no git remote"):
        invoke("sync")
