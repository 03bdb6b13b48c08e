"""The vault's git repository handle: where the vault sits in it, running git, who commits, and
building one commit of exactly the given paths (docs/design.md §8).

Every commit the tool makes is built in a TEMPORARY index (`GIT_INDEX_FILE`): `read-tree HEAD`, stage
only the given paths, scan what is staged for secrets, `write-tree`, `commit-tree`, `update-ref`.
Staging writes its blobs and trees into a QUARANTINE object folder (`GIT_OBJECT_DIRECTORY`, the real
objects as an alternate, as git's own receive-pack does), and only a staging that passed the secret
guard is moved into `.git/objects`: a refused commit leaves no blob holding the secret behind. The guard
reads what git stores — every staged blob as bytes in any encoding, every new path, the commit message —
never a `git diff`, which `.gitattributes` (`*.md -diff`), a NUL byte or UTF-16 turn into "Binary files
differ" (docs/reliability.md "Security").
The person's own index is never used to build a commit, so in a project repository their other staged
and unstaged files stay exactly as they were; afterwards only the committed paths' index entries are
reset to the new HEAD so `git status` agrees.

The global vault (`$AIMATE_HOME/memory`) is its own repository; a project vault
(`{project}/.aimate/memory`) lives inside the project's repository, under a path prefix.
Reading changes is in `review.py`, history in `history.py`, sync in `sync.py`, first-time setup in
`setup.py`, automatic commits in `committer.py`.
"""

from __future__ import annotations

import logging
import os
import random
import re
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, NamedTuple

from aimate_memory.errors import AimateError, InvalidInputError
from aimate_memory.git.command import GIT
from aimate_memory.git.secrets import Finding, scan_bytes, scan_text
from aimate_memory.vault.changes import ChangeSet
from aimate_memory.vault.hashing import git_blob_id

log = logging.getLogger(__name__)

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
ZERO_SHA = "0" * 40
SECRET_HINT = "remove it, or pass --allow-secret after a person checked"
QUARANTINE_PREFIX = "aimate-quarantine-"
STALE_QUARANTINE_SECONDS = 3600.0  # one left by a process killed mid-commit is removed by the next commit
MESSAGE_PATH = "(commit message)"
_AUTHOR = re.compile(r"^\s*(?P<name>[^<>]*?)\s*<(?P<email>[^<>]*)>\s*$")


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


DEFAULT_IDENTITY = Identity("AIMate", "aimate@localhost")  # commits in the vault's own repository


# -- the repository ---------------------------------------------------------------------------------


class RepoPaths(NamedTuple):
    """Where a repository is: its working tree's top (None for a bare repository) and its git folder; and,
    asked in the same `git rev-parse`, its object folder and HEAD's commit (`head_known` False: not read)."""

    workdir: Path | None
    git_dir: Path
    objects: Path | None = None
    head: str | None = None
    head_known: bool = False


# What `git rev-parse` is asked to find a repository by: the folder's own, never one these name.
_LOCATING_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR")


# One `rev-parse` for what opening a vault's repository asks: bare or not, the git folder, the top, the object
# folder (relative to the folder asked from) and HEAD's commit (exit 1 and no line when HEAD is unborn).
_OPEN_QUESTIONS = ("--is-bare-repository", "--absolute-git-dir", "--show-toplevel", "--git-path", "objects",
                   "--verify", "-q", "HEAD^{commit}")  # fmt: skip


