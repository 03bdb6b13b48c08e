"""The review gate (docs/design.md §8): what changed in a vault since its last commit — hand edits, hand moves,
captures waiting for a person, files left with conflict markers — and accepting (commit) or rejecting
(restore) each change. Functions over a `VaultRepo`; nothing here commits on its own initiative."""

from __future__ import annotations

import difflib
import re
import shutil
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache, partial
from pathlib import Path, PurePosixPath
from typing import Any

from aimate_memory.errors import InvalidInputError, MemoryFileError, NotFoundError
from aimate_memory.git.repo import VaultRepo
from aimate_memory.git.secrets import Finding, mask_text, scan_bytes, scan_text
from aimate_memory.vault.codec import parse_document
from aimate_memory.vault.hashing import git_blob_id
from aimate_memory.vault.model import title_of
from aimate_memory.vault.roots import Roots

_CONFLICT_LINE = "^(<<<<<<<|>>>>>>>)( |$)"
_CONFLICT_LINE_BYTES = re.compile(_CONFLICT_LINE.encode(), re.MULTILINE)  # the same lines, read here
_STATUS = ("--no-optional-locks", "status", "--porcelain=v2", "--branch", "--no-renames", "--untracked-files=all", "-z")
_ACCEPT_WORD = {"modified": "edit", "added": "new", "deleted": "deletion of", "renamed": "move of"}


@dataclass
class PendingChange:
    """One uncommitted memory change, vault-relative. status: modified | added | deleted | renamed |
    conflict (the file holds conflict markers, committed by a sync or left by a merge). `secrets`: what
    the change adds that looks like a secret (masked); such a change is never committed automatically."""

    path: PurePosixPath
    status: str
    old_path: PurePosixPath | None = None
    diff: str = ""
    title: str | None = None
    memory_id: str | None = None
    staged: bool = False
    secrets: list[Finding] = field(default_factory=list)
    # What changed in the memory rather than in the file (`memory_delta`): field → (before, after), and the
    # body as a short diff; filled with the diff.
    fields: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    body_diff: str = ""
    memory_status: str | None = None  # the frontmatter's status now ("pending": a capture waiting for review)
    # The file as it is now does not parse as a memory (`line N: reason`): never accepted until it does.
    parse_error: str | None = None
    # With the secret scan: the blob id (`hashing.git_blob_id`) of the file's bytes when they hold nothing
    # that looks like a secret, for the commit guard (`VaultRepo.commit_paths(scanned_clean=…)`).
    scanned_clean: str | None = None

    @property
    def paths(self) -> list[PurePosixPath]:
        return [self.path] if self.old_path is None else [self.path, self.old_path]

    def describe(self) -> str:
        if self.old_path is not None:
            return f"{self.status} {self.old_path} → {self.path}"
        return f"{self.status} {self.path}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path.as_posix(),
            "status": self.status,
            "old_path": self.old_path.as_posix() if self.old_path else None,
            "title": self.title,
            "id": self.memory_id,
            "diff": self.diff,
            "fields": {key: {"before": before, "after": after} for key, (before, after) in self.fields.items()},
            "body_diff": self.body_diff,
            "memory_status": self.memory_status,
            "parse_error": self.parse_error,
            "secrets": [{"line": f.line, "kind": f.kind, "excerpt": f.excerpt_masked} for f in self.secrets],
        }


@dataclass
class RejectResult:
    path: PurePosixPath
    action: str  # restored | moved | deleted-copy
    moved_to: Path | None = None

    def describe(self) -> str:
        if self.moved_to is not None:
            return f"{self.path}: moved out of the vault to {self.moved_to}"
        if self.action == "deleted-copy":
            return f"{self.path}: removed (an identical copy is in the last commit)"
        return f"{self.path}: restored from the last commit"


# -- listing ----------------------------------------------------------------------------------------


