"""Files for one person (docs/reliability.md, "Security"): what the tool keeps — memories, the index, logs,
state — is readable by its owner only. New files and folders get that from the process umask (077, set
where the `aimate` command starts) and from the atomic writer; `make_private` tightens what an older
version, or another umask, left open, and says how many it changed."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path


def make_private(root: Path, skip: Iterable[Path] = ()) -> int:
    """Remove group and other permissions from `root` and everything under it, except under `skip`
    (never through a symlink); the number of files and folders changed."""
    if not root.is_dir():
        return 0
    skipped = {path.resolve() for path in skip}
    changed = _tighten(root)
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        dirs[:] = [name for name in dirs if (here / name).resolve() not in skipped]
        changed += sum(_tighten(here / name) for name in [*dirs, *names])
    return changed


def _tighten(path: Path) -> int:
    try:
        info = path.lstat()
    except OSError:
        return 0
    if stat.S_ISLNK(info.st_mode) or not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
        return 0  # a link's mode is its target's business; sockets and pipes are made private when made
    mode = stat.S_IMODE(info.st_mode)
    if not mode & 0o077:
        return 0
    try:
        os.chmod(path, mode & ~0o077)
    except OSError:
        return 0  # not ours to change (another owner): nothing to report as done
    return 1
