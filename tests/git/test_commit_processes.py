"""The git processes of one commit, counted: each costs ~1.4 ms of CPU and ~2 ms of wall, and every write commits
(docs/design.md §8, "What a commit runs"). The exact list is asserted, so a call added back shows here; the
commit's guarantees are asserted with it (the person's staged files, the identity, a HEAD that moved)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aimate_memory.git import SecretFoundError, VaultRepo, init_vault_repo

# What one commit of changed files runs: the open's one rev-parse (top, git folder, objects, HEAD), the temp
# index (read-tree, update-index), the change list (diff-index), the tree, the commit and its compare-and-swap,
# then the person's index (entries, stat refresh). The guard reads a staged blob from the working tree when the
# file's bytes hash to its id; `cat-file` only for the others.
COMMIT = ["rev-parse", "read-tree", "update-index", "diff-index", "write-tree"]
AFTER = ["commit-tree", "update-ref", "update-index", "update-index"]

ZH = "选用 Redis 做会话缓存\n\n因为延迟低。\n"
EN = "Use Redis for the session cache\n\nLow latency.\n"


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "core.quotepath=false", *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr}"
    return done.stdout


def _subcommand(line: str) -> str:
    words = iter(line.split())
    for word in words:
        if word == "-c":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return ""


@pytest.fixture
def counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[], Iterator[list[str]]]:
    """`with counted() as calls:` — `calls` is filled, on the way out, with the subcommand of each git process
    started inside (a `git` first on PATH that logs and execs the real one)."""
    from contextlib import contextmanager

    real = shutil.which("git")
    assert real
    shim, log = tmp_path / "shim", tmp_path / "git-calls.log"
    shim.mkdir()
    (shim / "git").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8")
    (shim / "git").chmod(0o755)

    @contextmanager
    def count() -> Iterator[list[str]]:
        log.unlink(missing_ok=True)
        calls: list[str] = []
        with monkeypatch.context() as patch:
            patch.setenv("PATH", f"{shim}:{Path(real).parent}")
            yield calls
        calls += [_subcommand(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []

    return count


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "long_term").mkdir(parents=True)
    (root / "long_term" / "zh.md").write_text(ZH, encoding="utf-8")
    (root / "long_term" / "en.md").write_text(EN, encoding="utf-8")
    (root / "long_term" / "moved.md").write_text(EN + "\n" + ZH * 3, encoding="utf-8")
    init_vault_repo(root).close()
    return root


def test_a_commit_with_gits_identity_runs_eleven_processes(vault: Path, counted, monkeypatch, tmp_path) -> None:
    # The person's identity only in git's config: read once, by one `config --get-regexp`, for author and
    # committer (it was `config --get` four times).
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(name, raising=False)
    git(vault, "config", "--global", "user.name", "李雷 Lei")
    git(vault, "config", "--global", "user.email", "lei@example.com")
    # The person staged a file of their own: the commit leaves it staged.
    (vault / "theirs.md").write_text("mine, staged\n", encoding="utf-8")
    git(vault, "add", "theirs.md")
    (vault / "long_term" / "zh.md").write_text(ZH + "再加一行。\n", encoding="utf-8")
    (vault / "long_term" / "new.md").write_text(EN + "A new one.\n", encoding="utf-8")
    (vault / "long_term" / "moved.md").rename(vault / "long_term" / "moved-here.md")
    paths = ["long_term/zh.md", "long_term/new.md", "long_term/moved.md", "long_term/moved-here.md"]

    with counted() as calls, VaultRepo(vault, own_repo=True) as repo:
        sha = repo.commit_paths(paths, "memory: 改 zh, add new, move one")

    assert calls == [*COMMIT, "config", *AFTER]
    assert sha and git(vault, "rev-parse", "HEAD").strip() == sha
    assert (
        git(vault, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip()
        == "李雷 Lei <lei@example.com>|李雷 Lei <lei@example.com>"
    )
    shown = git(vault, "show", "--name-status", "-M", "--format=", "HEAD").split("\n")
    assert sorted(line.split("\t")[0][0] for line in shown if line) == ["A", "M", "R"]
    # The person's index agrees with the new HEAD for the committed paths, and still holds their own file.
    assert git(vault, "diff", "--cached", "--name-status").strip() == "A\ttheirs.md"
    assert git(vault, "status", "--porcelain").strip() == "A  theirs.md"
    assert git(vault, "ls-files", "long_term").split() == ["long_term/en.md", "long_term/moved-here.md",
                                                             "long_term/new.md", "long_term/zh.md"]  # fmt: skip


def test_identity_from_the_environment_reads_no_config(vault: Path, counted) -> None:
    (vault / "long_term" / "en.md").write_text(EN + "One more line.\n", encoding="utf-8")
    with counted() as calls, VaultRepo(vault, own_repo=True) as repo:
        assert repo.commit_paths(["long_term/en.md"], "memory: edit en")
    assert calls == [*COMMIT, *AFTER]
    assert git(vault, "log", "-1", "--format=%an <%ae>").strip() == "Test Person <test@example.com>"


def test_a_commit_of_unchanged_files_asks_head_again_and_writes_nothing(vault: Path, counted) -> None:
    head = git(vault, "rev-parse", "HEAD").strip()
    with counted() as calls, VaultRepo(vault, own_repo=True) as repo:
        assert repo.commit_paths(["long_term/zh.md", "long_term/en.md"], "memory: nothing") is None
    # No tree, no commit: the open's HEAD is checked once more before "no change" is answered.
    assert calls == ["rev-parse", "read-tree", "update-index", "diff-index", "rev-parse"]
    assert git(vault, "rev-parse", "HEAD").strip() == head


def test_a_head_moved_since_the_open_is_built_on(vault: Path) -> None:
    """The open read HEAD; another writer commits before this handle does. The first try's compare-and-swap
    fails and the commit is made on the new HEAD: the other commit stays, and a file equal to the HEAD the open
    read is still a change against the new one."""
    with VaultRepo(vault, own_repo=True) as repo, VaultRepo(vault, own_repo=True) as other:
        (vault / "long_term" / "en.md").write_text(EN + "Changed by another writer.\n", encoding="utf-8")
        (vault / "long_term" / "zh.md").write_text(ZH + "另一个写入者。\n", encoding="utf-8")
        theirs = other.commit_paths(["long_term/en.md", "long_term/zh.md"], "memory: another writer")
        (vault / "long_term" / "zh.md").write_text(ZH, encoding="utf-8")  # back to the open's HEAD
        ours = repo.commit_paths(["long_term/zh.md"], "memory: 改回 zh")
    assert theirs and ours
    assert git(vault, "rev-parse", "HEAD^").strip() == theirs
    assert git(vault, "show", "HEAD:long_term/zh.md") == ZH
    assert git(vault, "show", "HEAD:long_term/en.md") == EN + "Changed by another writer.\n"
    assert git(vault, "status", "--porcelain").strip() == ""


def test_an_unchanged_path_beside_a_changed_one_takes_heads_entry(vault: Path, counted) -> None:
    """As `git commit -- PATHS`: every committed path's index entry is the new HEAD's, an unchanged one's too
    (the person's staged version of it is replaced); the temp index is listed only in this case."""
    (vault / "long_term" / "en.md").write_text(EN + "staged, then undone\n", encoding="utf-8")
    git(vault, "add", "long_term/en.md")
    (vault / "long_term" / "en.md").write_text(EN, encoding="utf-8")
    (vault / "long_term" / "zh.md").write_text(ZH + "改了。\n", encoding="utf-8")
    with counted() as calls, VaultRepo(vault, own_repo=True) as repo:
        assert repo.commit_paths(["long_term/en.md", "long_term/zh.md"], "memory: zh")
    assert calls == [*COMMIT[:4], "ls-files", *COMMIT[4:], *AFTER]
    assert git(vault, "status", "--porcelain").strip() == ""
    assert git(vault, "show", "--name-only", "--format=", "HEAD").split() == ["long_term/zh.md"]


AWS_ID = "AKIA" + "IOSFODNN7EXAMPLE"


@pytest.mark.parametrize(
    ("name", "text"),
    [("zh.md", f"部署凭据\r\n\r\n用这个 key：{AWS_ID}\r\n"), ("en.md", f"Deploy key\r\n\r\nUse {AWS_ID}\r\n")],
)
def test_a_blob_git_stored_otherwise_is_read_from_git_and_still_guarded(vault: Path, counted, name, text) -> None:
    """`*.md text eol=lf`: a file written with CRLF is stored with LF, so its bytes are not the staged blob's;
    the guard reads what git stored (`cat-file`) and refuses the secret in it, committing nothing."""
    head = git(vault, "rev-parse", "HEAD").strip()
    (vault / "long_term" / name).write_bytes(text.encode("utf-8"))
    with counted() as calls, VaultRepo(vault, own_repo=True) as repo, pytest.raises(SecretFoundError) as refused:
        repo.commit_paths([f"long_term/{name}"], "memory: key")
    assert calls == [*COMMIT[:4], "cat-file", "cat-file"]  # the new blob, then the version it replaces
    assert refused.value.findings[0].path == f"long_term/{name}" and refused.value.findings[0].line == 3
    assert AWS_ID not in refused.value.message
    assert git(vault, "rev-parse", "HEAD").strip() == head


def test_a_secret_read_from_the_working_tree_is_refused(vault: Path, counted) -> None:
    head = git(vault, "rev-parse", "HEAD").strip()
    (vault / "long_term" / "zh.md").write_text(ZH + f"用这个 key：{AWS_ID}\n", encoding="utf-8")
    with counted() as calls, VaultRepo(vault, own_repo=True) as repo, pytest.raises(SecretFoundError) as refused:
        repo.commit_paths(["long_term/zh.md"], "memory: key")
    assert calls == [*COMMIT[:4], "cat-file"]  # only the version it replaces, for what was already there
    assert refused.value.findings[0].path == "long_term/zh.md" and refused.value.findings[0].line == 4
    assert git(vault, "rev-parse", "HEAD").strip() == head