def pending_changes(
    repo: VaultRepo,
    with_diff: bool = True,
    scan_secrets: bool = True,
    sensitive_keywords: Sequence[str] = (),
    paths_only: bool = False,
) -> list[PendingChange]:
    """Uncommitted changes under the vault (working tree vs HEAD, staged or not), hand moves paired
    by the memory `id`, plus tracked files that still hold conflict markers. `paths_only` (without the diff and
    the scan): no id, title or status — files are read only when a deletion could pair with an addition as a
    move (20,000 new files to commit need no reading)."""
    changes, staged = _changed_paths(repo)
    tree = cache(repo.head_tree)  # read when a change needs HEAD's side: a new file does not
    now: dict[str, bytes | None] = {}  # each file read once
    read_files = not paths_only or with_diff or scan_secrets or any(c.status == "deleted" for c in changes.values())
    for path, change in changes.items():
        change.staged = path in staged
        if not read_files:
            continue
        if change.status != "deleted":
            now[path] = repo.worktree_bytes(path)
        data = now[path] if change.status != "deleted" else repo.blob_bytes(tree(), path)
        read = _read_memory(data.decode("utf-8", "replace") if data is not None else None, path)
        change.memory_id, change.title = read.memory_id, read.title
        if change.status != "deleted":
            change.parse_error, change.memory_status = read.problem, read.status
    _pair_moves(repo, changes)

    result: list[PendingChange] = []
    for path, change in sorted(changes.items()):
        vault_rel = repo.vault_path(path)
        if vault_rel is None:
            continue
        if with_diff or scan_secrets:
            old_repo = repo.repo_path(change.old_path) if change.old_path else path
            new_bytes = now.get(path) if change.status != "deleted" else None
            if scan_secrets:
                _scan_change(change, new_bytes, partial(_blob_at, repo, tree, old_repo), sensitive_keywords)
                if change.status in ("added", "renamed"):  # a file NAMED like a token is one too
                    change.secrets[:0] = [Finding(0, f.kind, f.excerpt_masked) for f in scan_text(path)]
            if with_diff:
                old = "" if change.status == "added" else repo.blob_text(tree(), old_repo) or ""
                new = (new_bytes or b"").decode("utf-8", "replace")
                # The review list goes to tools too: show where, never the value (old secrets included).
                change.diff = mask_text(_unified(old, new, old_repo, path, change.status))
                change.fields, change.body_diff, change.memory_status = memory_delta(old, new, path)
                change.body_diff = mask_text(change.body_diff)
                if change.secrets:
                    change.fields = {k: (mask_text(str(a)), mask_text(str(b))) for k, (a, b) in change.fields.items()}
        change.path = vault_rel
        result.append(change)
    return result


def _blob_at(repo: VaultRepo, tree: Callable[[], Any], repo_path: str) -> bytes | None:
    return repo.blob_bytes(tree(), repo_path)


def unreviewed_paths(repo: VaultRepo) -> set[PurePosixPath]:
    """Vault paths a person changed and nobody committed yet (both ends of a hand move)."""
    changes = pending_changes(repo, with_diff=False, scan_secrets=False, paths_only=True)
    return {path for change in changes for path in change.paths}


def _scan_change(
    change: PendingChange, new: bytes | None, old: Callable[[], bytes | None], sensitive_keywords: Sequence[str]
) -> None:
    """`change.secrets`: suspected secrets `new` holds that the version it replaces (`old`, read only when
    `new` holds something) does not, read as the commit guard reads them (bytes, any encoding:
    `secrets.scan_bytes`), line numbers of `new`. Bytes with none at all are `scanned_clean`: the commit
    guard need not read them again."""
    found = scan_bytes(new, sensitive_keywords) if new else []
    if new is not None and not found:
        change.scanned_clean = git_blob_id(new)
    elif found and change.status != "added":
        found = scan_bytes(new or b"", sensitive_keywords, known=old())
    change.secrets = found


def find_pending(repo: VaultRepo, path: PurePosixPath | str) -> PendingChange:
    wanted = PurePosixPath(path)
    for change in pending_changes(repo, with_diff=False, scan_secrets=False):
        if wanted in (change.path, change.old_path):
            return change
    raise NotFoundError(f"no uncommitted change at {wanted}", "run `aimate mem review` to list them")


def diff(repo: VaultRepo, path: PurePosixPath | str | None = None) -> str:
    changes = pending_changes(repo, scan_secrets=False)
    if path is not None:
        wanted = PurePosixPath(path)
        changes = [c for c in changes if wanted in (c.path, c.old_path)]
    return "".join(change.diff for change in changes)


