"""The vault as a git repository: commits with reasons, the review gate, history, sync (DESIGN §8).

Every commit the tool makes is built in a TEMPORARY index (`GIT_INDEX_FILE`): `read-tree HEAD`, stage
only the given paths, scan what is staged for secrets, `write-tree`, `commit-tree`, `update-ref`.
The person's own index is never used to build a commit, so in a project repository their other staged
and unstaged files stay exactly as they were; afterwards only the committed paths' index entries are
reset to the new HEAD so `git status` agrees.

The global vault (`$AIMATE_HOME/memory`) is its own repository; a project vault
(`{project}/.aimate/memory`) lives inside the project's repository, under a path prefix.
"""

from __future__ import annotations

import difflib
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

import git

from aimate_memory.errors import AimateError, InvalidInputError, MemoryFileError, NotFoundError
from aimate_memory.git.secrets import Finding, scan_text
from aimate_memory.vault.changes import ChangeSet
from aimate_memory.vault.codec import parse_document

DRIVER_NAME = "aimate-memory"
DEFAULT_AUTHOR = "AIMate <aimate@localhost>"
DEFAULT_BRANCH = "main"
REMOTE_NAME = "origin"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
ZERO_SHA = "0" * 40
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
SECRET_HINT = "remove it, or pass --allow-secret after a person checked"
_AUTHOR = re.compile(r"^\s*(?P<name>[^<>]*?)\s*<(?P<email>[^<>]*)>\s*$")
_CONFLICT_LINE = "^(<<<<<<<|>>>>>>>)( |$)"


class GitError(AimateError):
    """A git operation on a vault failed; the message carries git's own words."""


