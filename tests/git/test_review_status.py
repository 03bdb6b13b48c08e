"""The review list read from one `git status` (git/review.py `_changed_paths`): every kind of uncommitted change
is named as the six git commands it replaced named it (`git diff HEAD --name-status`, `diff --cached`,
`ls-files --others` / `-u`, `git grep` for conflict markers over the working tree), in English and Chinese
file names and text; the conflict-marker search of HEAD's tree runs once per commit; a review of a vault with
nothing changed asks git once."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aimate_memory.git import review
from aimate_memory.git.repo import VaultRepo
from tests.git.git_helpers import opened

MEMORY = "---\nid: 01TEST{n}\ntitle: {title}\n---\n{body}\n"
MARKERS = "<<<<<<< HEAD\n用 Redis\n=======\nuse Valkey\n>>>>>>> other\n"


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True)


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


def statuses(root: Path) -> dict[str, str]:
    with opened(root) as repo:
        changes, _ = review._changed_paths(repo)
    return {path: change.status for path, change in changes.items()}


@pytest.mark.usefixtures("isolated_git")
def test_every_kind_of_change_is_named_as_git_names_it(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    git(vault, "init", "-q")
    names = ("edited.md", "staged.md", "reverted.md", "gone.md", "unstaged.md", "冲突.md", "fixed.md", "marked.md")
    for n, name in enumerate(names):
        write(vault, name, MEMORY.format(n=n, title=name, body="keep 保留"))
    write(vault, "冲突.md", MARKERS)  # committed with conflict markers (a sync that left them)
    write(vault, "fixed.md", MARKERS)
    git(vault, "add", ".")
    git(vault, "commit", "-qm", "start")
    write(vault, "edited.md", MEMORY.format(n=0, title="edited", body="changed 改了"))
    write(vault, "staged.md", MEMORY.format(n=1, title="staged", body="staged 暂存"))
    git(vault, "add", "staged.md")
    write(vault, "reverted.md", MEMORY.format(n=2, title="reverted", body="staged then undone"))
    git(vault, "add", "reverted.md")
    write(vault, "reverted.md", MEMORY.format(n=2, title="reverted.md", body="keep 保留"))  # HEAD's bytes again
    (vault / "gone.md").unlink()
    git(vault, "rm", "-q", "--cached", "unstaged.md")  # out of the index, still on disk
    write(vault, "fixed.md", MEMORY.format(n=6, title="fixed", body="resolved 已解决"))
    write(vault, "marked.md", MARKERS)  # markers added by hand
    write(vault, "新/笔记 one.md", MARKERS)  # untracked: git grep never read it, so neither does review
    write(vault, "new-staged.md", MEMORY.format(n=9, title="new", body="new 新"))
    git(vault, "add", "new-staged.md")
    write(vault, "added-then-removed.md", "x")
    git(vault, "add", "added-then-removed.md")
    (vault / "added-then-removed.md").unlink()
    assert statuses(vault) == {
        "edited.md": "modified",
        "staged.md": "modified",
        "gone.md": "deleted",
        "unstaged.md": "added",  # `git diff HEAD` said deleted, `ls-files --others` added: the latter wins
        "冲突.md": "conflict",
        "fixed.md": "modified",
        "marked.md": "conflict",
        "新/笔记 one.md": "added",
        "new-staged.md": "added",
    }
    git(vault, "add", "新/笔记 one.md")
    git(vault, "commit", "-qm", "markers committed")  # HEAD moved: its tree is searched again
    assert statuses(vault)["新/笔记 one.md"] == "conflict"


@pytest.mark.usefixtures("isolated_git")
def test_a_merge_conflict_and_a_project_vault_under_a_prefix(tmp_path: Path) -> None:
    project = tmp_path / "项目"
    vault = project / ".aimate" / "memory"
    write(vault, "core/rule one.md", MEMORY.format(n=1, title="rule", body="base"))
    write(project, "src/other.md", MARKERS)  # outside the vault: never listed
    write(vault, "m.md", MARKERS)
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "base")
    git(project, "checkout", "-qb", "theirs")
    write(vault, "core/rule one.md", MEMORY.format(n=1, title="rule", body="theirs 他们的"))
    git(project, "commit", "-qam", "theirs")
    git(project, "checkout", "-q", "main")
    write(vault, "core/rule one.md", MEMORY.format(n=1, title="rule", body="ours 我们的"))
    git(project, "commit", "-qam", "ours")
    subprocess.run(["git", "merge", "-q", "theirs"], cwd=project, capture_output=True)
    write(vault, "new.md", "new")
    assert statuses(vault) == {
        ".aimate/memory/core/rule one.md": "conflict",
        ".aimate/memory/m.md": "conflict",
        ".aimate/memory/new.md": "added",
    }
    listed = {change.path.as_posix(): change.status for change in review.pending_changes(VaultRepo(vault))}
    assert listed == {"core/rule one.md": "conflict", "m.md": "conflict", "new.md": "added"}


@pytest.mark.usefixtures("isolated_git")
def test_a_review_with_nothing_changed_asks_git_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vault = tmp_path / "vault"
    write(vault, "a.md", MEMORY.format(n=1, title="a", body="a"))
    git(vault, "init", "-q")
    git(vault, "add", ".")
    git(vault, "commit", "-qm", "a")
    asked: list[tuple[str, ...]] = []
    real = VaultRepo.git

    def counted(self: VaultRepo, *args: str, **kwargs: object) -> tuple[int, str, str]:
        asked.append(args)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]  # kwargs passed through as git takes them

    monkeypatch.setattr(VaultRepo, "git", counted)
    with opened(vault) as repo:
        assert review.pending_changes(repo) == []  # the first: status, and HEAD's tree searched for markers
        asked.clear()
        assert review.pending_changes(repo) == []
    assert [args[1] for args in asked] == ["status"]  # HEAD did not move: its search is kept