def _changed_paths(repo: VaultRepo) -> tuple[dict[str, PendingChange], set[str]]:
    """Repo path → change (working tree vs HEAD, untracked files, conflicts), and the staged paths: one
    `git status` (porcelain v2) for all of it, where six git processes asked it before — each a fork of the
    daemon and a walk of the vault (docs/benchmarks.md, "Waits through the daemon, third round"). Optional
    locks off: a status never takes the index lock the person's own git command may need."""
    spec = repo.scope_spec
    status = _read_status(repo.git(*_STATUS, "--", spec, strip=False)[1])
    for path, head_id in status.both_changed.items():  # the index and the file changed: the file may be HEAD's
        data = repo.worktree_bytes(path)
        if data is not None and git_blob_id(data) == head_id:
            del status.changed[path]
            status.edited.discard(path)
    changes: dict[str, PendingChange] = {}
    for path, kind in status.changed.items():
        changes[path] = PendingChange(PurePosixPath(path), kind)
    for path in status.untracked:
        changes[path] = PendingChange(PurePosixPath(path), "added")
    for path in _conflicted_paths(repo, spec, status):
        changes.setdefault(path, PendingChange(PurePosixPath(path), "conflict")).status = "conflict"
    return changes, status.staged if status.head is not None else set()


@dataclass
class _Status:
    """What `git status --porcelain=v2 --branch -z` says of a vault: HEAD (None before the first commit),
    each tracked path whose working-tree file differs from HEAD (as `git diff HEAD --name-status` names it),
    the paths staged (index ≠ HEAD), the untracked ones, the unmerged ones, and the tracked paths whose
    working-tree file exists and differs from HEAD (`edited`: the ones a conflict-marker search must read)."""

    head: str | None = None
    changed: dict[str, str] = field(default_factory=dict)
    staged: set[str] = field(default_factory=set)
    untracked: list[str] = field(default_factory=list)
    unmerged: set[str] = field(default_factory=set)
    edited: set[str] = field(default_factory=set)
    both_changed: dict[str, str] = field(default_factory=dict)  # path → its blob id in HEAD


_NO_FILE = "000000"  # the mode porcelain v2 gives a side (HEAD, index, working tree) without the file


def _read_status(out: str) -> _Status:
    status = _Status()
    for entry in out.split("\0"):
        kind = entry[:2]
        if entry.startswith("# branch.oid "):
            oid = entry.removeprefix("# branch.oid ")
            status.head = None if oid == "(initial)" else oid
        elif kind == "1 ":
            xy, _, head_mode, index_mode, tree_mode, head_id, _, path = entry[2:].split(" ", 7)
            if xy[0] != ".":
                status.staged.add(path)
            _tracked_change(status, path, xy, (head_mode, index_mode, tree_mode), head_id)
        elif kind == "u ":
            path = entry[2:].split(" ", 9)[9]
            status.unmerged.add(path)
            status.staged.add(path)
        elif kind == "? ":
            status.untracked.append(entry[2:])
    return status


def _tracked_change(status: _Status, path: str, xy: str, modes: tuple[str, str, str], head_id: str) -> None:
    """One ordinary entry as `git diff HEAD` tells it: added (not in HEAD), deleted (no file), else modified
    (`both_changed`: the index and the file both changed, so the file may be back to HEAD's bytes — then it is
    no change, which only its bytes tell)."""
    head_mode, index_mode, tree_mode = modes
    if head_mode == _NO_FILE:
        if tree_mode != _NO_FILE or status.head is None:  # before the first commit every staged path is new
            status.changed[path] = "added"
    elif tree_mode == _NO_FILE:
        status.changed[path] = "deleted"
    else:
        status.changed[path] = "modified"
        if xy[0] != "." and xy[1] != ".":
            status.both_changed[path] = head_id
    if index_mode != _NO_FILE and tree_mode != _NO_FILE:
        status.edited.add(path)


def _pair_moves(repo: VaultRepo, changes: dict[str, PendingChange]) -> None:
    added = {c.memory_id: p for p, c in changes.items() if c.status == "added" and c.memory_id}
    for path, change in list(changes.items()):
        if change.status != "deleted" or not change.memory_id or change.memory_id not in added:
            continue
        new_path = added.pop(change.memory_id)
        moved = changes[new_path]
        moved.status = "renamed"
        moved.old_path = repo.vault_path(path)
        moved.staged = moved.staged or change.staged
        del changes[path]