class SecretFoundError(AimateError):
    """What is about to be committed looks like it holds a secret; nothing was committed."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        first = findings[0]
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        message = f"secret found, not committed: {first.location}: {first.kind}: {first.excerpt_masked}{more}"
        super().__init__(message, SECRET_HINT)
        self.findings = list(findings)


# -- identity ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    name: str
    email: str

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"


def parse_author(text: str | None) -> Identity | None:
    """`"Name <email>"` → Identity; anything else → None."""
    if not text:
        return None
    match = _AUTHOR.match(text)
    if not match or not match.group("name") or not match.group("email"):
        return None
    return Identity(match.group("name"), match.group("email"))


# -- records ----------------------------------------------------------------------------------------


@dataclass
class PendingChange:
    """One uncommitted memory change, vault-relative. status: modified | added | deleted | renamed |
    conflict (the file holds conflict markers, committed by a sync or left by a merge)."""

    path: PurePosixPath
    status: str
    old_path: PurePosixPath | None = None
    diff: str = ""
    title: str | None = None
    memory_id: str | None = None
    staged: bool = False

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
        }


@dataclass
class LogEntry:
    commit: str
    date: str  # ISO 8601 with offset (author date)
    author: str
    subject: str
    action: str  # add | update | move | delete
    path: PurePosixPath  # vault-relative; the new path for a move
    old_path: PurePosixPath | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "date": self.date,
            "author": self.author,
            "subject": self.subject,
            "action": self.action,
            "path": self.path.as_posix(),
            "old_path": self.old_path.as_posix() if self.old_path else None,
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


# -- the repository ---------------------------------------------------------------------------------


class VaultRepo:
    """A vault folder and the git repository holding it (the vault itself, or a project above it)."""

    def __init__(self, vault_root: Path, author: str | None = None, own_repo: bool = False) -> None:
        self.vault_root = Path(vault_root)
        self.configured_author = author
        try:
            if own_repo:
                self.repo = git.Repo(self.vault_root)
            else:
                self.repo = git.Repo(self.vault_root, search_parent_directories=True)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
            raise GitError(
                f"{self.vault_root} is not in a git repository",
                "run `aimate mem init` for the global vault, or `git init` in the project",
            ) from exc
        if self.repo.working_tree_dir is None:
            raise GitError(f"{self.repo.git_dir} is a bare repository", "use a vault with a working tree")
        self.workdir = Path(self.repo.working_tree_dir)
        rel = self.vault_root.resolve().relative_to(self.workdir.resolve())
        self.prefix = PurePosixPath(rel.as_posix())  # PurePosixPath(".") for a vault that is the repo

    def close(self) -> None:
        self.repo.close()

    def __enter__(self) -> VaultRepo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def is_own_repo(self) -> bool:
        return self.prefix == PurePosixPath(".")

    # -- paths ---------------------------------------------------------------------------------

    def repo_path(self, rel: PurePosixPath | str) -> str:
        """Vault-relative → repository-relative (POSIX); refuses paths that leave the vault."""
        rel = PurePosixPath(rel)
        if rel.is_absolute() or ".." in rel.parts:
            raise InvalidInputError(f"{rel} is outside the vault", "give a path relative to the vault")
        return (self.prefix / rel).as_posix() if not self.is_own_repo else rel.as_posix()

    def vault_path(self, repo_path: str) -> PurePosixPath | None:
        path = PurePosixPath(repo_path)
        if self.is_own_repo:
            return path
        try:
            return path.relative_to(self.prefix)
        except ValueError:
            return None

    @property
    def scope_spec(self) -> str:
        return "." if self.is_own_repo else self.prefix.as_posix()

    # -- plumbing ------------------------------------------------------------------------------

    def git(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        check: bool = True,
        stdin: str | None = None,
        strip: bool = True,
    ) -> tuple[int, str, str]:
        command = ["git", "-c", "core.quotepath=false", "--literal-pathspecs", *args]
        if stdin is not None:
            with tempfile.TemporaryFile() as handle:
                handle.write(stdin.encode("utf-8"))
                handle.seek(0)
                return self._run(command, env, check, handle, strip)
        return self._run(command, env, check, None, strip)

    def _run(self, command: list[str], env: dict[str, str] | None, check: bool, istream: Any, strip: bool):
        status, out, err = self.repo.git.execute(
            command,
            env=env,
            istream=istream,
            with_extended_output=True,
            with_exceptions=False,
            strip_newline_in_stdout=strip,
        )
        if check and status != 0:
            shown = " ".join(command[4:7])
            raise GitError(f"git {shown} failed: {(err or out).strip()}", "see git's message above")
        return status, out, err

    def head_commit(self) -> str | None:
        status, out, _ = self.git("rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
        return out.strip() if status == 0 else None

    def branch(self) -> str:
        status, out, _ = self.git("symbolic-ref", "--short", "-q", "HEAD", check=False)
        if status != 0:
            raise GitError("the vault repository is on a detached HEAD", "check out a branch, e.g. `git switch main`")
        return out.strip()

    def identity(self) -> Identity:
        """`git.author` config, else GIT_AUTHOR_* env, else git's user.name/email, else the default."""
        configured = parse_author(self.configured_author)
        if configured:
            return configured
        name, email = os.environ.get("GIT_AUTHOR_NAME"), os.environ.get("GIT_AUTHOR_EMAIL")
        if name and email:
            return Identity(name, email)
        got_name = self.git("config", "--get", "user.name", check=False)
        got_email = self.git("config", "--get", "user.email", check=False)
        if got_name[0] == 0 and got_email[0] == 0 and got_name[1].strip() and got_email[1].strip():
            return Identity(got_name[1].strip(), got_email[1].strip())
        return parse_author(DEFAULT_AUTHOR)  # type: ignore[return-value]

    def _identity_env(self) -> dict[str, str]:
        author = self.identity()
        env = {"GIT_AUTHOR_NAME": author.name, "GIT_AUTHOR_EMAIL": author.email}
        committer_name = os.environ.get("GIT_COMMITTER_NAME")
        committer_email = os.environ.get("GIT_COMMITTER_EMAIL")
        if not (committer_name and committer_email):
            got_name = self.git("config", "--get", "user.name", check=False)
            got_email = self.git("config", "--get", "user.email", check=False)
            if got_name[0] == 0 and got_email[0] == 0:
                committer_name, committer_email = got_name[1].strip(), got_email[1].strip()
            else:
                committer_name, committer_email = author.name, author.email
        env["GIT_COMMITTER_NAME"] = committer_name
        env["GIT_COMMITTER_EMAIL"] = committer_email
        return env

    def in_merge(self) -> bool:
        git_dir = Path(self.repo.git_dir)
        return any((git_dir / name).exists() for name in ("MERGE_HEAD", "REBASE_HEAD", "CHERRY_PICK_HEAD")) or (
            (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists()
        )

    def _refuse_if_merging(self) -> None:
        if self.in_merge():
            raise GitError(
                f"the repository at {self.workdir} is in the middle of a merge or rebase",
                "finish it (`git merge --continue` / `git rebase --continue`) or abort it, then retry",
            )

    @contextmanager
    def _temp_index(self) -> Iterator[dict[str, str]]:
        with tempfile.TemporaryDirectory(prefix="aimate-index-") as folder:
            yield {"GIT_INDEX_FILE": str(Path(folder) / "index")}

    # -- committing ----------------------------------------------------------------------------

    def commit_paths(
        self,
        paths: Iterable[PurePosixPath | str],
        subject: str,
        body: str = "",
        *,
        allow_secret: bool = False,
        sensitive_keywords: Sequence[str] = (),
    ) -> str | None:
        """Commit the current content of these vault paths (deletions included) and nothing else.

        Returns the new commit's sha, or None when the paths hold no change. Raises SecretFoundError
        (nothing committed) when what would be committed looks like a secret, unless `allow_secret`.
        """
        repo_paths = sorted({self.repo_path(path) for path in paths})
        if not repo_paths:
            return None
        return self._commit_repo_paths(repo_paths, subject, body, allow_secret, sensitive_keywords)

    def _commit_repo_paths(
        self,
        repo_paths: list[str],
        subject: str,
        body: str,
        allow_secret: bool,
        sensitive_keywords: Sequence[str],
    ) -> str | None:
        self._refuse_if_merging()
        for attempt in range(40):
            head = self.head_commit()
            with self._temp_index() as env:
                if head:
                    self.git("read-tree", "HEAD", env=env)
                paths = "\0".join(repo_paths)
                self.git("update-index", "--add", "--remove", "-z", "--stdin", env=env, stdin=paths)
                tree = self.git("write-tree", env=env)[1].strip()
                if head and tree == self.git("rev-parse", f"{head}^{{tree}}")[1].strip():
                    return None
                if not allow_secret:
                    findings = self._scan_staged(env, head, sensitive_keywords)
                    if findings:
                        raise SecretFoundError(findings)
            message = ["-m", subject] + (["-m", body] if body.strip() else [])
            parents = ["-p", head] if head else []
            commit = self.git("commit-tree", tree, *parents, *message, env=self._identity_env())[1].strip()
            # Compare-and-swap: another writer (daemon, second CLI) that moved HEAD meanwhile makes
            # this fail; then the commit is rebuilt on the new HEAD. Nothing is overwritten.
            status, _, _ = self.git(
                "update-ref", "-m", f"commit: {subject}", "HEAD", commit, head or ZERO_SHA, check=False
            )
            if status == 0:
                self._reset_index_entries(repo_paths)
                return commit
            time.sleep(random.uniform(0.005, 0.02) * min(attempt + 1, 10))
        raise GitError("the vault repository kept changing while committing", "try again")

    def _reset_index_entries(self, repo_paths: list[str]) -> None:
        """Make the person's index agree with the new HEAD for exactly these paths."""
        with tempfile.NamedTemporaryFile("wb", suffix=".pathspec", delete=False) as handle:
            handle.write("\0".join(repo_paths).encode("utf-8"))
            spec = handle.name
        try:
            for attempt in range(20):  # the index lock may be held by a concurrent git for a moment
                status = self.git("reset", "-q", f"--pathspec-from-file={spec}", "--pathspec-file-nul", check=False)
                if status[0] == 0 or not (Path(self.repo.git_dir) / "index.lock").exists():
                    break
                time.sleep(0.02 * (attempt + 1))
        finally:
            os.unlink(spec)

    def _scan_staged(self, env: dict[str, str], head: str | None, keywords: Sequence[str]) -> list[Finding]:
        """Scan the lines being added (temp index vs HEAD, renames followed). The temp index differs
        from HEAD only in the paths being committed, so no pathspec is needed."""
        base = head or EMPTY_TREE
        out = self.git(
            "diff",
            "--cached",
            "-M",
            "-U0",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            base,
            env=env,
            strip=False,
        )[1]
        findings: list[Finding] = []
        for path, number, line in _added_lines(out):
            shown = self.vault_path(path) or PurePosixPath(path)
            for finding in scan_text(line, keywords):
                findings.append(Finding(number, finding.kind, finding.excerpt_masked, shown.as_posix()))
        return findings

    def commit_changeset(
        self, changeset: ChangeSet, *, allow_secret: bool = False, sensitive_keywords: Sequence[str] = ()
    ) -> str | None:
        return self.commit_paths(
            changeset.paths,
            changeset.subject,
            changeset.body(),
            allow_secret=allow_secret,
            sensitive_keywords=sensitive_keywords,
        )

    # -- review gate ---------------------------------------------------------------------------

    def pending_changes(self, with_diff: bool = True) -> list[PendingChange]:
        """Uncommitted changes under the vault (working tree vs HEAD, staged or not), hand moves paired
        by the memory `id`, plus tracked files that still hold conflict markers."""
        head = self.head_commit()
        spec = self.scope_spec
        changes: dict[str, PendingChange] = {}
        staged: set[str] = set()
        if head:
            out = self.git("diff", "HEAD", "--name-status", "--no-renames", "-z", "--", spec, strip=False)[1]
            tokens = out.split("\0")
            for status, path in zip(tokens[0::2], tokens[1::2], strict=False):
                kind = {"M": "modified", "A": "added", "D": "deleted", "T": "modified"}.get(status[:1])
                if kind:
                    changes[path] = PendingChange(PurePosixPath(path), kind)
            staged_out = self.git("diff", "--cached", "--name-only", "-z", "HEAD", "--", spec, strip=False)[1]
            staged = {p for p in staged_out.split("\0") if p}
        else:
            out = self.git("ls-files", "--cached", "-z", "--", spec, strip=False)[1]
            for path in filter(None, out.split("\0")):
                changes[path] = PendingChange(PurePosixPath(path), "added")
        untracked = self.git("ls-files", "--others", "--exclude-standard", "-z", "--", spec, strip=False)[1]
        for path in filter(None, untracked.split("\0")):
            changes[path] = PendingChange(PurePosixPath(path), "added")
        for path in self._conflicted_paths(spec):
            changes.setdefault(path, PendingChange(PurePosixPath(path), "conflict")).status = "conflict"

        tree = self.repo.commit(head).tree if head else None
        for path, change in changes.items():
            change.staged = path in staged
            text = self._worktree_text(path) if change.status != "deleted" else self._blob_text(tree, path)
            change.memory_id, change.title = _identity_of(text, path)
        self._pair_moves(changes)

        result: list[PendingChange] = []
        for path, change in sorted(changes.items()):
            if with_diff:
                old_repo = self.repo_path(change.old_path) if change.old_path else path
                old = "" if change.status == "added" else self._blob_text(tree, old_repo) or ""
                new = "" if change.status == "deleted" else self._worktree_text(path) or ""
                change.diff = _unified(old, new, old_repo, path, change.status)
            vault_rel = self.vault_path(path)
            if vault_rel is None:
                continue
            change.path = vault_rel
            result.append(change)
        return result

    def _pair_moves(self, changes: dict[str, PendingChange]) -> None:
        added = {c.memory_id: p for p, c in changes.items() if c.status == "added" and c.memory_id}
        for path, change in list(changes.items()):
            if change.status != "deleted" or not change.memory_id or change.memory_id not in added:
                continue
            new_path = added.pop(change.memory_id)
            moved = changes[new_path]
            moved.status = "renamed"
            moved.old_path = self.vault_path(path)
            moved.staged = moved.staged or change.staged
            del changes[path]

    def _conflicted_paths(self, spec: str) -> list[str]:
        unmerged = self.git("ls-files", "-u", "-z", "--", spec, strip=False)[1]
        paths = {entry.split("\t", 1)[1] for entry in unmerged.split("\0") if "\t" in entry}
        status, out, _ = self.git("grep", "-l", "-z", "-E", _CONFLICT_LINE, "--", spec, check=False, strip=False)
        if status == 0:
            paths.update(p for p in out.split("\0") if p)
        return sorted(paths)

    def _worktree_text(self, repo_path: str) -> str | None:
        try:
            return (self.workdir / repo_path).read_bytes().decode("utf-8", "replace")
        except OSError:
            return None

    def _blob_text(self, tree: Any, repo_path: str) -> str | None:
        if tree is None:
            return None
        try:
            return tree[repo_path].data_stream.read().decode("utf-8", "replace")
        except KeyError:
            return None

    def find_pending(self, path: PurePosixPath | str) -> PendingChange:
        wanted = PurePosixPath(path)
        for change in self.pending_changes(with_diff=False):
            if wanted in (change.path, change.old_path):
                return change
        raise NotFoundError(f"no uncommitted change at {wanted}", "run `aimate mem review` to list them")

    def accept(
        self,
        path: PurePosixPath | str,
        *,
        allow_secret: bool = False,
        sensitive_keywords: Sequence[str] = (),
    ) -> str | None:
        """Commit one pending change (after the secret scan). Returns the commit sha."""
        change = self.find_pending(path)
        if change.status == "conflict":
            raise InvalidInputError(
                f"{change.path} still holds conflict markers", "edit the file to resolve them, then accept it"
            )
        what = {"modified": "edit", "added": "new", "deleted": "deletion of", "renamed": "move of"}[change.status]
        title = change.title or change.path.stem
        subject = f'memory: accept {what} "{title}" ({change.path.parent.as_posix()})'
        body = f"- {change.describe()}: accepted in review"
        return self.commit_paths(
            change.paths, subject, body, allow_secret=allow_secret, sensitive_keywords=sensitive_keywords
        )

    def reject(self, path: PurePosixPath | str, now: datetime | None = None) -> list[RejectResult]:
        """Undo one pending change. Tracked files are restored from HEAD; a new file is never deleted:
        it is moved out of the vault to `<vault>/../state/rejected/<time>/<path>` (not committed, not
        indexed, recoverable)."""
        change = self.find_pending(path)
        self._refuse_if_merging()
        if change.status == "conflict":
            raise InvalidInputError(
                f"{change.path} holds conflict markers from a sync",
                "edit the file to resolve them, then accept it",
            )
        head = self.head_commit()
        tree = self.repo.commit(head).tree if head else None
        results: list[RejectResult] = []
        stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
        if change.status in ("modified", "deleted"):
            self.git("restore", "--source=HEAD", "--staged", "--worktree", "--", self.repo_path(change.path))
            return [RejectResult(change.path, "restored")]
        if change.status == "renamed" and change.old_path is not None:
            old_repo = self.repo_path(change.old_path)
            old_text = self._blob_text(tree, old_repo)
            self.git("restore", "--source=HEAD", "--staged", "--worktree", "--", old_repo)
            results.append(RejectResult(change.old_path, "restored"))
            new_file = self.vault_root / change.path.as_posix()
            if old_text is not None and self._worktree_text(self.repo_path(change.path)) == old_text:
                self._unstage(change.path)
                new_file.unlink()
                results.append(RejectResult(change.path, "deleted-copy"))
                return results
        # added, or a moved file whose content also changed: move it out, never delete it.
        results.append(self._move_out(change.path, stamp))
        return results

    def _unstage(self, rel: PurePosixPath) -> None:
        self.git("rm", "--cached", "-q", "--ignore-unmatch", "--", self.repo_path(rel))

    def _move_out(self, rel: PurePosixPath, stamp: str) -> RejectResult:
        self._unstage(rel)
        target = self.vault_root.parent / "state" / "rejected" / stamp / rel.as_posix()
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(self.vault_root / rel.as_posix()), target)
        return RejectResult(rel, "moved", target)

    def diff(self, path: PurePosixPath | str | None = None) -> str:
        changes = self.pending_changes()
        if path is not None:
            wanted = PurePosixPath(path)
            changes = [c for c in changes if wanted in (c.path, c.old_path)]
        return "".join(change.diff for change in changes)

    # -- history -------------------------------------------------------------------------------

    def log_memory(self, memory_id: str, current_path: PurePosixPath | str | None = None) -> list[LogEntry]:
        """One memory's commits, newest first, across renames and lifecycle moves.

        The paths it ever lived at come from commits whose diff adds or removes its `id:` line
        (`git log -G`, renames off); then every commit touching those paths, with renames on."""
        if not self.head_commit():
            return []
        spec = self.scope_spec
        pattern = "^id:[[:space:]]*[\"']?" + _ere_escape(memory_id) + "[\"']?[[:space:]]*$"
        out = self.git(
            "log",
            "--no-renames",
            "--format=%x01%H",
            "--name-only",
            "-z",
            "-G",
            pattern,
            "--",
            spec,
            strip=False,
        )[1]
        paths: set[str] = set()
        for record in out.split("\x01")[1:]:
            _, _, files = record.partition("\0")
            paths.update(p.strip("\n") for p in files.split("\0") if p.strip("\n"))
        if current_path is not None:
            paths.add(self.repo_path(current_path))
        if not paths:
            return []
        fmt = "--format=%x01%H%x1f%aI%x1f%an%x1f%s"
        out = self.git("log", "-M", "--name-status", "-z", fmt, "--", *sorted(paths), strip=False)[1]
        entries: list[LogEntry] = []
        for record in out.split("\x01")[1:]:
            header, _, rest = record.partition("\0")
            commit, date, author, subject = header.split("\x1f", 3)
            tokens = [t.lstrip("\n") for t in rest.split("\0")]
            touched: list[tuple[str, str, str | None]] = []  # (status, path, old)
            i = 0
            while i < len(tokens):
                status = tokens[i]
                if not status:
                    i += 1
                    continue
                if status[:1] in "RC":
                    old, new = tokens[i + 1], tokens[i + 2]
                    i += 3
                    touched.append(("R", new, old))
                else:
                    touched.append((status[:1], tokens[i + 1], None))
                    i += 2
            touched = [t for t in touched if t[1] in paths or (t[2] in paths)]
            deleted = [t for t in touched if t[0] == "D"]
            added = [t for t in touched if t[0] == "A"]
            if len(deleted) == 1 and len(added) == 1:  # a move git did not pair (content changed a lot)
                touched = [("R", added[0][1], deleted[0][1])]
            for status, path, old in touched:
                action = {"A": "add", "M": "update", "D": "delete", "R": "move", "T": "update"}.get(status, "update")
                entries.append(
                    LogEntry(
                        commit,
                        date,
                        author,
                        subject,
                        action,
                        self.vault_path(path) or PurePosixPath(path),
                        (self.vault_path(old) or PurePosixPath(old)) if old else None,
                    )
                )
        return entries

    def log_vault(self, limit: int = 20) -> list[LogEntry]:
        """Recent commits touching the vault, newest first (one entry per commit, first file shown)."""
        if not self.head_commit():
            return []
        fmt = "--format=%x01%H%x1f%aI%x1f%an%x1f%s"
        out = self.git("log", f"-n{limit}", fmt, "--name-only", "-z", "--", self.scope_spec, strip=False)[1]
        entries = []
        for record in out.split("\x01")[1:]:
            header, _, rest = record.partition("\0")
            commit, date, author, subject = header.split("\x1f", 3)
            files = [p.strip("\n") for p in rest.split("\0") if p.strip("\n")]
            first = self.vault_path(files[0]) if files else None
            entries.append(LogEntry(commit, date, author, subject, "commit", first or PurePosixPath(".")))
        return entries

    # -- configuration -------------------------------------------------------------------------

    def install_merge_driver(self) -> None:
        """Register the frontmatter merge driver in this clone's `.git/config` (not shared by git)."""
        with self.repo.config_writer() as config:
            config.set_value(f'merge "{DRIVER_NAME}"', "name", "AIMate memory frontmatter merge")
            config.set_value(f'merge "{DRIVER_NAME}"', "driver", merge_driver_command())
            config.set_value("core", "quotepath", "false")