def find_repo(folder: Path, search_parent_directories: bool = False) -> RepoPaths | None:
    """The repository holding `folder` — with `search_parent_directories`, in it or any folder above; without,
    only one whose top `folder` is — by one `git rev-parse`; None when there is none. The tool ran GitPython for
    this and for running git (docs/design.md, "What a command no longer loads for nothing"): its import was
    ~55 ms of CPU in every command that commits or reads history, for what one git process answers. The same
    process names the object folder and HEAD's commit, which a commit asked two more processes for
    (docs/design.md §8, "What a commit runs"); an unborn HEAD makes it exit 1 after the other answers."""
    folder = Path(folder)
    if not folder.is_dir() or (not search_parent_directories and not (folder / ".git").exists()):
        return None
    env = {key: value for key, value in os.environ.items() if key not in _LOCATING_ENV}
    done = subprocess.run(
        [*GIT, "rev-parse", *_OPEN_QUESTIONS],
        cwd=folder,
        env={**env, "LANGUAGE": "C", "LC_ALL": "C"},
        capture_output=True,
        check=False,
    )
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) >= 2 and lines[0] == "true":  # a bare repository: rev-parse stops at --show-toplevel
        return RepoPaths(None, Path(lines[1]))
    if len(lines) < 4 or lines[0] != "false":
        return None
    objects = Path(lines[3]) if Path(lines[3]).is_absolute() else folder / lines[3]  # relative to `cwd`
    if done.returncode == 0 and len(lines) == 5:
        return RepoPaths(Path(lines[2]), Path(lines[1]), objects, lines[4], True)
    return RepoPaths(Path(lines[2]), Path(lines[1]), objects, None, done.returncode == 1 and len(lines) == 4)