def _conflicted_paths(repo: VaultRepo, spec: str, status: _Status) -> list[str]:
    """Unmerged paths, and tracked files whose working copy holds conflict marker lines (as `git grep -l -E`
    over the working tree finds them): the files unchanged since HEAD from one search of HEAD's tree, kept by
    commit (`_marked_in_head`), the edited ones read here."""
    paths = set(status.unmerged)
    if status.head is not None:
        paths.update(p for p in _marked_in_head(repo, spec, status.head) if p not in status.changed)
    for path in status.edited - paths:
        data = repo.worktree_bytes(path)
        if data is not None and _CONFLICT_LINE_BYTES.search(data):
            paths.add(path)
    return sorted(paths)


MARKED_KEPT = 8  # (repository, HEAD) pairs whose marked files are kept: a commit's files never change
_marked: OrderedDict[tuple[str, str, str], frozenset[str]] = OrderedDict()


def _marked_in_head(repo: VaultRepo, spec: str, head: str) -> frozenset[str]:
    """The paths under `spec` whose file in commit `head` holds conflict marker lines."""
    key = (str(repo.workdir), spec, head)
    if key in _marked:
        _marked.move_to_end(key)
        return _marked[key]
    code, out, _ = repo.git("grep", "-l", "-z", "-E", _CONFLICT_LINE, head, "--", spec, check=False, strip=False)
    prefix = f"{head}:"
    found = frozenset(p.removeprefix(prefix) for p in out.split("\0") if p) if code == 0 else frozenset()
    _marked[key] = found
    while len(_marked) > MARKED_KEPT:
        _marked.popitem(last=False)
    return found


# -- accepting and rejecting ------------------------------------------------------------------------


def accept(
    repo: VaultRepo,
    path: PurePosixPath | str,
    *,
    allow_secret: bool = False,
    sensitive_keywords: Sequence[str] = (),
    also: Sequence[tuple[PurePosixPath, str]] = (),
) -> str | None:
    """Commit one pending change (after the secret scan), with the files `also` names and why each changed
    with it (the memories a kept conflict supersedes). Returns the commit sha."""
    change = find_pending(repo, path)
    if change.status == "conflict":
        raise InvalidInputError(
            f"{change.path} still holds conflict markers", "edit the file to resolve them, then accept it"
        )
    refuse_unparsable(change)
    title = change.title or change.path.stem
    subject = f'memory: accept {_ACCEPT_WORD[change.status]} "{title}" ({change.path.parent.as_posix()})'
    body = "\n".join([f"- {change.describe()}: accepted in review", *(f"- {extra}: {why}" for extra, why in also)])
    return repo.commit_paths(
        [*change.paths, *(extra for extra, _ in also)],
        subject,
        body,
        allow_secret=allow_secret,
        sensitive_keywords=sensitive_keywords,
    )


def reject(repo: VaultRepo, path: PurePosixPath | str, now: datetime | None = None) -> list[RejectResult]:
    """Undo one pending change. Tracked files are restored from HEAD; a new file is never deleted:
    it is moved out of the vault to `<vault>/../state/rejected/<time>/<path>` (not committed, not
    indexed, recoverable)."""
    change = find_pending(repo, path)
    repo.refuse_if_merging()
    if change.status == "conflict":
        raise InvalidInputError(
            f"{change.path} holds conflict markers from a sync", "edit the file to resolve them, then accept it"
        )
    tree = repo.head_tree()
    results: list[RejectResult] = []
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    if change.status in ("modified", "deleted"):
        repo.git("restore", "--source=HEAD", "--staged", "--worktree", "--", repo.repo_path(change.path))
        return [RejectResult(change.path, "restored")]
    if change.status == "renamed" and change.old_path is not None:
        old_repo = repo.repo_path(change.old_path)
        old_text = repo.blob_text(tree, old_repo)
        repo.git("restore", "--source=HEAD", "--staged", "--worktree", "--", old_repo)
        results.append(RejectResult(change.old_path, "restored"))
        if old_text is not None and repo.worktree_text(repo.repo_path(change.path)) == old_text:
            _unstage(repo, change.path)
            (repo.vault_root / change.path.as_posix()).unlink()
            results.append(RejectResult(change.path, "deleted-copy"))
            return results
    # added, or a moved file whose content also changed: move it out, never delete it.
    results.append(_move_out(repo, change.path, stamp))
    return results


def _unstage(repo: VaultRepo, rel: PurePosixPath) -> None:
    repo.git("rm", "--cached", "-q", "--ignore-unmatch", "--", repo.repo_path(rel))