def merge_driver_command() -> str:
    python = sys.executable
    quoted = f'"{python}"' if any(ch.isspace() for ch in python) else python
    return f"{quoted} -m aimate_memory.git.merge %O %A %B %P"


# -- helpers ----------------------------------------------------------------------------------------


def _ere_escape(text: str) -> str:
    return re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", text)


def _identity_of(text: str | None, repo_path: str) -> tuple[str | None, str | None]:
    if not text or not repo_path.endswith(".md"):
        return None, None
    try:
        doc = parse_document(text, Path(repo_path))
    except MemoryFileError:
        return None, None
    memory_id = doc.get("id")
    title = doc.get("title")
    return (str(memory_id) if memory_id else None), (str(title) if title else None)


def _unified(old: str, new: str, old_path: str, new_path: str, status: str) -> str:
    a = "/dev/null" if status == "added" else f"a/{old_path}"
    b = "/dev/null" if status == "deleted" else f"b/{new_path}"
    old_lines = [line if line.endswith("\n") else line + "\n" for line in old.splitlines(keepends=True)]
    new_lines = [line if line.endswith("\n") else line + "\n" for line in new.splitlines(keepends=True)]
    lines = list(difflib.unified_diff(old_lines, new_lines, a, b))
    if not lines:
        return f"--- {a}\n+++ {b}\n" if old_path != new_path else ""
    return "".join(lines)


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def _added_lines(diff_text: str) -> Iterator[tuple[str, int, str]]:
    """(path, new line number, text) for each added line of a `git diff -U0` output."""
    path = ""
    number = 0
    for line in diff_text.split("\n"):
        if line.startswith("+++ "):
            target = line[4:]
            if target.startswith('"') and target.endswith('"'):
                target = target[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
                target = target.encode("latin-1", "replace").decode("utf-8", "replace")
            path = target[2:] if target.startswith("b/") else target
            continue
        if line.startswith("@@"):
            match = _HUNK.match(line)
            number = int(match.group(1)) if match else 0
            continue
        if line.startswith("+") and not line.startswith("+++"):
            yield path, number, line[1:]
            number += 1


# -- module-level API -------------------------------------------------------------------------------


def _ensure_lines(path: Path, lines: Sequence[str]) -> bool:
    """Append the lines a file lacks (a person's own lines are kept). Returns True when it changed."""
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    present = {line.strip() for line in existing.splitlines()}
    missing = [line for line in lines if line.strip() not in present]
    if not missing:
        return False
    prefix = existing if not existing or existing.endswith("\n") else existing + "\n"
    path.write_text(prefix + "\n".join(missing) + "\n", encoding="utf-8")
    return True


def init_vault_repo(vault_root: Path, author: str | None = None, sensitive_keywords: Sequence[str] = ()) -> VaultRepo:
    """Make the global vault its own git repository. Idempotent: writes `.gitattributes` and
    `.gitignore` (adding only missing lines), registers the merge driver, commits what is there."""
    vault_root = Path(vault_root)
    vault_root.mkdir(parents=True, exist_ok=True)
    if not (vault_root / ".git").exists():
        git.Repo.init(vault_root, initial_branch=DEFAULT_BRANCH).close()
    repo = VaultRepo(vault_root, author, own_repo=True)
    repo.install_merge_driver()
    _ensure_lines(vault_root / ".gitattributes", GITATTRIBUTES_LINES)
    _ensure_lines(vault_root / ".gitignore", GITIGNORE_LINES)
    if repo.head_commit() is None:
        pending = repo.pending_changes(with_diff=False)
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
        repo.install_merge_driver()
    return _ensure_lines(Path(vault_root) / ".gitattributes", GITATTRIBUTES_LINES)


def commit_changeset(
    vault_root: Path,
    changeset: ChangeSet,
    author: str | None = None,
    allow_secret: bool = False,
    sensitive_keywords: Sequence[str] = (),
) -> str | None:
    """One commit for one tool action: subject = changeset.subject, body = one line per file and reason."""
    with VaultRepo(vault_root, author) as repo:
        return repo.commit_changeset(changeset, allow_secret=allow_secret, sensitive_keywords=sensitive_keywords)


def commit_paths(
    vault_root: Path,
    paths: Iterable[PurePosixPath | str],
    subject: str,
    body: str = "",
    author: str | None = None,
    allow_secret: bool = False,
    sensitive_keywords: Sequence[str] = (),
) -> str | None:
    with VaultRepo(vault_root, author) as repo:
        return repo.commit_paths(paths, subject, body, allow_secret=allow_secret, sensitive_keywords=sensitive_keywords)


def commit_pending(
    vault_root: Path,
    subject: str,
    author: str | None = None,
    allow_secret: bool = False,
    sensitive_keywords: Sequence[str] = (),
) -> str | None:
    """Commit every uncommitted memory change in the vault (`aimate mem commit -m`), vault paths only."""
    with VaultRepo(vault_root, author) as repo:
        pending = repo.pending_changes(with_diff=False)
        marked = [change.path for change in pending if change.status == "conflict"]
        if marked:
            raise InvalidInputError(
                f"{marked[0]} holds conflict markers" + (f" (and {len(marked) - 1} more)" if len(marked) > 1 else ""),
                "resolve the conflicts first; `aimate mem review` lists them",
            )
        paths = [path for change in pending for path in change.paths]
        body = "\n".join(f"- {change.describe()}" for change in pending)
        return repo.commit_paths(paths, subject, body, allow_secret=allow_secret, sensitive_keywords=sensitive_keywords)


def pending_changes(vault_root: Path, with_diff: bool = True) -> list[PendingChange]:
    with VaultRepo(vault_root) as repo:
        return repo.pending_changes(with_diff=with_diff)


def accept(
    vault_root: Path,
    path: PurePosixPath | str,
    author: str | None = None,
    allow_secret: bool = False,
    sensitive_keywords: Sequence[str] = (),
) -> str | None:
    with VaultRepo(vault_root, author) as repo:
        return repo.accept(path, allow_secret=allow_secret, sensitive_keywords=sensitive_keywords)


def reject(vault_root: Path, path: PurePosixPath | str) -> list[RejectResult]:
    with VaultRepo(vault_root) as repo:
        return repo.reject(path)


def diff(vault_root: Path, path: PurePosixPath | str | None = None) -> str:
    with VaultRepo(vault_root) as repo:
        return repo.diff(path)


def log_memory(vault_root: Path, memory_id: str, current_path: PurePosixPath | str | None = None) -> list[LogEntry]:
    with VaultRepo(vault_root) as repo:
        return repo.log_memory(memory_id, current_path)


# -- automatic commits ------------------------------------------------------------------------------


class GitCommitter:
    """`MemorySystem.on_change` listener: one commit per tool action in the GLOBAL vault when
    `git.auto_commit` is true and the vault is a repository. Project vaults are never auto-committed.

    `config` is a Config or a callable returning one (read at each call, so `config set` applies).
    A secret in what the action wrote raises SecretFoundError: the file is saved, the commit refused.
    """

    def __init__(self, config: Any | Callable[[], Any]) -> None:
        self._config = config

    def config(self) -> Any:
        return self._config() if callable(self._config) else self._config

    def __call__(self, vault: Any, changeset: ChangeSet) -> str | None:
        from aimate_memory.vault.layout import Scope

        if vault.scope is not Scope.GLOBAL or not changeset:
            return None
        config = self.config()
        if not config.get("git.auto_commit") or not (Path(vault.root) / ".git").exists():
            return None
        try:
            return commit_changeset(
                vault.root,
                changeset,
                author=config.get("git.author"),
                sensitive_keywords=config.get("privacy.sensitive_keywords") or (),
                allow_secret=changeset.allow_secret,
            )
        except SecretFoundError as error:
            error.message = error.message.replace("not committed", "saved but not committed")
            error.args = (error.message,)
            error.hint = "remove it, then `aimate mem commit -m MSG`; or pass --allow-secret after a person checked"
            raise


def attach_auto_commit(system: Any) -> GitCommitter:
    """Register a GitCommitter on a MemorySystem (reads `system.config` at each change)."""
    committer = GitCommitter(lambda: system.config)
    system.on_change(committer)
    return committer


# -- sync -------------------------------------------------------------------------------------------


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
            repo.install_merge_driver()
            return result
    else:
        if not (vault_root / ".git").exists():
            init_vault_repo(vault_root, author, sensitive_keywords).close()
            result.actions.append("initialized")
        repo = VaultRepo(vault_root, author, own_repo=True)
    with repo:
        repo._refuse_if_merging()
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
    env = repo._identity_env()
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


_DIRTY_HINT = "commit or review your uncommitted memory changes first (`aimate mem review`), then sync again"


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
