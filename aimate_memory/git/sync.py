"""Cross-device sync of the global vault (docs/design.md §8): fetch, merge (the frontmatter merge driver handles
concurrent edits), push. Never force-pushes, never drops a commit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from aimate_memory.errors import InvalidInputError
from aimate_memory.git.repo import GitError, VaultRepo, commit_message, init_repo
from aimate_memory.git.setup import init_vault_repo, install_merge_driver
from aimate_memory.git.sync_plan import (
    DEFAULT_BRANCH,
    Relation,
    RemoteRefs,
    Step,
    SyncFacts,
    choose_branch,
    is_setup_file,
    plan_sync,
)

REMOTE_NAME = "origin"
SYNCED_REF = "refs/aimate/synced"  # the remote's commit at this device's last successful sync
REPLACED_REF = "refs/aimate/replaced"  # this device's own setup history, kept when it adopted the remote's
_PUSHED_PART = "pushed the committed history only"
_SHOWN = 5  # left-out files named in the summary
_DIRTY_HINT = "commit or review your uncommitted memory changes first (`aimate mem review`), then sync again"


@dataclass
class SyncResult:
    actions: list[str] = field(default_factory=list)  # cloned, initialized, pulled, merged, pushed, up-to-date
    pulled: int = 0  # commits received
    pushed: int = 0  # commits sent
    conflicts: list[PurePosixPath] = field(default_factory=list)  # vault-relative, left marked
    merge_commit: str | None = None
    branch: str | None = None  # the branch both sides sync on
    left_out: list[PurePosixPath] = field(default_factory=list)  # uncommitted files: not sent, not merged

    def summary(self) -> str:
        """One line. With files left out it never says "pushed" alone: the remote holds only what is
        committed, and a person reading "pushed" would believe their whole vault is there."""
        actions = [_PUSHED_PART if action == "pushed" and self.left_out else action for action in self.actions]
        parts = [", ".join(actions) or "nothing to do"]
        if self.pulled:
            parts.append(f"received {self.pulled} commit(s)")
        if self.pushed:
            parts.append(f"sent {self.pushed} commit(s)")
        if self.conflicts:
            parts.append(f"{len(self.conflicts)} conflict(s) left marked: " + ", ".join(map(str, self.conflicts)))
        if self.left_out:
            shown = ", ".join(path.as_posix() for path in self.left_out[:_SHOWN])
            more = f", … {len(self.left_out) - _SHOWN:,} more" if len(self.left_out) > _SHOWN else ""
            parts.append(
                f"NOT sent: {len(self.left_out):,} uncommitted file(s) ({shown}{more}) — "
                "commit them with `aimate mem review` or `aimate mem commit -m MSG`, then sync again"
            )
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "actions": list(self.actions),
            "pulled": self.pulled,
            "pushed": self.pushed,
            "conflicts": [path.as_posix() for path in self.conflicts],
            "merge_commit": self.merge_commit,
            "branch": self.branch,
            "left_out": [path.as_posix() for path in self.left_out],
        }


def sync(
    vault_root: Path,
    remote: str | None,
    author: str | None = None,
    sensitive_keywords: Sequence[str] = (),
    join: bool = False,
) -> SyncResult:
    """Fetch, merge and push the global vault on the one branch both sides agree on (`sync_plan.py`).
    Never force-pushes, never drops a commit; a disagreement it cannot settle raises SyncRefusedError
    and changes nothing.

    A missing or empty vault adopts the remote's branch (a clone); a vault that holds only what `init`
    wrote adopts it too (its own setup commits stay reachable at `refs/aimate/replaced`). Body conflicts
    are committed WITH their markers, so the sync completes and `review`/`diagnose` list the files until a
    person resolves them. `join`: merge a vault with unrelated history into the remote's, once.
    """
    if not remote:
        raise InvalidInputError("no git remote configured", "run `aimate mem config set git.remote URL`")
    vault_root = Path(vault_root)
    result = SyncResult()
    repo = _open_or_create(vault_root, author, sensitive_keywords, result)
    with repo:
        repo.refuse_if_merging()
        install_merge_driver(repo)  # every clone the tool adopts merges by rule, whoever cloned it
        remote_name = _ensure_remote(repo, remote)
        for _attempt in range(3):
            if _sync_once(repo, remote_name, result, sensitive_keywords, join):
                break
        else:
            raise GitError("the remote kept changing while syncing", "run `aimate mem sync` again")
        result.left_out = uncommitted_paths(repo)
    if not result.actions:
        result.actions.append("up-to-date")
    return result


def uncommitted_paths(repo: VaultRepo) -> list[PurePosixPath]:
    """Vault files whose current content is not in HEAD (new, changed or deleted), sorted."""
    out = repo.git("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", repo.scope_spec, strip=False)[1]
    paths = []
    entries = iter(out.split("\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        if entry[0] in "RC":
            next(entries, None)  # a rename's second field is its old path
        path = repo.vault_path(entry[3:])
        if path is not None:
            paths.append(path)
    return sorted(set(paths))


@dataclass
class SyncState:
    """Where the global vault stands against its remote, as of the last fetch (no network): commits here
    not there (`ahead`), there not here (`behind`; None: never fetched), and files a sync would leave out."""

    branch: str | None
    ahead: int | None
    behind: int | None
    left_out: list[PurePosixPath]

    def to_dict(self) -> dict[str, Any]:
        return {
            "branch": self.branch,
            "ahead": self.ahead,
            "behind": self.behind,
            "left_out": [path.as_posix() for path in self.left_out],
        }


def sync_state(vault_root: Path) -> SyncState | None:
    """None when the vault is not a git repository of its own yet (never synced, never initialized)."""
    if not (Path(vault_root) / ".git").exists():
        return None
    with VaultRepo(Path(vault_root)) as repo:
        branch = _local_branch(repo)
        counts = None
        if branch is not None:
            status, out, _ = repo.git(
                "rev-list", "--left-right", "--count", f"HEAD...{REMOTE_NAME}/{branch}", check=False
            )
            counts = tuple(int(part) for part in out.split()) if status == 0 else None
        ahead, behind = counts if counts is not None and len(counts) == 2 else (None, None)
        return SyncState(branch, ahead, behind, uncommitted_paths(repo))


def remote_moved(vault_root: Path, remote: str) -> bool:
    """The remote's branch is not where this device last synced it (`git ls-remote`: one round trip, no
    objects fetched), so a sync would bring something. True when it cannot tell: the sync will say why."""
    if not (Path(vault_root) / ".git").exists():
        return True
    with VaultRepo(Path(vault_root)) as repo:
        branch = _local_branch(repo) or DEFAULT_BRANCH
        status, out, _ = repo.git("ls-remote", remote, f"refs/heads/{branch}", check=False)
        if status != 0:
            return True
        there = out.split()[0] if out.split() else None
        return there != _resolve(repo, SYNCED_REF)


def _open_or_create(
    vault_root: Path, author: str | None, sensitive_keywords: Sequence[str], result: SyncResult
) -> VaultRepo:
    """The vault's repository; an empty or missing vault gets an empty one (the remote's branch is
    checked out into it), a vault without git is made a repository of what it holds."""
    if not (vault_root / ".git").exists():
        if vault_root.exists() and any(vault_root.iterdir()):
            init_vault_repo(vault_root, author, sensitive_keywords).close()
            result.actions.append("initialized")
        else:
            vault_root.mkdir(parents=True, exist_ok=True)
            init_repo(vault_root, DEFAULT_BRANCH)
    return VaultRepo(vault_root, author, own_repo=True)


def _sync_once(
    repo: VaultRepo, remote_name: str, result: SyncResult, sensitive_keywords: Sequence[str], join: bool
) -> bool:
    """One round: look, decide, act. False when the push lost a race (fetch and decide again)."""
    branch = choose_branch(_remote_refs(repo, remote_name))
    result.branch = branch
    facts = _facts(repo, remote_name, branch, join)
    plan = plan_sync(facts)
    if plan.step is Step.CREATE:
        init_vault_repo(repo.vault_root, repo.configured_author, sensitive_keywords).close()
        _note(result, "initialized")
        if repo.branch() != branch:
            repo.git("branch", "-m", branch)
        return _push(repo, remote_name, branch, result)
    if plan.rename_from:
        repo.git("branch", "-m", plan.rename_from, branch)
        _note(result, f"renamed branch {plan.rename_from} to {branch}")
    if plan.step is Step.ADOPT:
        _adopt(repo, branch, facts, result)
    elif plan.step is Step.FAST_FORWARD:
        _fast_forward(repo, facts, result)
    elif plan.step is Step.MERGE:
        _merge(repo, remote_name, facts, result, plan.allow_unrelated)
    if plan.step in (Step.PUSH, Step.MERGE, Step.CREATE) and not _push(repo, remote_name, branch, result):
        return False
    _mark_synced(repo, remote_name, branch)
    return True


def _ensure_remote(repo: VaultRepo, remote: str) -> str:
    names = repo.git("remote")[1].split()
    if remote in names:
        return remote
    if REMOTE_NAME in names:
        if repo.git("config", "--get", f"remote.{REMOTE_NAME}.url", check=False)[1].strip() != remote:
            repo.git("remote", "set-url", REMOTE_NAME, remote)
    else:
        repo.git("remote", "add", REMOTE_NAME, remote)
    return REMOTE_NAME


def _remote_refs(repo: VaultRepo, remote_name: str) -> RemoteRefs:
    status, out, err = repo.git("ls-remote", "--symref", remote_name, check=False)
    if status != 0:
        raise GitError(f"cannot reach {remote_name}: {(err or out).strip()}", "check git.remote and your access")
    head_branch = None
    branches: dict[str, str] = {}
    for line in out.splitlines():
        left, _, name = line.partition("\t")
        if left.startswith("ref: ") and name == "HEAD":
            head_branch = left.removeprefix("ref: ").removeprefix("refs/heads/")
        elif name.startswith("refs/heads/"):
            branches[name.removeprefix("refs/heads/")] = left
    return RemoteRefs(head_branch, branches)


def _facts(repo: VaultRepo, remote_name: str, branch: str, join: bool) -> SyncFacts:
    tracking = f"refs/remotes/{remote_name}/{branch}"
    status, out, err = repo.git(
        "fetch", "--quiet", "--no-tags", remote_name, f"+refs/heads/*:refs/remotes/{remote_name}/*", check=False
    )
    if status != 0:
        raise GitError(f"cannot fetch from {remote_name}: {(err or out).strip()}", "check git.remote and your access")
    remote_head = _resolve(repo, tracking)
    local_head = repo.head_commit()
    last_synced = _resolve(repo, SYNCED_REF)
    keeps = last_synced is None or (remote_head is not None and _is_ancestor(repo, last_synced, remote_head))
    return SyncFacts(
        vault=str(repo.workdir),
        branch=branch,
        local_branch=_local_branch(repo),
        local_head=local_head,
        remote_head=remote_head,
        last_synced=last_synced,
        remote_keeps_last_sync=keeps,
        relation=_relation(repo, local_head, remote_head),
        local_is_setup_only=local_head is not None and _setup_only(repo, local_head, remote_head),
        join=join,
    )


def _resolve(repo: VaultRepo, ref: str) -> str | None:
    status, out, _ = repo.git("rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False)
    return out.strip() if status == 0 else None


def _local_branch(repo: VaultRepo) -> str | None:
    status, out, _ = repo.git("symbolic-ref", "--short", "-q", "HEAD", check=False)
    return out.strip() if status == 0 else None


def _is_ancestor(repo: VaultRepo, older: str, newer: str) -> bool:
    return repo.git("merge-base", "--is-ancestor", older, newer, check=False)[0] == 0


def _relation(repo: VaultRepo, local: str | None, remote: str | None) -> Relation | None:
    if local is None or remote is None:
        return None
    if local == remote:
        return Relation.SAME
    if _is_ancestor(repo, remote, local):
        return Relation.AHEAD
    if _is_ancestor(repo, local, remote):
        return Relation.BEHIND
    if repo.git("merge-base", local, remote, check=False)[0] != 0:
        return Relation.UNRELATED
    return Relation.DIVERGED


def _tree_blobs(repo: VaultRepo, commit: str | None) -> dict[str, str]:
    if commit is None:
        return {}
    out = repo.git("ls-tree", "-r", "-z", commit, strip=False)[1]
    blobs = {}
    for entry in out.split("\0"):
        meta, _, path = entry.partition("\t")
        if path:
            blobs[path] = meta.split()[2]
    return blobs


def _setup_only(repo: VaultRepo, local: str, remote: str | None) -> bool:
    """Every file of the local commit is the remote's too, or one `init` wrote and nobody edited."""
    theirs = _tree_blobs(repo, remote)
    templates = _template_texts()
    for path, blob in _tree_blobs(repo, local).items():
        if theirs.get(path) == blob:
            continue
        text = repo.git("cat-file", "blob", blob, strip=False)[1]
        if not is_setup_file(PurePosixPath(path), text, templates):
            return False
    return True