def init_repo(folder: Path, branch: str) -> None:
    """`git init` of `folder` with `branch` as its first branch."""
    done = subprocess.run(
        [*GIT, "init", "-q", f"--initial-branch={branch}", str(folder)],
        env={**os.environ, "LANGUAGE": "C", "LC_ALL": "C"},
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise GitError(f"git init failed: {done.stderr.decode('utf-8', 'replace').strip()}", "see git's message above")


class HeadTree(NamedTuple):
    """HEAD's commit, as read once by `VaultRepo.head_tree`: the files of that version are read from it."""

    commit: str


class VaultRepo:
    """A vault folder and the git repository holding it (the vault itself, or a project above it)."""

    def __init__(self, vault_root: Path, author: str | None = None, own_repo: bool = False) -> None:
        self.vault_root = Path(vault_root)
        self.configured_author = author
        found = find_repo(self.vault_root, search_parent_directories=not own_repo)
        if found is None:
            raise GitError(
                f"{self.vault_root} is not in a git repository",
                "run `aimate mem init` for the global vault, or `git init` in the project",
            )
        if found.workdir is None:
            raise GitError(f"{found.git_dir} is a bare repository", "use a vault with a working tree")
        self.workdir = found.workdir
        self.git_dir = found.git_dir
        rel = self.vault_root.resolve().relative_to(self.workdir.resolve())
        self.prefix = PurePosixPath(rel.as_posix())  # PurePosixPath(".") for a vault that is the repo
        self._objects: Path | None = found.objects
        # HEAD as the open read it, for the first commit's first try only (`_commit_repo_paths`): a HEAD that
        # moved since fails that try's compare-and-swap, and the commit is built again on the new one.
        self._head_at_open: tuple[str | None] | None = (found.head,) if found.head_known else None
        self._user_config: dict[str, str] | None = None  # git's user.name/user.email, read once
        self._reader: subprocess.Popen[bytes] | None = None  # `git cat-file --batch`, started at first need

    def close(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            assert reader.stdin is not None and reader.stdout is not None
            reader.stdin.close()
            reader.stdout.close()
            reader.wait()

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

    # -- reading files -------------------------------------------------------------------------

    def worktree_text(self, repo_path: str) -> str | None:
        data = self.worktree_bytes(repo_path)
        return data.decode("utf-8", "replace") if data is not None else None

    def worktree_bytes(self, repo_path: str) -> bytes | None:
        try:
            return (self.workdir / repo_path).read_bytes()
        except OSError:
            return None

    def head_tree(self) -> HeadTree | None:
        head = self.head_commit()
        return HeadTree(head) if head else None

    def blob_text(self, tree: HeadTree | None, repo_path: str) -> str | None:
        data = self.blob_bytes(tree, repo_path)
        return data.decode("utf-8", "replace") if data is not None else None

    def blob_bytes(self, tree: HeadTree | None, repo_path: str) -> bytes | None:
        """The file at `repo_path` in that version, None when it has none: read through one `git cat-file
        --batch` kept for this handle (a review or a timeline reads one per changed file)."""
        if tree is None:
            return None
        if "\n" in repo_path:  # a batch line cannot hold it: one process for this one
            done = subprocess.run([*GIT, "cat-file", "blob", f"{tree.commit}:{repo_path}"], cwd=self.workdir,
                                  capture_output=True, check=False)  # fmt: skip
            return done.stdout if done.returncode == 0 else None
        reader = self._batch_reader()
        assert reader.stdin is not None and reader.stdout is not None
        reader.stdin.write(f"{tree.commit}:{repo_path}\n".encode("utf-8", "surrogateescape"))
        reader.stdin.flush()
        header = reader.stdout.readline().split()
        if len(header) != 3:  # "<name> missing" (or "ambiguous")
            return None
        data = _read_exactly(reader.stdout, int(header[2]) + 1)[:-1]
        return data if header[1] == b"blob" else None

    def _batch_reader(self) -> subprocess.Popen[bytes]:
        if self._reader is None:
            self._reader = subprocess.Popen(
                [*GIT, "cat-file", "--batch"],
                cwd=self.workdir,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env={**os.environ, "LANGUAGE": "C", "LC_ALL": "C"},
            )
        return self._reader

    # -- plumbing ------------------------------------------------------------------------------

    def git(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        check: bool = True,
        stdin: str | None = None,
        strip: bool = True,
    ) -> tuple[int, str, str]:
        command = [*GIT, "-c", "core.quotepath=false", "--literal-pathspecs", *args]
        if stdin is not None:
            with tempfile.TemporaryFile() as handle:
                handle.write(stdin.encode("utf-8"))
                handle.seek(0)
                return self._run(command, env, check, handle, strip)
        return self._run(command, env, check, None, strip)

    def _run(
        self, command: list[str], env: dict[str, str] | None, check: bool, istream: IO[bytes] | None, strip: bool
    ) -> tuple[int, str, str]:
        """Run git in the working tree with git's messages in English (the tool reads some of them), stdin from
        `istream` or nothing; stdout and stderr as text (bytes that are not UTF-8 kept as surrogates), stdout's
        last newline stripped when `strip`, stderr's always."""
        done = subprocess.run(
            command,
            cwd=self.workdir,
            env={**os.environ, "LANGUAGE": "C", "LC_ALL": "C", **(env or {})},
            stdin=istream if istream is not None else subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
        out = done.stdout.decode("utf-8", "surrogateescape")
        err = done.stderr.decode("utf-8", "surrogateescape").removesuffix("\n")
        out = out.removesuffix("\n") if strip else out
        if check and done.returncode != 0:
            shown = " ".join(command[4:7])
            raise GitError(f"git {shown} failed: {(err or out).strip()}", "see git's message above")
        return done.returncode, out, err

    def head_commit(self) -> str | None:
        status, out, _ = self.git("rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
        return out.strip() if status == 0 else None

    def head_as_opened(self) -> str | None:
        """HEAD's commit as opening the handle read it (no process), for a caller that has not committed or
        merged since; `head_commit` when the open could not read it."""
        return self._head_at_open[0] if self._head_at_open is not None else self.head_commit()

    def branch(self) -> str:
        status, out, _ = self.git("symbolic-ref", "--short", "-q", "HEAD", check=False)
        if status != 0:
            raise GitError("the vault repository is on a detached HEAD", "check out a branch, e.g. `git switch main`")
        return out.strip()

    def identity(self) -> Identity:
        """`git.author` config, else GIT_AUTHOR_* env, else git's user.name/email, else — only in the global
        vault's own repository — the default. A project's repository is the team's: a commit there is the
        person's, so without an identity it is refused rather than authored by `AIMate <aimate@localhost>`."""
        configured = parse_author(self.configured_author)
        if configured:
            return configured
        name, email = os.environ.get("GIT_AUTHOR_NAME"), os.environ.get("GIT_AUTHOR_EMAIL")
        if name and email:
            return Identity(name, email)
        user = self.user_config()
        if user.get("user.name", "").strip() and user.get("user.email", "").strip():
            return Identity(user["user.name"].strip(), user["user.email"].strip())
        if not self.is_own_repo:
            raise GitError(
                f"no git identity to commit in the project repository at {self.workdir}",
                'set yours: git config --global user.name "Your Name" && '
                "git config --global user.email you@example.com",
            )
        return DEFAULT_IDENTITY

    def user_config(self) -> dict[str, str]:
        """git's `user.name` and `user.email` as `git config --get` answers them (the last value of each; a key
        that is not set is absent), in one process asked once per handle: the author and the committer asked
        `config --get` four times a commit (docs/design.md §8, "What a commit runs")."""
        if self._user_config is None:
            status, out, _ = self.git("config", "-z", "--get-regexp", r"^user\.(name|email)$", check=False, strip=False)
            self._user_config = {}
            for entry in out.split("\0") if status == 0 else ():
                key, newline, value = entry.partition("\n")
                if key in ("user.name", "user.email"):
                    self._user_config[key] = value if newline else ""
        return self._user_config

    def identity_env(self) -> dict[str, str]:
        author = self.identity()
        env = {"GIT_AUTHOR_NAME": author.name, "GIT_AUTHOR_EMAIL": author.email}
        committer_name = os.environ.get("GIT_COMMITTER_NAME")
        committer_email = os.environ.get("GIT_COMMITTER_EMAIL")
        if not (committer_name and committer_email):
            user = self.user_config()
            if "user.name" in user and "user.email" in user:
                committer_name, committer_email = user["user.name"].strip(), user["user.email"].strip()
            else:
                committer_name, committer_email = author.name, author.email
        env["GIT_COMMITTER_NAME"] = committer_name
        env["GIT_COMMITTER_EMAIL"] = committer_email
        return env

    def in_merge(self) -> bool:
        git_dir = self.git_dir
        return any((git_dir / name).exists() for name in ("MERGE_HEAD", "REBASE_HEAD", "CHERRY_PICK_HEAD")) or (
            (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists()
        )

    def refuse_if_merging(self) -> None:
        if self.in_merge():
            raise GitError(
                f"the repository at {self.workdir} is in the middle of a merge or rebase",
                "finish it (`git merge --continue` / `git rebase --continue`) or abort it, then retry",
            )

    @contextmanager
    def _temp_index(self) -> Iterator[dict[str, str]]:
        """A temp index, and a quarantine object folder that objects written through it go to (inside the
        git folder, so admitting is a rename on the same file system); removed on the way out."""
        objects = self.objects_dir()
        _remove_stale_quarantines(objects.parent)
        with (
            tempfile.TemporaryDirectory(prefix="aimate-index-") as folder,
            tempfile.TemporaryDirectory(prefix=QUARANTINE_PREFIX, dir=objects.parent) as quarantine,
        ):
            alternates = os.pathsep.join(
                filter(None, [str(objects), os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES", "")])
            )
            yield {
                "GIT_INDEX_FILE": str(Path(folder) / "index"),
                "GIT_OBJECT_DIRECTORY": quarantine,
                "GIT_ALTERNATE_OBJECT_DIRECTORIES": alternates,
            }

    def objects_dir(self) -> Path:
        """The repository's object folder (a linked worktree's is its main repository's); asked once."""
        if self._objects is None:
            path = Path(self.git("rev-parse", "--git-path", "objects")[1].strip())
            self._objects = path if path.is_absolute() else self.workdir / path
        return self._objects

    def _admit(self, env: dict[str, str]) -> None:
        """Move the quarantine's objects into the repository: loose objects by rename (git names them by
        content, so one already there is the same), packs with their index last."""
        quarantine, objects = Path(env["GIT_OBJECT_DIRECTORY"]), self.objects_dir()
        files = sorted((p for p in quarantine.rglob("*") if p.is_file()), key=lambda p: p.suffix == ".idx")
        for source in files:
            target = objects / source.relative_to(quarantine)
            if target.exists():
                continue
            target.parent.mkdir(exist_ok=True)
            os.replace(source, target)

    # -- committing ----------------------------------------------------------------------------

    def commit_paths(
        self,
        paths: Iterable[PurePosixPath | str],
        subject: str,
        body: str = "",
        *,
        allow_secret: bool = False,
        sensitive_keywords: Sequence[str] = (),
        scanned_clean: Collection[str] = (),
    ) -> str | None:
        """Commit the current content of these vault paths (deletions included) and nothing else.

        Returns the new commit's sha, or None when the paths hold no change. Raises SecretFoundError
        (nothing committed) when what would be committed looks like a secret, unless `allow_secret`.
        `scanned_clean`: blob ids the caller scanned with the same keywords and found clean (not read again).
        """
        repo_paths = sorted({self.repo_path(path) for path in paths})
        if not repo_paths:
            return None
        return self._commit_repo_paths(repo_paths, subject, body, allow_secret, sensitive_keywords, scanned_clean)

    def _commit_repo_paths(
        self,
        repo_paths: list[str],
        subject: str,
        body: str,
        allow_secret: bool,
        sensitive_keywords: Sequence[str],
        scanned_clean: Collection[str] = (),
    ) -> str | None:
        self.refuse_if_merging()
        locks: list[Path] = []
        message = commit_message(subject, body)
        reflog = f"commit: {message.splitlines()[0]}"
        locked_since: float | None = None  # when a lock was first found in the way
        opened, self._head_at_open = self._head_at_open, None
        for attempt in range(40):
            head = opened[0] if opened is not None and attempt == 0 else self.head_commit()
            with self._staged(repo_paths, head) as env:
                # What the temp index changes against HEAD, in one `diff-index`: none is "no change" (HEAD's own
                # tree; an unborn HEAD's first commit is made even empty, as before), else the secret guard's
                # list and the entries the person's index takes afterwards.
                changes = self._staged_changes(env, head)
                if head and not changes:
                    if opened is not None and attempt == 0 and self.head_commit() != head:
                        continue  # HEAD moved since the open: "no change" is asked of the new one
                    return None
                entries = self._index_entries(env, repo_paths, changes)
                if not allow_secret:
                    findings = self._scan_staged(env, changes, sensitive_keywords, scanned_clean)
                    findings += _scan_message(f"{subject}\n\n{body}", sensitive_keywords)
                    if findings:
                        raise SecretFoundError(findings)  # the quarantine goes with its objects
                tree = self.git("write-tree", env=env)[1].strip()
                self._admit(env)
            parents = ["-p", head] if head else []
            # The message goes through stdin: as an argument, a body of thousands of lines passes the
            # kernel's argument limit (~128 KiB) and git never starts (docs/reliability.md).
            commit = self.git("commit-tree", tree, *parents, "-F", "-", env=self.identity_env(), stdin=message)[
                1
            ].strip()
            # Compare-and-swap: another writer (daemon, second CLI) that moved HEAD meanwhile makes
            # this fail; then the commit is rebuilt on the new HEAD. Nothing is overwritten.
            status, _, _ = self.git("update-ref", "-m", reflog, "HEAD", commit, head or ZERO_SHA, check=False)
            if status == 0:
                self._reset_index_entries(repo_paths, entries)
                return commit
            locks = [lock for lock in self._head_locks() if lock.exists()]
            if locks and all(_remove_stale_lock(lock) for lock in locks):
                continue  # left by a git killed mid-update (tests/reliability/test_kill9.py): no wait
            if locks:
                locked_since = time.monotonic() if locked_since is None else locked_since
                if time.monotonic() - locked_since > LOCK_WAIT_SECONDS:
                    break  # a live git's: said below, the change waits in review
            time.sleep(random.uniform(0.005, 0.02) * min(attempt + 1, 10))
        if locks:
            raise GitError(
                f"the vault repository is locked by {locks[0]}; nothing was committed",
                "if no git command is running in it, delete that file; the change waits in `aimate mem review`",
            )
        raise GitError("the vault repository kept changing while committing", "try again")

    def _head_locks(self) -> list[Path]:
        """The lock files an update of HEAD takes: HEAD's own and its branch's."""
        git_dir = self.git_dir
        branch = self.git("symbolic-ref", "-q", "HEAD", check=False)[1].strip()
        return [git_dir / "HEAD.lock", *([git_dir / f"{branch}.lock"] if branch else [])]

    @contextmanager
    def _staged(self, repo_paths: list[str], head: str | None) -> Iterator[dict[str, str]]:
        """A temp index holding `head` (HEAD's commit as read) plus the current content of `repo_paths`. Its
        tree is written only by a commit (`write-tree`), not for a change list or a secret check."""
        with self._temp_index() as env:
            if head:
                self.git("read-tree", head, env=env)
            self.git("update-index", "--add", "--remove", "-z", "--stdin", env=env, stdin="\0".join(repo_paths))
            yield env

    def _staged_changes(self, env: dict[str, str], head: str | None) -> list[_RawChange]:
        """What the temp index changes against `head` (every entry, submodules included), by `diff-index`."""
        out = self.git(
            "diff-index", "--cached", "-z", "-M", "--abbrev=40", "--no-ext-diff", head or EMPTY_TREE, env=env
        )[1]
        return list(_raw_changes(out))

    def secret_findings(
        self,
        paths: Iterable[PurePosixPath | str],
        sensitive_keywords: Sequence[str] = (),
        scanned_clean: Collection[str] = (),
    ) -> list[Finding]:
        """What committing these vault paths would add that looks like a secret (nothing is committed);
        each finding's `path` is vault-relative."""
        repo_paths = sorted({self.repo_path(path) for path in paths})
        if not repo_paths:
            return []
        head = self.head_commit()
        with self._staged(repo_paths, head) as env:
            return self._scan_staged(env, self._staged_changes(env, head), sensitive_keywords, scanned_clean)

    def _index_entries(self, env: dict[str, str], repo_paths: list[str], changes: list[_RawChange]) -> dict[str, str]:
        """`mode sha stage` of each of these paths in the temp index (a deleted path has none). A changed path's
        is in `diff-index`'s line (the temp index has no conflict stages); only when some path is unchanged is
        the temp index listed (`ls-files`), which every commit ran before (docs/design.md §8)."""
        entries = {c.path: f"{c.new_mode} {c.new_sha} 0" for c in changes if c.new_sha != ZERO_SHA}
        named = {c.path for c in changes} | {c.old_path for c in changes if c.status == "R" and c.old_path}
        if named >= set(repo_paths):
            return entries
        wanted = set(repo_paths)
        entries = {}
        for line in self.git("ls-files", "-s", "-z", env=env, strip=False)[1].split("\0"):
            info, _, path = line.partition("\t")
            if path in wanted:
                entries[path] = info
        return entries

    def _reset_index_entries(self, repo_paths: list[str], entries: dict[str, str]) -> None:
        """Make the person's index agree with the new HEAD for exactly these paths (what `git reset -- PATHS`
        does): each path's entry as committed (`entries`, from the temp index), or removed, through
        `update-index --index-info`, then a stat refresh. `git reset --pathspec-from-file` matched every
        pathspec against every index entry: 28 s for 20,000 files (issue 38)."""
        lines = "\0".join(
            f"{entries[path]}\t{path}" if path in entries else f"0 {ZERO_SHA}\t{path}" for path in repo_paths
        )
        lock = self.git_dir / "index.lock"
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        for attempt in range(20):  # the index lock may be held by a concurrent git for a moment
            status = self.git("update-index", "-z", "--index-info", stdin=lines + "\0", check=False)
            if status[0] == 0 or not lock.exists():
                break
            if _remove_stale_lock(lock):  # a git killed mid-write (tests/reliability/test_kill9.py): no wait
                continue
            if time.monotonic() > deadline:  # a live git's: the commit stands, the person's index catches up
                break
            time.sleep(0.02 * (attempt + 1))
        self.git("update-index", "-q", "--refresh", check=False)  # stat data, so `git status` need not hash them

    def _scan_staged(
        self,
        env: dict[str, str],
        staged: list[_RawChange],
        keywords: Sequence[str],
        scanned_clean: Collection[str] = (),
    ) -> list[Finding]:
        """Scan what the temp index would store that HEAD does not: each new or changed blob as bytes (a
        secret already in the version it replaces is not new), and each new path's name. Nothing of git's
        diff machinery is involved, so attributes (`-diff`, `binary`) and encodings cannot hide a line.
        A blob in `scanned_clean` was scanned by the writer (same bytes, same keywords): not read again; the
        version a blob replaces is read only when the new one holds something."""
        findings: list[Finding] = []
        changes = [c for c in staged if SUBMODULE not in (c.old_mode, c.new_mode)]  # they name commits, not blobs
        clean = set(scanned_clean)
        blobs = self._staged_blobs(env, [c for c in changes if c.new_sha != c.old_sha and c.new_sha not in clean])
        found_in = {c.new_sha: scan_bytes(blobs[c.new_sha], keywords) for c in changes if c.new_sha in blobs}
        known = self._blobs(env, {c.old_sha for c in changes if found_in.get(c.new_sha)})
        for change in changes:
            shown = (self.vault_path(change.path) or PurePosixPath(change.path)).as_posix()
            if change.status in "ACR":
                findings += [Finding(0, f.kind, f.excerpt_masked, shown) for f in scan_text(change.path, keywords)]
            if not found_in.get(change.new_sha) or change.new_sha == change.old_sha:
                continue
            found = scan_bytes(blobs[change.new_sha], keywords, known=known.get(change.old_sha))
            findings += [Finding(f.line, f.kind, f.excerpt_masked, shown) for f in found]
        return findings

    def _staged_blobs(self, env: dict[str, str], changes: list[_RawChange]) -> dict[str, bytes]:
        """The bytes of these changes' new blobs. A regular file in the working tree whose bytes hash to the
        staged blob's id holds exactly what git stored (the id is their SHA-1), so it is read there and costs
        no process; the others — a filter or `eol` changed the bytes, a symlink, a file changed since it was
        staged — through `cat-file --batch` from the quarantine, as every blob was (docs/design.md §8)."""
        blobs: dict[str, bytes] = {}
        for change in changes:
            if change.new_mode not in ("100644", "100755") or change.new_sha in blobs:
                continue
            try:  # never a FIFO or a device: only a regular file is opened
                regular = stat.S_ISREG(os.lstat(self.workdir / change.path).st_mode)
            except OSError:
                continue
            data = self.worktree_bytes(change.path) if regular else None
            if data is not None and git_blob_id(data) == change.new_sha:
                blobs[change.new_sha] = data
        return blobs | self._blobs(env, {c.new_sha for c in changes} - set(blobs))

    def read_blobs(self, shas: set[str]) -> dict[str, bytes]:
        """The content of these blobs, by sha, in one `git cat-file --batch` (missing ones are absent)."""
        return self._blobs({}, shas)

    def _blobs(self, env: dict[str, str], shas: set[str]) -> dict[str, bytes]:
        """The content of these blobs (read through the quarantine and the repository); others are absent."""
        wanted = sorted(sha for sha in shas if sha and sha != ZERO_SHA)
        if not wanted:
            return {}
        done = subprocess.run(
            [*GIT, "cat-file", "--batch"],
            input="".join(f"{sha}\n" for sha in wanted).encode(),
            capture_output=True,
            cwd=self.workdir,
            env={**os.environ, **env},
            check=False,
        )
        blobs: dict[str, bytes] = {}
        data, at = done.stdout, 0
        while at < len(data):
            end = data.index(b"\n", at)
            header = data[at:end].split()
            at = end + 1
            if len(header) != 3:  # "<sha> missing"
                continue
            size = int(header[2])
            if header[1] == b"blob":
                blobs[header[0].decode()] = data[at : at + size]
            at += size + 1
        return blobs

    def commit_changeset(
        self, changeset: ChangeSet, *, allow_secret: bool = False, sensitive_keywords: Sequence[str] = ()
    ) -> str | None:
        return self.commit_paths(
            changeset.paths,
            changeset.subject,
            changeset.body(),
            allow_secret=allow_secret,
            sensitive_keywords=sensitive_keywords,
            scanned_clean=changeset.scanned_clean,
        )


# A commit subject fits one line of `git log --oneline` (git's own convention); a body lists at most
# BODY_LINES changes, then says how many more, so a commit of 20,000 files stays readable.
SUBJECT_CHARS = 72
BODY_LINES = 300


def commit_message(subject: str, body: str = "") -> str:
    """The message of a commit the tool makes: the subject's first line, cut at SUBJECT_CHARS with "…"
    (the rest of a person's `-m` opens the body), and the body's first BODY_LINES lines followed by
    "… and N more" (the commit itself still names every file)."""
    first, _, rest = subject.strip().partition("\n")
    subject = " ".join(first.split())
    if len(subject) > SUBJECT_CHARS:
        subject = subject[: SUBJECT_CHARS - 1].rstrip() + "…"
    lines = "\n\n".join(part for part in (rest.strip(), body.strip()) if part).splitlines()
    if len(lines) > BODY_LINES:
        lines = [*lines[:BODY_LINES], f"… and {len(lines) - BODY_LINES:,} more"]
    return subject + ("\n\n" + "\n".join(lines) if lines else "") + "\n"


SUBMODULE = "160000"  # a gitlink's mode


@dataclass(frozen=True)
class _RawChange:
    status: str  # A, M, D, R, C, T
    path: str
    old_sha: str
    new_sha: str
    old_mode: str = "000000"
    new_mode: str = "000000"
    old_path: str | None = None  # a rename's or copy's source


def _raw_changes(raw: str) -> Iterator[_RawChange]:
    """The entries of `git diff-index --raw -z` output (":old_mode new_mode old_sha new_sha S\0path\0",
    two paths for a rename or copy), submodule entries (mode 160000) included."""
    fields = raw.split("\0")
    at = 0
    while at < len(fields) and fields[at].startswith(":"):
        old_mode, new_mode, old_sha, new_sha, status = fields[at][1:].split()
        paths = 2 if status[0] in "RC" else 1
        path = fields[at + paths]
        source = fields[at + 1] if paths == 2 else None
        at += 1 + paths
        yield _RawChange(status[0], path, old_sha, new_sha, old_mode, new_mode, source)


def _scan_message(message: str, keywords: Sequence[str]) -> list[Finding]:
    return [Finding(f.line, f.kind, f.excerpt_masked, MESSAGE_PATH) for f in scan_text(message, keywords)]


def _remove_stale_quarantines(git_dir: Path) -> None:
    """Quarantines left by a process killed mid-commit hold unchecked objects: gone after an hour."""
    for folder in git_dir.glob(QUARANTINE_PREFIX + "*"):
        try:
            if time.time() - folder.stat().st_mtime > STALE_QUARANTINE_SECONDS:
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue


# A git killed with -9 while writing the index or a ref leaves its `*.lock` behind for good, and every
# later git command that needs that file fails. A live one can hold it untouched for a while too (`git commit` while
# its editor is open), so only a lock nobody touched for a minute is taken for debris — at once, not after a
# wait. A fresh one is waited for at most LOCK_WAIT_SECONDS: a git holds HEAD's or the index's lock for
# milliseconds, and a person's `add` waited 4-16 s on one before it said so (docs/reliability.md, "Git locks").
STALE_LOCK_SECONDS = 60.0
LOCK_WAIT_SECONDS = 1.0


def _remove_stale_lock(lock: Path) -> bool:
    """Remove a git lock (`index.lock`, `HEAD.lock`, a ref's) when nothing touched it for STALE_LOCK_SECONDS.
    Returns whether the lock is gone."""
    try:
        idle = time.time() - lock.stat().st_mtime
    except FileNotFoundError:
        return True  # gone meanwhile
    if idle < STALE_LOCK_SECONDS:
        return False
    log.warning("removed %s, left by a git process that was killed %.0f s ago", lock, idle)
    lock.unlink(missing_ok=True)
    return True


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    chunks, left = [], size
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            raise GitError("git cat-file ended early", "try again")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
