"""The git actions through the facade and the real CLI: review, commit, diff, log, sync; `--project`,
titles as refs, `--json`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from git_helpers import pending_at

from aimate_memory.errors import AimateError
from aimate_memory.vault.layout import Layer, Scope
from tests.conftest import in_process

TITLE = "选用 Redis 做会话缓存"


def project_system(tmp_path: Path, new_system, run_git, models=None):
    project = tmp_path / "proj"
    project.mkdir()
    run_git(project, "init", "-q", "-b", "main")
    (project / "main.go").write_text("package main\n", encoding="utf-8")
    system = new_system(tmp_path / "home", project, models=models)
    system.init()
    return system


@pytest.fixture
def system(tmp_path: Path, new_system, run_git):
    return project_system(tmp_path, new_system, run_git)


@pytest.fixture
def system_with_models(tmp_path: Path, new_system, run_git, loaded_models):
    """`system` with the real models, loaded once per module: `remember`'s conflict check reads them."""
    return project_system(tmp_path, new_system, run_git, loaded_models)


@pytest.fixture
def project(tmp_path: Path, cli, run_git) -> Path:
    """A git project with both vaults initialized through the CLI."""
    path = tmp_path / "work" / "proj"
    path.mkdir(parents=True)
    run_git(path, "init", "-q", "-b", "main")
    (path / "main.go").write_text("package main\n", encoding="utf-8")
    assert cli("mem", "init", cwd=path).code == 0
    return path


def test_review_accept_diff_and_log(system) -> None:
    memory = system.add(TITLE, "正文。", layer=Layer.LONG_TERM, category="decision", scope=Scope.GLOBAL)
    path = system.global_vault.abs_path(memory.rel_path)
    path.write_text(path.read_text(encoding="utf-8").replace("正文。", "手改。"), encoding="utf-8")
    listed = [item.to_dict() for item in system.git.pending_changes(Scope.GLOBAL)]
    assert [(c["scope"], c["status"], c["path"], c["title"]) for c in listed] == [
        ("global", "modified", str(memory.rel_path), TITLE)
    ]
    assert "+手改。" in listed[0]["diff"]
    assert "+手改。" in system.git.diff(memory.id)
    assert "+手改。" in system.git.diff(TITLE)
    (outcome,) = system.git.accept([str(memory.rel_path)])
    assert (outcome.scope, outcome.action) == ("global", "accept") and outcome.commit
    log = [item.to_dict() for item in system.git.log(memory.id)]
    assert [entry["action"] for entry in log] == ["update", "add"]
    assert log[0]["subject"] == f'memory: accept edit "{TITLE}" (long_term/decisions)'
    assert [item.to_dict() for item in system.git.log(TITLE)] == log


def test_commit_inside_a_project_commits_the_project_vault_only(system, run_git) -> None:
    project = system.roots.project_dir
    system.add("项目决定", "用 Go 写。", scope=Scope.PROJECT)
    run_git(project, "add", "main.go")
    result = system.git.commit("memory: 项目记忆")
    assert result.scope == "project" and result.commit
    files = run_git(project, "show", "--name-only", "--format=", "HEAD").split()
    assert files and all(f.startswith(".aimate/memory/") for f in files)
    assert run_git(project, "diff", "--cached", "--name-only").split() == ["main.go"]
    assert system.git.commit("again", scope=Scope.PROJECT).commit is None


def test_interactive_review(system, monkeypatch) -> None:
    from aimate_memory.cli import git_commands

    root = system.global_vault.root
    (root / "short_term" / "notes" / "a.md").write_text("# 笔记 A\n", encoding="utf-8")
    (root / "short_term" / "notes" / "b.md").write_text("# 笔记 B\n", encoding="utf-8")
    items = system.git.pending_changes()
    # the project vault's uncommitted .gitattributes and README are not memories: review does not list them
    assert [item.change.title for item in items] == ["笔记 A", "笔记 B"]
    monkeypatch.setattr("sys.stdin", io.StringIO("a\nr\n"))
    git_commands._interactive(system, items, allow_secret=False)
    assert pending_at(root) == []
    assert [c.path.as_posix() for c in pending_at(system.project_vault.root)] == [".gitattributes", "README.md"]
    assert (root.parent / "state" / "rejected").is_dir()
    assert "笔记 A" in (root / "short_term" / "notes" / "a.md").read_text(encoding="utf-8")
    assert not (root / "short_term" / "notes" / "b.md").exists()