def _template_texts() -> dict[PurePosixPath, str]:
    from aimate_memory.vault.setup import template_dir

    root = template_dir()
    files = [root / "README.md", *sorted((root / "core").glob("*.md"))]
    return {PurePosixPath(f.relative_to(root).as_posix()): f.read_text(encoding="utf-8") for f in files if f.exists()}


def _adopt(repo: VaultRepo, branch: str, facts: SyncFacts, result: SyncResult) -> None:
    """Check out the remote's branch. Local commits (only setup ones, or ones the remote already has) stay
    reachable at REPLACED_REF; a person's uncommitted edit that checkout would overwrite stops it."""
    assert facts.remote_head is not None
    if facts.local_head is not None:
        repo.git("update-ref", "-m", "sync: adopted the remote's branch", REPLACED_REF, facts.local_head)
    status, out, err = repo.git("checkout", "-q", "-B", branch, facts.remote_head, check=False)
    if status != 0:
        raise GitError(f"cannot check out the remote's {branch}: {(err or out).strip()}", _DIRTY_HINT)
    result.pulled += _count(
        repo, facts.remote_head if facts.local_head is None else f"{facts.local_head}..{facts.remote_head}"
    )
    _note(result, "cloned" if facts.local_head is None else "adopted the remote's branch")


