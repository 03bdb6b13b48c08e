"""Commits with reasons, the review gate, history across moves, the secret guard — on real repos."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import pytest
from git_helpers import pending_at, with_repo

from aimate_memory.errors import InvalidInputError
from aimate_memory.git import SecretFoundError, VaultRepo, init_vault_repo
from aimate_memory.git.history import log_memory
from aimate_memory.git.review import accept, reject
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.layout import Layer, Scope

AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"
TITLE = "选用 Redis 做会话缓存"


@pytest.fixture
def system(tmp_path: Path, new_system):
    system = new_system(tmp_path / "home")
    system.init()
    init_vault_repo(system.global_vault.root)
    return system


def subjects(run_git, repo: Path) -> list[str]:
    return run_git(repo, "log", "--format=%s").splitlines()


def test_init_is_idempotent_and_registers_the_driver(system, run_git) -> None:
    root = system.global_vault.root
    attributes = (root / ".gitattributes").read_text(encoding="utf-8")
    assert "*.md text eol=lf" in attributes and "*.md merge=aimate-memory" in attributes
    assert ".DS_Store" in (root / ".gitignore").read_text(encoding="utf-8")
    driver = run_git(root, "config", "merge.aimate-memory.driver")
    assert "-m aimate_memory.git.merge %O %A %B %P" in driver
    assert subjects(run_git, root) == ["memory: initialize the vault repository"]
    assert "core/preferences.md" in run_git(root, "ls-files")
    init_vault_repo(root)
    init_vault_repo(root)
    assert len(subjects(run_git, root)) == 1
    assert run_git(root, "status", "--porcelain") == ""


def test_tool_actions_are_one_commit_each_with_reasons(system, run_git) -> None:
    root = system.global_vault.root
    memory = system.add(TITLE, "延迟低，支持过期时间。", layer=Layer.LONG_TERM, category="decision", tags=["cache"])
    assert subjects(run_git, root)[0] == f'memory: add "{TITLE}" (long_term/decision)'
    body = run_git(root, "log", "-1", "--format=%b")
    assert f"add {memory.rel_path}: new long_term decision" in body
    system.set_fields(memory.id, {"tags": ["cache", "redis"]})
    archived = system.remove(memory.id)
    log = subjects(run_git, root)
    assert log[:2] == [f'memory: archive "{TITLE}"', f'memory: update "{TITLE}"']
    assert run_git(root, "status", "--porcelain") == ""
    # the archive move is one commit that lists the move; git sees a rename
    show = run_git(root, "show", "--name-status", "--format=%b", "HEAD")
    assert f"move {memory.rel_path} → {archived.rel_path}: removed by the user" in show
    assert re.search(rf"^R\d{{3}}\t{re.escape(str(memory.rel_path))}\t{re.escape(str(archived.rel_path))}$", show, re.M)
    history = with_repo(root, log_memory, memory.id)
    assert [(e.action, e.subject) for e in history] == [
        ("move", f'memory: archive "{TITLE}"'),
        ("update", f'memory: update "{TITLE}"'),
        ("add", f'memory: add "{TITLE}" (long_term/decision)'),
    ]
    assert history[0].old_path == memory.rel_path and history[0].path == archived.rel_path
    assert history[0].path.parts[0] == "archive"


def test_changeset_with_moves_is_one_commit_and_log_follows(system, run_git) -> None:
    root = system.global_vault.root
    vault = system.global_vault
    a = system.add("短期笔记 A", "内容 A", layer=Layer.SHORT_TERM, category="note")
    b = system.add("Short note B", "content B", layer=Layer.SHORT_TERM, category="note")
    # The maintenance changeset, built by hand and committed once (vault writes report to no one).
    moved_a, change_a = vault.archive(vault.load(a.rel_path), "expired", "expired: TTL 14 days passed")
    target = PurePosixPath("long_term/knowledge") / b.rel_path.name
    moved_b = vault.move(vault.load(b.rel_path), target, {"type": "long_term"})
    change_b = FileChange("move", moved_b.rel_path, "promoted: access_count 5 ≥ 5", old_path=b.rel_path)
    changeset = ChangeSet("maintenance: expired 1, promoted 1", [change_a, change_b])
    before = len(subjects(run_git, root))
    sha = with_repo(root, VaultRepo.commit_changeset, changeset)
    assert sha and len(subjects(run_git, root)) == before + 1
    message = run_git(root, "log", "-1", "--format=%B")
    assert message.startswith("maintenance: expired 1, promoted 1\n\n")
    assert f"- move {a.rel_path} → {moved_a.rel_path}: expired: TTL 14 days passed" in message
    assert f"- move {b.rel_path} → {moved_b.rel_path}: promoted: access_count 5 ≥ 5" in message
    assert run_git(root, "status", "--porcelain") == ""
    history = with_repo(root, log_memory, b.id)
    assert [e.action for e in history] == ["move", "add"]
    assert history[0].path == moved_b.rel_path and history[0].old_path == b.rel_path


def test_log_follows_a_hand_move_with_heavy_edit(system, run_git) -> None:
    root = system.global_vault.root
    memory = system.add(TITLE, "短", layer=Layer.LONG_TERM, category="decision")
    old = root / memory.rel_path.as_posix()
    new_rel = PurePosixPath("long_term/knowledge/redis.md")
    new = root / new_rel.as_posix()
    text = old.read_text(encoding="utf-8").replace("短", "完全重写的正文。\n" * 20)
    new.write_text(text, encoding="utf-8")
    old.unlink()
    (change,) = pending_at(root)
    assert change.status == "renamed" and change.old_path == memory.rel_path and change.path == new_rel
    with_repo(root, accept, new_rel)
    history = with_repo(root, log_memory, memory.id)
    assert history[0].action == "move" and history[0].path == new_rel


def test_auto_commit_off_and_project_vaults_never_auto_commit(tmp_path: Path, new_system, run_git) -> None:
    home = tmp_path / "home"
    project = tmp_path / "proj"
    project.mkdir()
    run_git(project, "init", "-q", "-b", "main")
    system = new_system(home, project, auto_commit=False)
    system.init()
    init_vault_repo(system.global_vault.root)
    system.add("global note", scope=Scope.GLOBAL)
    system.add("项目决定", scope=Scope.PROJECT)
    assert len(subjects(run_git, system.global_vault.root)) == 1
    assert run_git(project, "log", "--oneline", check=False) == ""
    assert len(pending_at(system.global_vault.root)) == 1


def test_project_commit_leaves_the_users_other_files_alone(tmp_path: Path, new_system, run_git) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    run_git(project, "init", "-q", "-b", "main")
    (project / "app.py").write_text("print('v1')\n", encoding="utf-8")
    (project / "lib.py").write_text("x = 1\n", encoding="utf-8")
    run_git(project, "add", "app.py", "lib.py")
    run_git(project, "commit", "-q", "-m", "code")
    system = new_system(tmp_path / "home", project)
    system.init()
    memory = system.add(TITLE, "项目里的决定。", scope=Scope.PROJECT, layer=Layer.LONG_TERM, category="decision")
    # the user's work in progress: staged, partially staged, unstaged, untracked
    (project / "app.py").write_text("print('v2 staged')\n", encoding="utf-8")
    run_git(project, "add", "app.py")
    (project / "app.py").write_text("print('v3 unstaged on top')\n", encoding="utf-8")
    (project / "lib.py").write_text("x = 2  # unstaged\n", encoding="utf-8")
    (project / "new_staged.py").write_text("y = 1\n", encoding="utf-8")
    run_git(project, "add", "new_staged.py")
    (project / "scratch.txt").write_text("untracked\n", encoding="utf-8")
    status_before = run_git(project, "status", "--porcelain", "--untracked-files=all")
    staged_before = run_git(project, "diff", "--cached")
    unstaged_before = run_git(project, "diff")
    assert run_git(project, "log", "--oneline").count("\n") == 1  # not auto-committed

    vault = system.project_vault.root
    sha = with_repo(
        vault, VaultRepo.commit_paths, [memory.rel_path, PurePosixPath("README.md")], "memory: project decisions"
    )
    assert sha
    committed = run_git(project, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(committed) == sorted([f".aimate/memory/{memory.rel_path}", ".aimate/memory/README.md"])
    assert run_git(project, "diff", "--cached") == staged_before
    assert run_git(project, "diff") == unstaged_before
    after = [
        line
        for line in run_git(project, "status", "--porcelain", "--untracked-files=all").splitlines()
        if ".aimate/memory" not in line
    ]
    expected = [line for line in status_before.splitlines() if ".aimate/memory" not in line]
    assert after == expected
    assert (project / "app.py").read_text(encoding="utf-8") == "print('v3 unstaged on top')\n"
    # the remaining vault files are still pending, committed paths are clean in the user's index
    assert f".aimate/memory/{memory.rel_path}" not in run_git(project, "status", "--porcelain", "--untracked-files=all")


def test_review_accept_reject(system, run_git, tmp_path: Path) -> None:
    root = system.global_vault.root
    memory = system.add(TITLE, "原文。", layer=Layer.LONG_TERM, category="decision")
    path = root / memory.rel_path.as_posix()
    original = path.read_text(encoding="utf-8")
    path.write_text(original.replace("原文。", "手改过的正文。"), encoding="utf-8")
    new_rel = PurePosixPath("short_term/notes/手写笔记.md")
    (root / new_rel.as_posix()).write_text("# 手写笔记\n\n明天看一下缓存命中率。\n", encoding="utf-8")
    prefs = root / "core" / "preferences.md"
    prefs.unlink()

    changes = {c.path: c for c in pending_at(root)}
    assert {(p, c.status) for p, c in changes.items()} == {
        (memory.rel_path, "modified"),
        (new_rel, "added"),
        (PurePosixPath("core/preferences.md"), "deleted"),
    }
    assert "-原文。" in changes[memory.rel_path].diff and "+手改过的正文。" in changes[memory.rel_path].diff
    assert changes[memory.rel_path].title == TITLE

    sha = with_repo(root, accept, memory.rel_path)
    assert sha and subjects(run_git, root)[0] == f'memory: accept edit "{TITLE}" (long_term/decisions)'
    (result,) = with_repo(root, reject, new_rel)
    assert result.action == "moved" and result.moved_to is not None
    assert result.moved_to.read_text(encoding="utf-8").startswith("# 手写笔记")
    assert result.moved_to.is_relative_to(root.parent / "state" / "rejected")
    assert not (root / new_rel.as_posix()).exists()
    with_repo(root, reject, "core/preferences.md")
    assert prefs.exists()
    assert pending_at(root) == []


def test_aws_key_never_reaches_history(system, run_git) -> None:
    root = system.global_vault.root
    before = sorted(root.rglob("*.md"))
    with pytest.raises(InvalidInputError) as refused:  # the tool refuses before anything reaches the disk
        system.add("部署凭据", f"# 部署凭据\n\n用这个 key：{AWS_ID}\n", layer=Layer.LONG_TERM, category="knowledge")
    assert AWS_ID not in refused.value.message and "--allow-secret" in (refused.value.hint or "")
    assert sorted(root.rglob("*.md")) == before
    # a person saves the key in a file by hand: no commit lets it in
    (root / "long_term/knowledge/deploy.md").write_text(f"# 部署凭据\n\n用这个 key：{AWS_ID}\n", encoding="utf-8")
    pending = pending_at(root)
    assert len(pending) == 1
    with pytest.raises(SecretFoundError) as caught:
        with_repo(root, accept, pending[0].path)
    (finding,) = caught.value.findings
    assert f"{finding.path}:{finding.line}: AWS access key id" in caught.value.message
    assert AWS_ID not in caught.value.message
    with pytest.raises(SecretFoundError):
        with_repo(root, VaultRepo.commit_paths, [pending[0].path], "memory: try again")
    assert AWS_ID not in run_git(root, "log", "-p", "--all")
    assert run_git(root, "diff", "--cached") == ""  # nothing left staged in the real index
    # a person checked it: allowed explicitly
    assert with_repo(root, accept, pending[0].path, allow_secret=True)
    assert AWS_ID in run_git(root, "log", "-p", "--all")


def test_sensitive_keywords_block_commits(tmp_path: Path, new_system, run_git) -> None:
    system = new_system(tmp_path / "home")
    system.config._values["privacy"]["sensitive_keywords"] = ["青龙计划"]
    system.init()
    init_vault_repo(system.global_vault.root)
    with pytest.raises(InvalidInputError, match="sensitive keyword"):  # refused before it is written
        system.add("内部项目", "关于青龙计划的安排")
    assert "青龙计划" not in run_git(system.global_vault.root, "log", "-p", "--all")


def test_author_from_config(tmp_path: Path, new_system, run_git) -> None:
    system = new_system(tmp_path / "home", author="记忆助手 <memory@example.org>")
    system.init()
    init_vault_repo(system.global_vault.root, author="记忆助手 <memory@example.org>")
    system.add("note")
    assert run_git(system.global_vault.root, "log", "-1", "--format=%an <%ae>").strip() == (
        "记忆助手 <memory@example.org>"
    )


def test_default_identity_without_any_git_config(tmp_path: Path, monkeypatch, run_git) -> None:
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.delenv(f"GIT_{role}_NAME")
        monkeypatch.delenv(f"GIT_{role}_EMAIL")
    root = tmp_path / "vault"
    (root / "core").mkdir(parents=True)
    (root / "core" / "rules.md").write_text("# rules\n", encoding="utf-8")
    with VaultRepo(init_vault_repo(root).vault_root) as repo:
        assert str(repo.identity()) == "AIMate <aimate@localhost>"
    assert run_git(root, "log", "-1", "--format=%an <%ae>").strip() == "AIMate <aimate@localhost>"


def test_concurrent_writers_lose_no_commit(system, run_git) -> None:
    import threading

    root = system.global_vault.root
    before = len(subjects(run_git, root))
    errors: list[BaseException] = []

    def writer(name: str) -> None:
        try:
            for i in range(4):
                rel = PurePosixPath(f"short_term/notes/{name}-{i}.md")
                (root / rel.as_posix()).write_text(f"# {name} {i}\n", encoding="utf-8")
                with_repo(
                    root,
                    VaultRepo.commit_changeset,
                    ChangeSet(f"memory: add {name} {i}", [FileChange("add", rel, "test")]),
                )
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(name,)) for name in ("甲", "乙", "丙")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(subjects(run_git, root)) == before + 12
    assert run_git(root, "status", "--porcelain") == ""


def test_project_attributes_register_the_driver_without_committing(tmp_path: Path, new_system, run_git) -> None:
    from aimate_memory.git import install_project_attributes

    project = tmp_path / "proj"
    project.mkdir()
    run_git(project, "init", "-q", "-b", "main")
    system = new_system(tmp_path / "home", project)
    system.init()  # installs them: the project is a git repository
    vault = system.project_vault.root
    assert install_project_attributes(vault) is False  # idempotent
    assert "merge=aimate-memory" in (vault / ".gitattributes").read_text(encoding="utf-8")
    assert "aimate_memory.git.merge" in run_git(project, "config", "merge.aimate-memory.driver")
    assert run_git(project, "log", "--oneline", check=False) == ""
    assert run_git(project, "check-attr", "merge", "--", ".aimate/memory/core/x.md").strip().endswith("aimate-memory")


@pytest.mark.slow  # each commit next to a held lock waits ~4 s for it
@pytest.mark.parametrize(("lock_name", "title"), [("index.lock", TITLE), ("HEAD.lock", "Deploy checklist")])
def test_a_lock_left_by_a_killed_git_is_cleared_and_a_fresh_one_respected(
    system, run_git, lock_name, title, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lock's age is its mtime, set back here; a fresh one is waited for at most LOCK_WAIT_SECONDS,
    shortened here (what is tested is what follows the wait, not its length)."""
    import os
    import time

    from aimate_memory.git import repo
    from aimate_memory.git.repo import GitError

    monkeypatch.setattr(repo, "LOCK_WAIT_SECONDS", 0.05)

    root = system.global_vault.root
    lock = root / ".git" / lock_name
    lock.write_text("", encoding="utf-8")
    stale = time.time() - 120
    os.utime(lock, (stale, stale))  # what `kill -9` of a git writing the index or HEAD leaves behind
    system.add(title, "body / 正文", layer=Layer.LONG_TERM)
    assert not lock.exists()
    assert subjects(run_git, root)[0].startswith(f'memory: add "{title}"')
    assert run_git(root, "status", "--porcelain") == ""  # the person's index agrees with the commit
    # A lock some git took a moment ago is left alone (it may be a `git commit` with its editor open).
    lock.write_text("", encoding="utf-8")
    if lock_name == "index.lock":  # the tool commits through its own index: the commit lands
        system.add(f"{title} 2", "body", layer=Layer.LONG_TERM)
        assert subjects(run_git, root)[0].startswith(f'memory: add "{title} 2"')
    else:  # HEAD cannot move: the memory is saved, the commit refused with the lock named
        with pytest.raises(GitError, match=r"HEAD\.lock"):
            system.add(f"{title} 2", "body", layer=Layer.LONG_TERM)
        assert any(p.title == f"{title} 2" for p in system.memories.scan().memories)
    assert lock.exists()
    lock.unlink()