@pytest.mark.parametrize("new", ["我习惯用 Tab 缩进", "I indent with tabs"])
def test_interactive_review_accepts_retiring_only_the_one_named(system_with_models, monkeypatch, new: str) -> None:
    """Issue 39: at the terminal too, a capture that may contradict several memories is accepted retiring only
    the one the person names ([o]nly one, then its id); the other stays active."""
    from aimate_memory.cli import git_commands

    system = system_with_models

    kept = system.add("I prefer 4-space indentation", layer="core", category="preference", scope=Scope.GLOBAL)
    replaced = system.add("YAML 文件用两个空格缩进", layer="core", category="preference", scope=Scope.GLOBAL)
    held = system.remember(new)
    assert held.action == "conflict" and len(held.conflicts) == 2, held
    items = [item for item in system.git.pending_changes() if item.change.memory_id == held.memory.id]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"o\n{replaced.id[:8]}\n"))
    git_commands._interactive(system, items, allow_secret=False)
    assert [system.get(memory_id).status for memory_id in (held.memory.id, replaced.id, kept.id)] == [
        "active",
        "superseded",
        "active",
    ]


@pytest.mark.parametrize(
    ("title", "body", "edited"),
    [
        ("选用 Redis 做会话缓存", "我们决定用 Redis。\n延迟低。", "延迟低，支持过期。"),
        ("Use Redis", "We chose Redis.\nLow latency.", "Low latency, TTLs."),
    ],
)
def test_review_lists_memories_by_id_with_what_changed_and_takes_ids(
    cli, home: Path, project: Path, title: str, body: str, edited: str
) -> None:
    # What review is shown, written in process as `add`, `session append` and `remember --confidence 0.7` write
    # it (their faces have tests of their own; three CLI processes were ~1 s of CPU): `review` is tested here.
    with in_process(home) as writer:
        added = writer.add(title, body, category="decision")
        memory = {"id": added.id, "path": added.rel_path.as_posix()}
        vault = home / "memory"
        path = vault / memory["path"]
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("importance: 3", "importance: 4").replace(body.splitlines()[1], edited), "utf-8")
        (vault / "README.md").write_text("changed by hand\n", encoding="utf-8")  # not a memory: not listed
        writer.sessions.append("user", "hello 你好")
        captured = writer.remember("We decided to deploy on Fridays", confidence=0.7)
        assert captured.action == "pending" and captured.memory is not None
        pending_id = captured.memory.id

    listed = cli("mem", "--global", "review")
    assert listed.code == 0, listed.err
    lines = listed.out.splitlines()
    pending_line = next(line for line in lines if line.startswith(pending_id[:8]))
    assert "pending capture: We decided to deploy on Fridays" in pending_line
    edited_at = next(i for i, line in enumerate(lines) if line.startswith(memory["id"][:8]))
    assert f"edited: {title}" in lines[edited_at]
    assert lines[edited_at + 2 : edited_at + 5] == [
        "    importance: 3 → 4",
        f"    -{body.splitlines()[1]}",
        f"    +{edited}",
    ]  # a short diff of the memory, not 19 lines of YAML
    assert "README" not in listed.out and "sessions/" not in listed.out and "2 changes" in listed.out
    as_json = cli("mem", "--global", "review", "--json").json()
    assert sorted(item["id"] for item in as_json) == sorted([pending_id, memory["id"]])
    edited_item = next(item for item in as_json if item["id"] == memory["id"])
    assert edited_item["fields"] == {"importance": {"before": 3, "after": 4}}

    accepted = cli("mem", "--global", "review", "--accept", pending_id[:4], "--reject", memory["id"][:6])
    assert accepted.code == 0, accepted.err  # was: no uncommitted memory change at 326c
    assert cli("mem", "--global", "show", pending_id[:8], "--json").json()["status"] == "active"
    assert cli("mem", "--global", "show", memory["id"][:8], "--json").json()["importance"] == 3
    assert cli("mem", "--global", "review").out.startswith("nothing to review")
    missing = cli("mem", "--global", "review", "--accept", "ffff0000")
    assert missing.code == 1 and "`aimate mem review` lists them by id" in missing.err


