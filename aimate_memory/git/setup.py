"""First-time git setup of a vault: the global vault becomes its own repository, a project vault gets
the merge driver and `.gitattributes` (the project owner decides what to commit)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from aimate_memory.git.repo import GitError, VaultRepo, init_repo
from aimate_memory.git.review import pending_changes
from aimate_memory.vault.setup import ensure_lines

DRIVER_NAME = "aimate-memory"
DEFAULT_BRANCH = "main"
GITATTRIBUTES_LINES = ("*.md text eol=lf", f"*.md merge={DRIVER_NAME}")
GITIGNORE_LINES = (
    "# AIMate: editor temp and swap files; the index and state live outside the vault",
    ".DS_Store",
    "Thumbs.db",
    "*.swp",
    "*.swo",
    "*.swx",
    "*~",
    "*.tmp",
    ".*.tmp",
    "*.bak",
    ".#*",
    "#*#",
    "index.db*",
)


def install_merge_driver(repo: VaultRepo) -> None:
    """Register the frontmatter merge driver in this clone's `.git/config` (not shared by git)."""
    for key, value in (
        (f"merge.{DRIVER_NAME}.name", "AIMate memory frontmatter merge"),
        (f"merge.{DRIVER_NAME}.driver", merge_driver_command()),
        ("core.quotepath", "false"),
    ):
        repo.git("config", "--local", key, value)


def merge_driver_command() -> str:
    python = sys.executable
    quoted = f'"{python}"' if any(ch.isspace() for ch in python) else python
    return f"{quoted} -m aimate_memory.git.merge %O %A %B %P"


def init_vault_repo(vault_root: Path, author: str | None = None, sensitive_keywords: Sequence[str] = ()) -> VaultRepo:
    """Make the global vault its own git repository. Idempotent: writes `.gitattributes` and
    `.gitignore` (adding only missing lines), registers the merge driver, commits what is there."""
    vault_root = Path(vault_root)
    vault_root.mkdir(parents=True, exist_ok=True)
    if not (vault_root / ".git").exists():
        init_repo(vault_root, DEFAULT_BRANCH)
    repo = VaultRepo(vault_root, author, own_repo=True)
    install_merge_driver(repo)
    ensure_lines(vault_root / ".gitattributes", GITATTRIBUTES_LINES)
    ensure_lines(vault_root / ".gitignore", GITIGNORE_LINES)
    if repo.head_as_opened() is None:  # nothing above moves HEAD: the open's answer holds
        pending = pending_changes(repo, with_diff=False, scan_secrets=False)
        paths = [change.path for change in pending]
        body = "\n".join(f"- add {path}" for path in paths[:50])
        if len(paths) > 50:
            body += f"\n- … and {len(paths) - 50} more"
        repo.commit_paths(paths, "memory: initialize the vault repository", body, sensitive_keywords=sensitive_keywords)
    else:
        repo.commit_paths(
            [".gitattributes", ".gitignore"],
            "memory: configure git for the vault",
            "- update .gitattributes, .gitignore: line endings, merge driver, ignored temp files",
        )
    return repo


def install_project_attributes(vault_root: Path) -> bool:
    """For a project vault: write `<vault>/.gitattributes` (not committed: the project owner decides)
    and register the merge driver in the project's clone. Returns True when the file changed."""
    with VaultRepo(vault_root) as repo:
        install_merge_driver(repo)
    return ensure_lines(Path(vault_root) / ".gitattributes", GITATTRIBUTES_LINES)


def exclude_locally(folder: Path, name: str) -> Path | None:
    """Keep `folder/name` out of the repository holding `folder`, for this clone only: a line in
    `.git/info/exclude` (`init --local`). Returns that file, or None when `folder` is in no repository."""
    try:
        repo = VaultRepo(folder)
    except GitError:  # in no repository, or a bare one
        return None
    with repo:
        exclude = Path(repo.git("rev-parse", "--git-path", "info/exclude")[1])
        if not exclude.is_absolute():
            exclude = repo.workdir / exclude
        rel = (Path(folder).resolve() / name).relative_to(repo.workdir.resolve()).as_posix()
    exclude.parent.mkdir(parents=True, exist_ok=True)
    ensure_lines(
        exclude, ["# AIMate: this project's memory stays on this machine (`aimate mem init --local`)", f"/{rel}/"]
    )
    return exclude
