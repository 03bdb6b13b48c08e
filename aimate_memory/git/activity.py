"""What happened in a project's code during a session, for its episode (docs/design.md "Episodes"): the
commits made between two times (with their files) and the files still uncommitted. Read-only `git log` and
`git status`; a folder outside git, or git failing, gives nothing (an episode is a convenience, never a
reason for a session end to fail)."""

from __future__ import annotations

import logging
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

log = logging.getLogger(__name__)
GIT_TIMEOUT_S = 5
MARK = "\x1e"  # starts each commit's header line in `git log` output (no subject holds it)
# The project's memory is the tool's, not the session's work on the code: a commit of accepted captures
# ("memory: accept 2 reviewed change(s)") is no commit of the session, and its `.aimate/memory/…` files are no
# files it changed (docs/design.md "Episodes"). With a pathspec, `git log` lists only commits touching the code.
CODE_ONLY = ("--", ".", ":(exclude).aimate")


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    files: tuple[str, ...] = ()


def commits_between(folder: Path, since: datetime, until: datetime) -> list[Commit]:
    """Commits of the code (not of `.aimate/`) whose committer time is in [since, until], oldest first, each
    with the files of the code it changed."""
    out = _git(
        folder,
        "log",
        "--no-merges",
        "--reverse",
        f"--since={since.isoformat()}",
        f"--until={until.isoformat()}",
        f"--format={MARK}%H%x00%s",
        "--name-only",
        *CODE_ONLY,
    )
    return _parsed(out)


def recent_commits(folder: Path, count: int) -> list[Commit]:
    """The last `count` commits, newest first, each with the files it changed: what the project is working on
    now, for the session start's choice of memories (docs/design.md "What a session start chooses")."""
    out = _git(
        folder, "log", "--no-merges", f"--max-count={count}", f"--format={MARK}%H%x00%s", "--name-only", *CODE_ONLY
    )
    return _parsed(out)


def _parsed(out: str) -> list[Commit]:
    commits = []
    for block in out.split(MARK)[1:]:
        header, _, names = block.partition("\n")
        sha, _, subject = header.partition("\x00")
        files = tuple(line.strip() for line in names.splitlines() if line.strip())
        commits.append(Commit(sha, subject, files))
    return commits


def uncommitted_files(folder: Path) -> list[str]:
    """Tracked files changed and not committed, and new files git does not ignore (`git status` paths)."""
    out = _git(folder, "status", "--porcelain", "--untracked-files=normal")
    return [line[3:].strip() for line in out.splitlines() if len(line) > 3]


def _git(folder: Path, *args: str) -> str:
    if not (folder / ".git").exists():
        return ""
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=false", *args],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("git %s failed in %s: %s", args[0], folder, exc)
        return ""
    return done.stdout if done.returncode == 0 else ""