def test_errors_are_aimate_errors(system) -> None:
    with pytest.raises(AimateError, match="no uncommitted memory change"):
        system.git.reject(["nope.md"])
    with pytest.raises(AimateError, match="no git remote"):
        system.git.sync_remote()


# -- the real CLI -----------------------------------------------------------------------------------


def test_cli_project_option_is_honoured(cli, project: Path, workdir: Path, run_git) -> None:
    added = cli("mem", "--project", str(project), "add", "Project rule", "--body", "Use Go 1.22.", "--json")
    assert added.code == 0, added.err
    memory = added.json()
    review = cli("mem", "--project", str(project), "review", "--json")
    assert any(c["scope"] == "project" and c["id"] == memory["id"] for c in review.json())
    diff = cli("mem", "--project", str(project), "diff", "--json")
    assert any("Use Go 1.22." in c["diff"] for c in diff.json() if c["scope"] == "project")
    committed = cli("mem", "--project", str(project), "commit", "-m", "memory: project rule", "--json")
    assert committed.code == 0, committed.err
    assert committed.json()["scope"] == "project" and committed.json()["commit"]
    assert "Use Go 1.22." in run_git(project, "show", "HEAD")
    assert "main.go" in run_git(project, "status", "--porcelain")  # the user's code stays untouched
    log = cli("mem", "--project", str(project), "log", "Project rule", "--json")
    assert [(e["scope"], e["action"]) for e in log.json()] == [("project", "add")]
    # inside the project, the same without --project; `commit --project` is an alias
    assert cli("mem", "commit", "-m", "again", "--project", cwd=project).out.startswith(
        "nothing to commit in the project"
    )
    # outside a project, asking for the project vault says so
    outside = cli("mem", "commit", "-m", "x", "--project", cwd=workdir)
    assert outside.code == 1 and "not inside a project" in outside.err and "hint" in outside.err


def test_cli_log_by_title_in_chinese_and_english(cli, initialized) -> None:
    for title in ("Log me", "记录这个决定"):
        memory = cli("mem", "add", title, "--body", f"{title} body", "--json").json()
        log = cli("mem", "log", title, "--json")
        assert log.code == 0, log.err
        assert [entry["action"] for entry in log.json()] == ["add"]
        assert memory["id"][:8] in cli("mem", "show", title).out or title in cli("mem", "show", title).out


def test_cli_ambiguous_title_lists_the_candidates(cli, initialized) -> None:
    ids = [cli("mem", "add", "同名 Same", "--body", body, "--json").json()["id"] for body in ("一", "two")]
    result = cli("mem", "log", "同名 Same")
    assert result.code == 1
    assert "matches 2 memories" in result.err and all(memory_id[:8] in result.err for memory_id in ids)


def test_cli_commit_and_diff_json(cli, initialized, home: Path) -> None:
    note = home / "memory" / "short_term" / "notes" / "hand.md"
    note.write_text("# Hand note 手写\n\nline one\n", encoding="utf-8")
    diff = cli("mem", "diff", "--json").json()
    assert [(c["scope"], c["status"], c["path"]) for c in diff] == [("global", "added", "short_term/notes/hand.md")]
    committed = cli("mem", "commit", "-m", "memory: hand note", "--json").json()
    assert committed["scope"] == "global" and committed["commit"] and committed["changes"]
    assert json.loads(cli("mem", "review", "--json").out) == []


def test_commit_names_a_hand_move_among_new_files(system, run_git) -> None:
    """`commit` lists files without reading them unless a deletion could be a move: a moved memory (Chinese
    title) is still named as one move beside a new English one."""
    project = system.roots.project_dir
    moved = system.add(TITLE, "我们决定用 Redis。", scope=Scope.PROJECT)
    system.git.commit("memory: first", scope=Scope.PROJECT)
    vault = system.store.vault_for(Scope.PROJECT).root
    target = vault / "long_term" / "moved-by-hand.md"
    (vault / moved.rel_path).rename(target)
    system.add("Flaky login test", "Retry it once.", scope=Scope.PROJECT)
    result = system.git.commit("memory: tidy", scope=Scope.PROJECT)
    assert f"renamed {moved.rel_path} → long_term/moved-by-hand.md" in result.changes
    assert sum(change.startswith("added ") for change in result.changes) == 1
    assert run_git(project, "status", "--porcelain", "--", ".aimate/memory").strip() == ""
