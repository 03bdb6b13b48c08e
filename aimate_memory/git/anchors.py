"""The project as anchors see it (docs/anchors.md): which files exist, their blob ids now, where the
project defines an identifier, and what git says happened to a path since a time (renames followed).

Cheap by construction, because a search asks it for every result:

- a file's blob now is `git hash-object` computed here from its bytes, cached by (path, mtime, size, inode):
  a warm check is one `stat` per anchored file; unstaged and untracked edits count as much as commits;
- the tracked listing (`git ls-files -s`: folders, moves git has not committed) is one call per process,
  cached until the git index file changes (its mtime and size);
- the history (`git log --name-status -M`, renames followed) is asked only for anchors that are stale,
  one call per process, cached until HEAD's reflog changes;
- an identifier's definitions are one `git grep` for all the names of a write (tracked and untracked
  files, `.gitignore`d ones and the memory vault itself left out).

A folder that is not a git work tree still has files: existence and blobs come from the disk, and there is
no history (commits 0, no renames).
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from stat import S_ISREG

from aimate_memory.clock import Clock, SystemClock
from aimate_memory.git.command import GIT
from aimate_memory.vault.anchors import (
    MAX_DEFINING_FILES,
    Anchor,
    PathHistory,
    Staleness,
    cited_identifiers,
    cited_paths,
    first_stale,
    folder_blob,
    git_blob_id,
    merge_anchors,
    staleness_of,
)
from aimate_memory.vault.atomic import atomic_write_text

log = logging.getLogger(__name__)

#: the project's own memory folder: a memory citing another memory is not anchored to code
EXCLUDED_PREFIX = ".aimate/"
_GIT_TIMEOUT_S = 10.0
_MAX_CACHED_BLOBS = 100_000
#: the parsed `git log` kept in the project's state folder between processes (a long history is not kept)
HISTORY_FILE = "anchor-history.json"
MAX_SAVED_COMMITS = 5_000
# Definitions in the languages people use most: `def`/`class` (Python), `function`/`const`/`let`/`var`/
# `class`/`interface`/`type`/`enum` (JS/TS), `fn`/`struct`/`trait`/`enum` (Rust), `func` (Go, methods too).
_DEFINE_KEYWORDS = "def|class|function|fn|func|interface|type|enum|struct|trait|const|let|var|module"
_DEFINITION = re.compile(rf"(?:{_DEFINE_KEYWORDS})\s+(?:\([^)]*\)\s*)?\**([A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class _Listing:
    blobs: dict[str, str]
    by_blob: dict[str, list[str]] = field(default_factory=dict)

    def paths_with(self, blob: str) -> list[str]:
        if not self.by_blob:
            for path, found in self.blobs.items():
                self.by_blob.setdefault(found, []).append(path)
        return self.by_blob.get(blob, [])


@dataclass(frozen=True)
class _Commit:
    time: datetime
    changes: tuple[tuple[str, str, str], ...]  # (status letter, path, new path for renames else "")


# Per process, per project root: what the caches above hold (a daemon serves many projects).
_LISTINGS: dict[Path, tuple[tuple[int, int], _Listing]] = {}
_History = tuple[tuple[int, ...], datetime, bool, list[_Commit]]  # (git state key, since, renames?, commits)
_HISTORIES: dict[Path, _History] = {}
_BLOBS: dict[tuple[str, int, int, int], str] = {}
_GIT_DIRS: dict[Path, Path | None] = {}


class ProjectFiles:
    """One project folder's files for anchoring. `root`: the folder holding `.aimate/` (paths are relative
    to it, POSIX). Offers `exists`, `blob`, `anchor`, `anchors_for` (the vault's `Anchorer`), `defining_files`,
    `staleness`, `verify`."""

    def __init__(self, root: Path, clock: Clock | None = None, cache_dir: Path | None = None) -> None:
        """`cache_dir`: where the parsed history is kept between processes (the project's `state/`)."""
        self.root = root.resolve()
        self.cache_dir = cache_dir
        self._root_text = str(self.root)
        self.clock: Clock = clock or SystemClock()

    # -- git -----------------------------------------------------------------------------------

    @property
    def git_dir(self) -> Path | None:
        """The repository's git folder: `.git` in the root or a parent (a worktree's `.git` file points
        to it). Found by looking, not by `git rev-parse`: a subprocess is most of a cold check."""
        if self.root not in _GIT_DIRS:
            _GIT_DIRS[self.root] = _find_git_dir(self.root)
        return _GIT_DIRS[self.root]

    def _git(self, *args: str) -> str | None:
        """git's stdout, or None when it failed (not a repository, no commits yet, git missing)."""
        try:
            done = subprocess.run(
                [*GIT, "-c", "core.quotepath=off", *args],
                cwd=self.root,
                capture_output=True,
                timeout=_GIT_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            log.info("git %s failed in %s: %s", args[0], self.root, exc)
            return None
        if done.returncode not in (0, 1):  # git grep says 1 for "nothing found"
            return None
        return done.stdout.decode("utf-8", "surrogateescape")

    def listing(self) -> _Listing:
        """Tracked files → staged blob ids (`git ls-files -s`), cached until the git index changes."""
        git_dir = self.git_dir
        if git_dir is None:
            return _Listing({})
        try:
            stat = (git_dir / "index").stat()
            key = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            key = (0, 0)
        cached = _LISTINGS.get(self.root)
        if cached is not None and cached[0] == key:
            return cached[1]
        out = self._git("ls-files", "-s", "-z") or ""
        blobs: dict[str, str] = {}
        for entry in out.split("\0"):
            info, _, path = entry.partition("\t")
            parts = info.split()
            if len(parts) == 3 and parts[2] == "0" and not path.startswith(EXCLUDED_PREFIX):
                blobs[path] = parts[1]
        listing = _Listing(blobs)
        _LISTINGS[self.root] = (key, listing)
        return listing

    # -- files ---------------------------------------------------------------------------------

    def _abs(self, path: str) -> Path:
        return self.root.joinpath(*path.rstrip("/").split("/"))

    def _abs_text(self, path: str) -> str:
        # Plain strings: pathlib objects were most of a warm check (one per anchored file).
        return f"{self._root_text}/{path}"

    def exists(self, path: str) -> bool:
        """A project file or folder (tracked, or on disk inside the project, outside `.aimate/`)."""
        if not path or path.startswith(EXCLUDED_PREFIX) or path.rstrip("/") in ("", ".aimate", ".git"):
            return False
        if path.endswith("/"):
            return self._abs(path).is_dir()
        return self._abs(path).is_file()

    def blob(self, path: str) -> str | None:
        """The path's blob id now (a folder: `folder_blob` of its tracked files), None when it is gone."""
        if path.endswith("/"):
            found = self.blob_in_index(path)
            if found is None:
                return folder_blob(()) if self._abs(path).is_dir() else None
            return found
        target = self._abs_text(path)
        try:
            stat = os.stat(target)
        except OSError:
            return None
        if not S_ISREG(stat.st_mode):
            return None
        key = (target, stat.st_mtime_ns, stat.st_size, stat.st_ino)
        found = _BLOBS.get(key)
        if found is None:
            try:
                with open(target, "rb") as handle:
                    found = git_blob_id(handle.read())
            except OSError:
                return None
            if len(_BLOBS) >= _MAX_CACHED_BLOBS:  # a daemon lives for weeks: old versions go
                _BLOBS.clear()
            _BLOBS[key] = found
        return found

    def anchor(self, path: str, now: datetime) -> Anchor | None:
        blob = self.blob(path)
        return Anchor(path, blob, now) if blob is not None else None

    def resolve_path(self, cited: str) -> str | None:
        """A cited path as a project path: as written, else a bare file name that one tracked file has."""
        if self.exists(cited):
            return cited.rstrip("/") + "/" if self._abs(cited).is_dir() else cited
        if "/" in cited:
            return None
        matches = [path for path in self.listing().blobs if path.rsplit("/", 1)[-1] == cited]
        return matches[0] if len(matches) == 1 else None

    def defining_files(self, names: Iterable[str]) -> dict[str, list[str]]:
        """Which project files define each name (one `git grep`), names defined nowhere left out."""
        wanted = sorted({name for name in names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name)})
        if not wanted or self.git_dir is None:
            return {}
        pattern = rf"({_DEFINE_KEYWORDS})[[:space:]]+(\([^)]*\)[[:space:]]*)?\**({'|'.join(wanted)})([^A-Za-z0-9_]|$)"
        out = self._git("grep", "-I", "-z", "-o", "-E", "--untracked", "-e", pattern, "--", ".", ":(exclude).aimate")
        found: dict[str, list[str]] = {}
        for line in (out or "").splitlines():
            path, _, matched = line.partition("\0")
            definition = _DEFINITION.search(matched)
            if definition is None or definition.group(1) not in wanted:
                continue
            files = found.setdefault(definition.group(1), [])
            if path not in files:
                files.append(path)
        return found

    def cited_anchors(self, text: str, now: datetime) -> list[Anchor]:
        """The anchors a text's citations make now: the paths that exist, then the files defining the
        identifiers (one file per name unless it is defined in up to MAX_DEFINING_FILES)."""
        paths: dict[str, None] = {}
        for cited in cited_paths(text):
            resolved = self.resolve_path(cited)
            if resolved is not None:
                paths.setdefault(resolved)
        for files in self.defining_files(cited_identifiers(text)).values():
            if len(files) <= MAX_DEFINING_FILES:
                for path in files:
                    paths.setdefault(path)
        anchors = [self.anchor(path, now) for path in paths]
        return [anchor for anchor in anchors if anchor is not None]

    def anchors_for(self, text: str, previous: Sequence[Anchor] = ()) -> tuple[Anchor, ...]:
        """`vault.anchors.Anchorer`: `previous` kept as they are (blob-less ones verified now), plus what
        the text newly cites."""
        now = self.clock.now()
        kept = [self._filled(anchor, now) for anchor in previous]
        return merge_anchors(kept, self.cited_anchors(text, now))

    def _filled(self, anchor: Anchor, now: datetime) -> Anchor:
        """A hand-written anchor without a blob gets one (verified now), when its file exists."""
        if anchor.blob:
            return anchor
        blob = self.blob(anchor.path)
        return Anchor(anchor.path, blob, now) if blob is not None else anchor

    # -- staleness ------------------------------------------------------------------------------

    def staleness(self, anchors: Sequence[Anchor]) -> Staleness | None:
        """A memory's staleness: its first stale anchor (the others counted in `more`), or None."""
        changed = [anchor for anchor in anchors if anchor.blob and self.blob(anchor.path) != anchor.blob]
        if not changed:
            return None
        gone = any(self.blob(anchor.path) is None for anchor in changed)
        histories = self.histories({anchor.path: anchor.verified_at for anchor in changed}, renames=gone)
        found = []
        for anchor in changed:
            current = self.blob(anchor.path)
            history = histories.get(anchor.path, PathHistory())
            elsewhere = None
            known = history.renamed_to is not None or history.deleted_at is not None
            if current is None and not anchor.path.endswith("/") and not known:
                # Gone, and no commit says where: moved in the work tree? (the listing: one `git ls-files`)
                others = [p for p in self.listing().paths_with(anchor.blob) if p != anchor.path]
                elsewhere = others[0] if len(others) == 1 else None
            if history.commits == 0 and self._committed(anchor, current):
                # Git keeps whole seconds: a commit in the second the anchor was verified is not after it.
                history = PathHistory(1, history.renamed_to, history.deleted_at)
            stale = staleness_of(anchor, current, history, elsewhere)
            if stale is not None:
                found.append(stale)
        return first_stale(found)

    def _committed(self, anchor: Anchor, current: str | None) -> bool:
        """Whether git's index already holds the change (else it is in the work tree only)."""
        if anchor.path.endswith("/"):
            return current is not None and self.blob_in_index(anchor.path) == current
        staged = self.listing().blobs.get(anchor.path)
        return staged != anchor.blob and staged == current

    def blob_in_index(self, folder: str) -> str | None:
        entries = [(p[len(folder) :], b) for p, b in self.listing().blobs.items() if p.startswith(folder)]
        return folder_blob(entries) if entries else None

    def verify(self, anchors: Sequence[Anchor], now: datetime) -> tuple[Anchor, ...]:
        """Re-anchor to the code as it is now: each anchor follows its file's move, takes its blob now and
        `verified_at` = now; an anchor whose file is gone (and did not move) is dropped."""
        histories = self.histories({a.path: a.verified_at for a in anchors if a.blob and self.blob(a.path) is None})
        verified: dict[str, Anchor] = {}
        for anchor in anchors:
            path = anchor.path
            if self.blob(path) is None:
                moved = histories.get(path, PathHistory()).renamed_to
                if moved is None and anchor.blob:
                    others = [p for p in self.listing().paths_with(anchor.blob) if p != path]
                    moved = others[0] if len(others) == 1 else None
                if moved is None:
                    continue
                path = moved
            fresh = self.anchor(path, now)
            if fresh is not None:
                verified.setdefault(fresh.path, fresh)
        return tuple(verified.values())

    def histories(self, since: Mapping[str, datetime | None], renames: bool = True) -> dict[str, PathHistory]:
        """What happened to each path after its time: commits touching it, renames followed (`renames`:
        only a path that is gone needs them, and rename detection is most of `git log`'s work), deletion."""
        if not since:
            return {}
        times = [value for value in since.values() if value is not None]
        earliest = min(times) if times else datetime.fromtimestamp(0, timezone.utc)
        commits = self._commits_since(earliest, renames)
        return {path: _path_history(path, when, commits) for path, when in since.items()}

    def _commits_since(self, earliest: datetime, renames: bool) -> list[_Commit]:
        """Commits after `earliest`, oldest first, each with its name-status: from this process's cache, else
        the one on disk (a new process after no new commit runs no `git log`), else git."""
        git_dir = self.git_dir
        if git_dir is None:
            return []
        key = tuple(_stat_key(git_dir / name) for name in ("HEAD", "logs/HEAD", "packed-refs"))
        cached = _HISTORIES.get(self.root) or self._load_history(key)
        if cached is not None and cached[0] == key and cached[1] <= earliest and (cached[2] or not renames):
            _HISTORIES[self.root] = cached
            return [commit for commit in cached[3] if commit.time >= earliest]  # `_path_history` cuts per path
        out = self._git(
            "log",
            "--relative",
            "-M" if renames else "--no-renames",
            "--name-status",
            "-z",
            "--format=%x01%ct",
            f"--since={int(earliest.timestamp()) - 1}",
            "HEAD",
        )
        if out is None:
            return []
        commits = _parse_log(out)
        _HISTORIES[self.root] = (key, earliest, renames, commits)
        self._save_history(_HISTORIES[self.root])
        return [commit for commit in commits if commit.time >= earliest]

    def _history_file(self) -> Path | None:
        return self.cache_dir / HISTORY_FILE if self.cache_dir is not None else None

    def _load_history(self, key: tuple[int, ...]) -> _History | None:
        path = self._history_file()
        if path is None:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if tuple(data["key"]) != key:
                return None  # HEAD moved since: the file is rewritten after the next `git log`
            commits = [
                _Commit(datetime.fromtimestamp(int(t), timezone.utc), tuple((str(a), str(b), str(c)) for a, b, c in ch))
                for t, ch in data["commits"]
            ]
            return key, datetime.fromtimestamp(float(data["earliest"]), timezone.utc), bool(data["renames"]), commits
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _save_history(self, history: _History) -> None:
        path = self._history_file()
        if path is None or len(history[3]) > MAX_SAVED_COMMITS or not path.parent.is_dir():
            return
        data = {
            "key": list(history[0]),
            "earliest": history[1].timestamp(),
            "renames": history[2],
            "commits": [[int(c.time.timestamp()), [list(change) for change in c.changes]] for c in history[3]],
        }
        try:
            atomic_write_text(path, json.dumps(data, separators=(",", ":")))
        except OSError as exc:  # a read-only state folder: the next process runs `git log` again
            log.info("could not keep the anchor history in %s: %s", path, exc)


def _find_git_dir(root: Path) -> Path | None:
    for folder in (root, *root.parents):
        marker = folder / ".git"
        if marker.is_dir():
            return marker
        if marker.is_file():
            try:
                pointer = marker.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if pointer.startswith("gitdir:"):
                found = (folder / pointer.removeprefix("gitdir:").strip()).resolve()
                return found if found.is_dir() else None
            return None
    return None


def _stat_key(path: Path) -> int:
    try:
        stat = path.stat()
    except OSError:
        return 0
    return stat.st_mtime_ns ^ (stat.st_size << 1)


def _parse_log(out: str) -> list[_Commit]:
    """`git log -z --name-status --format=%x01%ct` → commits, oldest first."""
    commits: list[_Commit] = []
    for block in out.split("\x01")[1:]:
        fields = [item for item in block.replace("\n", "\0").split("\0") if item != ""]
        if not fields:
            continue
        time = datetime.fromtimestamp(int(fields[0]), timezone.utc)
        changes: list[tuple[str, str, str]] = []
        index = 1
        while index < len(fields):
            status = fields[index]
            if status[:1] in ("R", "C") and index + 2 < len(fields):
                changes.append((status[0], fields[index + 1], fields[index + 2]))
                index += 3
            elif index + 1 < len(fields):
                changes.append((status[0], fields[index + 1], ""))
                index += 2
            else:
                break
        commits.append(_Commit(time, tuple(changes)))
    commits.reverse()
    return commits


def _path_history(path: str, since: datetime | None, commits: Sequence[_Commit]) -> PathHistory:
    """Renames and deletions are followed from the second `since` falls in (git keeps whole seconds, and an
    anchored path existed when it was verified); commits are counted after it."""
    current, count, deleted_at = path, 0, None
    folder = path.endswith("/")
    from_second = since.replace(microsecond=0) if since is not None else None
    for commit in commits:
        if from_second is not None and commit.time < from_second:
            continue
        touched = False
        for status, old, new in commit.changes:
            if folder:
                touched = touched or old.startswith(current) or new.startswith(current)
                continue
            if old != current:
                continue
            touched = True
            if status == "R":
                current = new
            elif status == "D":
                deleted_at = commit.time
            elif status == "A":
                deleted_at = None  # deleted, then added back
        if touched and (since is None or commit.time > since):
            count += 1
    if folder:
        return PathHistory(count)
    renamed_to = current if current != path else None
    return PathHistory(count, renamed_to, deleted_at if renamed_to is None else None)


def project_files_for(root: Path | None) -> ProjectFiles | None:
    return ProjectFiles(root) if root is not None and os.path.isdir(root) else None
