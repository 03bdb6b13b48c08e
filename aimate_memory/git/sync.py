"""Cross-device sync of the global vault (docs/design.md §8): fetch, merge (the frontmatter merge driver handles
concurrent edits), push. Never force-pushes, never drops a commit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import git

from aimate_memory.errors import InvalidInputError
from aimate_memory.git.repo import GitError, VaultRepo
from aimate_memory.git.setup import init_vault_repo, install_merge_driver

REMOTE_NAME = "origin"
_DIRTY_HINT = "commit or review your uncommitted memory changes first (`aimate mem review`), then sync again"


@dataclass
class SyncResult:
    actions: list[str] = field(default_factory=list)  # cloned, initialized, pulled, merged, pushed, up-to-date
    pulled: int = 0  # commits received
    pushed: int = 0  # commits sent
    conflicts: list[PurePosixPath] = field(default_factory=list)  # vault-relative, left marked
    merge_commit: str | None = None

    def summary(self) -> str:
        parts = [", ".join(self.actions) or "nothing to do"]
        if self.pulled:
            parts.append(f"received {self.pulled} commit(s)")
        if self.pushed:
            parts.append(f"sent {self.pushed} commit(s)")
        if self.conflicts:
            parts.append(f"{len(self.conflicts)} conflict(s) left marked: " + ", ".join(map(str, self.conflicts)))
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "actions": list(self.actions),
            "pulled": self.pulled,
            "pushed": self.pushed,
            "conflicts": [path.as_posix() for path in self.conflicts],
            "merge_commit": self.merge_commit,
        }


def _is_empty_dir(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())


def sync(
    vault_root: Path,
    remote: str | None,
    author: str | None = None,
    sensitive_keywords: Sequence[str] = (),
) -> SyncResult:
    """Fetch, merge and push the global vault. Never force-pushes, never drops a commit.

    An empty or missing vault is cloned from the remote. Diverged histories are merged (the memory
    merge driver handles concurrent edits); body conflicts are committed WITH their markers, so the
    sync completes and the files are listed by `review`/`diagnose` until a person resolves them.
    """
    if not remote:
        raise InvalidInputError("no git remote configured", "run `aimate mem config set git.remote URL`")
    vault_root = Path(vault_root)
    result = SyncResult()
    if not vault_root.exists() or _is_empty_dir(vault_root):
        vault_root.parent.mkdir(parents=True, exist_ok=True)
        try:
            git.Repo.clone_from(remote, vault_root).close()
        except git.GitCommandError as exc:
            raise GitError(f"cannot clone {remote}: {exc.stderr.strip()}", "check git.remote and your access") from exc
        result.actions.append("cloned")
        repo = VaultRepo(vault_root, author, own_repo=True)
        if repo.head_commit() is None:  # the remote was empty
            repo.close()
            init_vault_repo(vault_root, author, sensitive_keywords).close()
            repo = VaultRepo(vault_root, author, own_repo=True)
            result.actions.append("initialized")
        else:
            install_merge_driver(repo)
            return result
    else:
        if not (vault_root / ".git").exists():
            init_vault_repo(vault_root, author, sensitive_keywords).close()
            result.actions.append("initialized")
        repo = VaultRepo(vault_root, author, own_repo=True)
    with repo:
        repo.refuse_if_merging()
        remote_name = _ensure_remote(repo, remote)
        for _attempt in range(3):
            if _pull(repo, remote_name, result) and _push(repo, remote_name, result):
                break
        else:
            raise GitError("the remote kept changing while syncing", "run `aimate mem sync` again")
    if not result.actions:
        result.actions.append("up-to-date")
    return result


def _ensure_remote(repo: VaultRepo, remote: str) -> str:
    names = [r.name for r in repo.repo.remotes]
    if remote in names:
        return remote
    if REMOTE_NAME in names:
        if repo.repo.remotes[REMOTE_NAME].url != remote:
            repo.git("remote", "set-url", REMOTE_NAME, remote)
    else:
        repo.git("remote", "add", REMOTE_NAME, remote)
    return REMOTE_NAME


def _remote_branch(repo: VaultRepo, remote_name: str, branch: str) -> str | None:
    ref = f"refs/remotes/{remote_name}/{branch}"
    if repo.git("rev-parse", "--verify", "-q", ref, check=False)[0] == 0:
        return ref
    out = repo.git("for-each-ref", "--format=%(refname)", f"refs/remotes/{remote_name}/", check=False)[1]
    refs = [r for r in out.split() if not r.endswith("/HEAD")]
    return refs[0] if len(refs) == 1 else None


def _count(repo: VaultRepo, spec: str) -> int:
    return int(repo.git("rev-list", "--count", spec)[1].strip() or 0)


def _pull(repo: VaultRepo, remote_name: str, result: SyncResult) -> bool:
    status, out, err = repo.git("fetch", "--quiet", remote_name, check=False)
    if status != 0:
        raise GitError(f"cannot fetch from {remote_name}: {(err or out).strip()}", "check git.remote and your access")
    branch = repo.branch()
    theirs = _remote_branch(repo, remote_name, branch)
    head = repo.head_commit()
    if theirs is None or head is None:
        return True
    theirs_sha = repo.git("rev-parse", theirs)[1].strip()
    if theirs_sha == head or repo.git("merge-base", "--is-ancestor", theirs_sha, head, check=False)[0] == 0:
        return True
    incoming = _count(repo, f"{head}..{theirs_sha}")
    env = repo.identity_env()
    if repo.git("merge-base", "--is-ancestor", head, theirs_sha, check=False)[0] == 0:
        status, out, err = repo.git("merge", "--ff-only", "--quiet", theirs_sha, env=env, check=False)
        if status != 0:
            raise GitError(f"cannot update the vault: {(err or out).strip()}", _DIRTY_HINT)
        result.pulled += incoming
        _note(result, "pulled")
        return True
    subject = f"sync: merge {theirs.removeprefix('refs/remotes/')} into {branch}"
    status, out, err = repo.git(
        "merge",
        "--no-ff",
        "--no-edit",
        "--allow-unrelated-histories",
        "-m",
        subject,
        theirs_sha,
        env=env,
        check=False,
    )
    if status != 0:
        if not repo.in_merge():
            raise GitError(f"cannot merge the remote's changes: {(err or out).strip()}", _DIRTY_HINT)
        conflicts = _settle_conflicts(repo)
        body = "Conflicts left marked; resolve each file, then accept it in `aimate mem review`:\n" + "\n".join(
            f"- {path}" for path in conflicts
        )
        repo.git(
            "commit",
            "--no-edit",
            "--no-verify",
            "-q",
            "-m",
            f"{subject} ({len(conflicts)} conflict(s))",
            "-m",
            body,
            env=env,
        )
        result.conflicts.extend(p for p in (repo.vault_path(c) for c in conflicts) if p is not None)
    result.merge_commit = repo.head_commit()
    result.pulled += incoming
    _note(result, "merged")
    return True


def _settle_conflicts(repo: VaultRepo) -> list[str]:
    """Stage every unmerged path as it stands (markers included; a modify/delete keeps the file)."""
    out = repo.git("ls-files", "-u", "-z", strip=False)[1]
    paths = sorted({entry.split("\t", 1)[1] for entry in out.split("\0") if "\t" in entry})
    for path in paths:
        if (repo.workdir / path).exists():
            repo.git("add", "--", path)
        else:
            repo.git("rm", "--cached", "-q", "--", path)
    return paths


def _push(repo: VaultRepo, remote_name: str, result: SyncResult) -> bool:
    branch = repo.branch()
    head = repo.head_commit()
    if head is None:
        return True
    theirs = f"refs/remotes/{remote_name}/{branch}"
    known = repo.git("rev-parse", "--verify", "-q", theirs, check=False)
    if known[0] == 0 and known[1].strip() == head:
        return True
    outgoing = _count(repo, f"{known[1].strip()}..{head}") if known[0] == 0 else _count(repo, head)
    status, out, err = repo.git("push", "--quiet", remote_name, f"HEAD:refs/heads/{branch}", check=False)
    if status != 0:
        text = (err or out).strip()
        if "rejected" in text or "fetch first" in text or "non-fast-forward" in text:
            return False  # someone pushed meanwhile: fetch and merge again
        raise GitError(f"cannot push to {remote_name}: {text}", "check git.remote and your access")
    repo.git("branch", f"--set-upstream-to={remote_name}/{branch}", check=False)
    result.pushed += outgoing
    _note(result, "pushed")
    return True


def _note(result: SyncResult, action: str) -> None:
    if action not in result.actions:
        result.actions.append(action)
