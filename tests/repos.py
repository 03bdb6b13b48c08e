"""Small git repositories for the tests of anchors (issue 27): a project committed with its files, and git
run with a commit date that may lie a few seconds ahead (git keeps whole seconds, and a test runs within one:
a commit meant to come after a memory was written or verified is dated later)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path


def git(cwd: Path, *args: str, later_s: int = 0) -> str:
    """`git ARGS` in `cwd`, its output; fails the test with git's message when git fails."""
    env = dict(os.environ)
    if later_s:
        stamp = f"@{int(time.time()) + later_s} +0000"
        env.update(GIT_COMMITTER_DATE=stamp, GIT_AUTHOR_DATE=stamp)
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def committed_project(path: Path, files: dict[str, str]) -> Path:
    """A git repository at `path` holding `files` (relative path → text) in one commit on `main`."""
    for relative, text in files.items():
        (path / relative).parent.mkdir(parents=True, exist_ok=True)
        (path / relative).write_text(text, encoding="utf-8")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", ".")
    git(path, "commit", "-qm", "init")
    return path
