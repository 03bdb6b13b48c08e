"""The project registry, `state/projects.json`: the project folders whose vaults the daemon watches
besides the global one. Using the CLI in a project adds it; a running daemon is told to watch it."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from aimate_memory.locks import file_lock
from aimate_memory.watch.paths import DaemonPaths
from aimate_memory.watch.transport import daemon_request


def registered_projects(home: Path) -> list[Path]:
    """Project folders (each holding `.aimate/`) the daemon watches besides the global vault."""
    try:
        data = json.loads(DaemonPaths.of(home).registry.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return []
    return [Path(item) for item in data.get("projects", []) if isinstance(item, str)]


def register_project(home: Path, project_root: Path, notify_daemon: bool = True) -> bool:
    """Add a project folder (or its `.aimate/`) to the registry; True when it was new. A running daemon
    is told to start watching it (`notify_daemon=False` from inside the daemon). Cheap when already
    registered (one small file read, no lock)."""
    root = Path(project_root).expanduser().resolve()
    if root.name == ".aimate":
        root = root.parent
    if root in registered_projects(home):
        return False
    with file_lock(_lock_path(home)):
        current = registered_projects(home)
        if root in current:
            return False  # another process added it meanwhile
        _write(home, sorted({*current, root}, key=str))
    if notify_daemon:
        daemon_request(home, {"op": "reload"}, timeout=2.0)
    return True


def ownership_problem(project_root: Path) -> str | None:
    """Why a project the person never registered may not be registered on a daemon request: None when the
    folder, its `.aimate` and `.aimate/memory` all belong to this user and none is a symbolic link, else
    what is wrong (e.g. "… belongs to uid 1001"). `project_root` is resolved (no link above it counts)."""
    uid = os.getuid()
    aimate = Path(project_root) / ".aimate"
    for path in (Path(project_root), aimate, aimate / "memory"):
        try:
            info = os.lstat(path)
        except OSError as exc:
            return f"{path} cannot be read ({exc.strerror})"
        if stat.S_ISLNK(info.st_mode):
            return f"{path} is a symbolic link"
        if info.st_uid != uid:
            return f"{path} belongs to uid {info.st_uid}, not to you (uid {uid})"
    return None


def unregister_missing(home: Path) -> list[Path]:
    """Drop projects whose folder is gone; returns what was dropped."""
    with file_lock(_lock_path(home)):
        current = registered_projects(home)
        keep = [p for p in current if (p / ".aimate").is_dir()]
        gone = [p for p in current if p not in keep]
        if gone:
            _write(home, keep)
    return gone


def _lock_path(home: Path) -> Path:
    return DaemonPaths.of(home).registry.with_suffix(".lock")


def _write(home: Path, projects: list[Path]) -> None:
    from aimate_memory.vault.atomic import atomic_write_text

    text = json.dumps({"projects": [str(p) for p in projects]}, ensure_ascii=False, indent=2) + "\n"
    atomic_write_text(DaemonPaths.of(home).registry, text)