def _fast_forward(repo: VaultRepo, facts: SyncFacts, result: SyncResult) -> None:
    assert facts.local_head is not None and facts.remote_head is not None
    env = repo.identity_env()
    status, out, err = repo.git("merge", "--ff-only", "--quiet", facts.remote_head, env=env, check=False)
    if status != 0:
        raise GitError(f"cannot update the vault: {(err or out).strip()}", _DIRTY_HINT)
    result.pulled += _count(repo, f"{facts.local_head}..{facts.remote_head}")
    _note(result, "pulled")


def _count(repo: VaultRepo, spec: str) -> int:
    return int(repo.git("rev-list", "--count", spec)[1].strip() or 0)


def _merge(repo: VaultRepo, remote_name: str, facts: SyncFacts, result: SyncResult, allow_unrelated: bool) -> None:
    assert facts.local_head is not None and facts.remote_head is not None
    theirs_sha, branch = facts.remote_head, facts.branch
    incoming = _count(repo, f"{facts.local_head}..{theirs_sha}")
    env = repo.identity_env()
    subject = f"sync: merge {remote_name}/{branch} into {branch}"
    extra = ["--allow-unrelated-histories"] if allow_unrelated else []
    status, out, err = repo.git(
        "merge", "--no-ff", "--no-edit", *extra, "-m", subject, theirs_sha, env=env, check=False
    )
    if status != 0:
        if not repo.in_merge():
            raise GitError(f"cannot merge the remote's changes: {(err or out).strip()}", _DIRTY_HINT)
        conflicts = _settle_conflicts(repo)
        body = "Conflicts left marked; resolve each file, then accept it in `aimate mem review`:\n" + "\n".join(
            f"- {path}" for path in conflicts
        )
        message = commit_message(f"{subject} ({len(conflicts)} conflict(s))", body)
        repo.git("commit", "--no-edit", "--no-verify", "-q", "-F", "-", env=env, stdin=message)
        result.conflicts.extend(p for p in (repo.vault_path(c) for c in conflicts) if p is not None)
    result.merge_commit = repo.head_commit()
    result.pulled += incoming
    _note(result, "merged")


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


def _push(repo: VaultRepo, remote_name: str, branch: str, result: SyncResult) -> bool:
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
    result.pushed += outgoing
    _note(result, "pushed")
    return True


def _mark_synced(repo: VaultRepo, remote_name: str, branch: str) -> None:
    """Remember the remote's commit as of this sync: a later remote that no longer holds it was rewritten."""
    seen = _resolve(repo, f"refs/remotes/{remote_name}/{branch}")
    if seen is not None:
        repo.git("update-ref", "-m", "sync", SYNCED_REF, seen)
        repo.git("branch", f"--set-upstream-to={remote_name}/{branch}", check=False)


def _note(result: SyncResult, action: str) -> None:
    if action not in result.actions:
        result.actions.append(action)