def _move_out(repo: VaultRepo, rel: PurePosixPath, stamp: str) -> RejectResult:
    _unstage(repo, rel)
    target = Roots.state_dir(repo.vault_root.parent) / "rejected" / stamp / rel.as_posix()
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(repo.vault_root / rel.as_posix()), target)
    return RejectResult(rel, "moved", target)


# -- what changed in a memory -----------------------------------------------------------------------

# Fields every write touches: showing them would bury the change a person made.
_QUIET_FIELDS = frozenset({"updated_at", "content_hash", "access_count", "last_accessed"})
BODY_DIFF_LINES = 12  # a review shows the gist; `aimate mem diff ID` shows everything


def memory_delta(old: str, new: str, repo_path: str) -> tuple[dict[str, tuple[Any, Any]], str, str | None]:
    """(fields that changed: name → (before, after), the body as a short diff, the status now) between two
    versions of a memory file; a new memory's fields are not listed (its body is all added)."""
    before, after = _parsed(old, repo_path), _parsed(new, repo_path)
    if after is None and before is None:
        return {}, "", None
    old_meta, old_body = before or ({}, "")
    new_meta, new_body = after or ({}, "")
    fields = {}
    if before is not None and after is not None:
        for key in [*old_meta, *(k for k in new_meta if k not in old_meta)]:
            if key not in _QUIET_FIELDS and old_meta.get(key) != new_meta.get(key):
                fields[key] = (old_meta.get(key), new_meta.get(key))
    lines = [
        line.rstrip("\n")
        for line in difflib.unified_diff(old_body.splitlines(), new_body.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    if len(lines) > BODY_DIFF_LINES:
        lines = [*lines[:BODY_DIFF_LINES], f"… {len(lines) - BODY_DIFF_LINES} more lines"]
    status = new_meta.get("status") if after is not None else None
    return fields, "\n".join(lines), str(status) if status is not None else None


def _parsed(text: str, repo_path: str) -> tuple[dict[str, Any], str] | None:
    if not text or not repo_path.endswith(".md"):
        return None
    try:
        doc = parse_document(text, Path(repo_path), read_only=True)
    except MemoryFileError:
        return None
    meta = {str(key): _plain(value) for key, value in doc.meta.items()}
    return meta, doc.body.strip("\n")


def _plain(value: Any) -> Any:
    """YAML values as JSON-able plain values (dates as ISO text, sequences as lists)."""
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def refuse_unparsable(change: PendingChange) -> None:
    """A file that does not parse is not a memory a person can accept: committing it would hand the team a
    file every read skips (docs/design.md "A broken memory is never silent")."""
    if change.parse_error is not None:
        raise InvalidInputError(
            f"{change.path} does not parse as a memory ({change.parse_error}); not accepted",
            f"fix it (`aimate mem edit {change.path}`; `aimate mem diagnose` checks it), then accept it",
        )


# -- helpers ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Read:
    """What listing a changed file needs of it, from one parse (at 20,000 files parsing is most of it)."""

    memory_id: str | None = None
    title: str | None = None
    status: str | None = None  # the frontmatter's status
    problem: str | None = None  # why it does not parse: `line 3: …`


def _read_memory(text: str | None, repo_path: str) -> _Read:
    if not text or not repo_path.endswith(".md"):
        return _Read()
    try:
        doc = parse_document(text, Path(repo_path), read_only=True)
    except MemoryFileError as error:
        return _Read(problem=f"line {error.line}: {error.reason}" if error.line else error.reason)
    memory_id, status = doc.get("id"), doc.get("status")
    return _Read(
        str(memory_id) if memory_id else None,
        title_of(doc, PurePosixPath(repo_path)),
        str(status) if status is not None else None,
    )


def _unified(old: str, new: str, old_path: str, new_path: str, status: str) -> str:
    a = "/dev/null" if status == "added" else f"a/{old_path}"
    b = "/dev/null" if status == "deleted" else f"b/{new_path}"
    old_lines = [line if line.endswith("\n") else line + "\n" for line in old.splitlines(keepends=True)]
    new_lines = [line if line.endswith("\n") else line + "\n" for line in new.splitlines(keepends=True)]
    lines = list(difflib.unified_diff(old_lines, new_lines, a, b))
    if not lines:
        return f"--- {a}\n+++ {b}\n" if old_path != new_path else ""
    return "".join(lines)
