"""What one `sync` does, decided from facts about the two sides (pure; `git/sync.py` gathers the facts and acts).

The vault's branch is decided once and never by a person's `init.defaultBranch`: the remote's default
branch when it has one, else `main`. Every disagreement the tool cannot settle without dropping someone's
commits (another branch name, unrelated histories, a remote rewritten by a force-push) stops the sync with
the command that fixes it — two devices must never each push their own line and both report success.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path, PurePosixPath

from aimate_memory.git.repo import GitError
from aimate_memory.git.setup import DEFAULT_BRANCH

__all__ = [
    "DEFAULT_BRANCH",
    "Relation",
    "RemoteRefs",
    "Step",
    "SyncFacts",
    "SyncPlan",
    "SyncRefusedError",
    "choose_branch",
    "plan_sync",
]
TOOL_CONFIG_FILES = frozenset({".gitattributes", ".gitignore"})


class Step(Enum):
    UP_TO_DATE = "up-to-date"
    CREATE = "create"  # both sides empty: make the first commit, then push it
    PUSH = "push"  # the remote has nothing we lack
    FAST_FORWARD = "fast-forward"  # we have nothing the remote lacks
    MERGE = "merge"  # both moved: merge (the frontmatter driver settles concurrent edits), then push
    ADOPT = "adopt"  # this device holds nothing of its own yet: take the remote's branch as it is


class Relation(Enum):
    SAME = "same"
    AHEAD = "ahead"  # the remote's commit is in ours
    BEHIND = "behind"  # ours is in the remote's
    DIVERGED = "diverged"
    UNRELATED = "unrelated"  # no common commit


class SyncRefusedError(GitError):
    """The two sides disagree in a way only a person can settle; nothing was changed."""


@dataclass(frozen=True)
class RemoteRefs:
    head_branch: str | None  # the branch the remote's HEAD names, when that branch exists
    branches: Mapping[str, str]  # name → commit


@dataclass(frozen=True)
class SyncFacts:
    vault: str  # for the commands in the hints
    branch: str  # chosen by `choose_branch`
    local_branch: str | None  # None: detached or no repository yet
    local_head: str | None  # None: no commit yet
    remote_head: str | None  # None: the remote has no such branch
    last_synced: str | None  # the remote's commit at this device's last sync
    remote_keeps_last_sync: bool  # last_synced is in the remote's history (True when there is none)
    relation: Relation | None  # None when either side has no commit
    local_is_setup_only: bool  # every local file is the remote's or an untouched starter file
    join: bool = False  # the person asked to merge two unrelated vaults, once


@dataclass(frozen=True)
class SyncPlan:
    step: Step
    rename_from: str | None = None  # the local branch to rename to `branch` first (a remote still empty)
    allow_unrelated: bool = False


def choose_branch(remote: RemoteRefs) -> str:
    """The remote's default branch when it has one, else `main` — never the person's git defaults."""
    if remote.head_branch and remote.head_branch in remote.branches:
        return remote.head_branch
    if not remote.branches or DEFAULT_BRANCH in remote.branches:
        return DEFAULT_BRANCH
    if len(remote.branches) == 1:
        return next(iter(remote.branches))
    names = ", ".join(sorted(remote.branches))
    raise SyncRefusedError(
        f"the remote has several branches ({names}) and no default branch to sync",
        "set the remote's default branch (HEAD), e.g. on the server or `git symbolic-ref HEAD refs/heads/main` in it",
    )


def plan_sync(facts: SyncFacts) -> SyncPlan:
    """The one step this sync takes, or SyncRefusedError naming the disagreement and its fix."""
    if facts.remote_head is None:
        return _plan_empty_remote(facts)
    if facts.local_head is None:
        return SyncPlan(Step.ADOPT)
    if facts.last_synced is not None and not facts.remote_keeps_last_sync:
        raise _rewritten(facts)
    relation = facts.relation
    if facts.local_branch != facts.branch:
        if facts.local_is_setup_only or relation in (Relation.SAME, Relation.BEHIND):
            return SyncPlan(Step.ADOPT)  # nothing local would be left behind on the other branch
        raise _other_branch(facts)
    if relation is Relation.SAME:
        return SyncPlan(Step.UP_TO_DATE)
    if relation is Relation.AHEAD:
        return SyncPlan(Step.PUSH)
    if relation is Relation.BEHIND:
        return SyncPlan(Step.FAST_FORWARD)
    if relation is Relation.DIVERGED:
        return SyncPlan(Step.MERGE)
    if facts.local_is_setup_only:
        return SyncPlan(Step.ADOPT)
    if facts.join:
        return SyncPlan(Step.MERGE, allow_unrelated=True)
    raise SyncRefusedError(
        f"this vault and the remote's {facts.branch} have unrelated histories",
        "check git.remote names your memory repository; if it does, merge both vaults once with "
        "`aimate mem sync --join`",
    )


def _plan_empty_remote(facts: SyncFacts) -> SyncPlan:
    if facts.last_synced is not None:
        raise SyncRefusedError(
            f"the remote's branch {facts.branch} is gone (deleted or replaced since this device last synced)",
            f"nothing here was changed; if that was intended, push this vault back with "
            f"`git -C {facts.vault} push origin {facts.branch}`",
        )
    if facts.local_head is None:
        return SyncPlan(Step.CREATE)
    rename = facts.local_branch if facts.local_branch not in (None, facts.branch) else None
    return SyncPlan(Step.PUSH, rename_from=rename)


def _rewritten(facts: SyncFacts) -> SyncRefusedError:
    ref = f"origin/{facts.branch}"
    return SyncRefusedError(
        f"the remote's {facts.branch} was rewritten (force-pushed): it lost commits this device synced before; "
        "nothing here was changed",
        f"compare with `git -C {facts.vault} log --oneline {ref}`; keep this device's history: "
        f"`git -C {facts.vault} push --force-with-lease origin {facts.branch}`, or take the remote's: "
        f"`git -C {facts.vault} reset --hard {ref}` — then sync again",
    )


def _other_branch(facts: SyncFacts) -> SyncRefusedError:
    return SyncRefusedError(
        f"this vault is on branch {facts.local_branch} but the remote's branch is {facts.branch}",
        f"rename it and sync again (your commits are merged with the remote's): "
        f"`git -C {facts.vault} branch -m {facts.local_branch} {facts.branch}`",
    )


# -- what counts as "nothing of this device's own" ----------------------------------------------------


def is_setup_file(path: PurePosixPath, text: str, templates: Mapping[PurePosixPath, str]) -> bool:
    """A file `init` wrote and nobody edited: the tool's git config files, the vault README as shipped, or a
    starter memory whose title and body are still the template's (its id and dates differ per device)."""
    if path.as_posix() in TOOL_CONFIG_FILES:
        return True
    template = templates.get(path)
    if template is None:
        return False
    if text == template:
        return True
    mine, shipped = _title_and_body(text, path), _title_and_body(template, path)
    return mine is not None and mine == shipped


def _title_and_body(text: str, path: PurePosixPath) -> tuple[object, str] | None:
    from aimate_memory.errors import MemoryFileError
    from aimate_memory.vault.codec import parse_document

    try:
        doc = parse_document(text, Path(path), read_only=True)
    except MemoryFileError:  # a starter that no longer parses was edited by a person
        return None
    return doc.get("title"), doc.body.strip()
