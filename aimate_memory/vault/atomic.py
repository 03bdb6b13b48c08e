"""Atomic file writes: a reader or a crash sees the old bytes or the new bytes, never half of them.

The temp file has a short fixed name, `.aimate-XXXXXXXX.tmp`, whatever the target is called: a temp name
built from the target's (`.NAME.XXXX.tmp`) passes the file system's 255-byte limit for a legal name of
241 bytes or more (84 Chinese characters), and every write of that file failed (docs/reliability.md).
A writer killed between creating and renaming leaves one behind; `stale_temp_files` finds those for
`fix` and `maintain` to remove. Files the tool creates are the person's alone: 0600 (a replaced file keeps
its mode)."""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

TEMP_PREFIX = ".aimate-"
TEMP_SUFFIX = ".tmp"
NEW_FILE_MODE = 0o600
# A live writer holds its temp file for milliseconds; one untouched for a minute was left by a killed one.
STALE_TEMP_SECONDS = 60.0


def atomic_write_bytes(path: Path, data: bytes, durable: bool = True) -> None:
    """Write `data` to `path` via a temp file in the same folder, fsync, then rename over the target.

    The temp file lives beside the target so the rename never crosses a file system; on any error it
    is removed, so a failed write leaves neither a partial target nor a stray temp file. `durable=False`:
    no fsync of the file or its folder — for a bulk write that calls `flush_to_disk` once at its end (two
    fsyncs a file were half of a 20,000-record import, issue 38).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # only to write: ~10 ms of a read-only command's start

    fd, tmp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp_name, _mode_for(path))
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    if durable:
        _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, durable: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), durable)


def flush_to_disk() -> None:
    """Make the writes made with `durable=False` durable: one `sync` for all of them (files and renames)."""
    os.sync()


def _mode_for(path: Path) -> int:
    # Keep the mode of a file we replace (a person's choice, or git's checkout); a new file is private.
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        return NEW_FILE_MODE


def stale_temp_files(folder: Path, now: float | None = None) -> Iterator[Path]:
    """Temp files of this writer under `folder` (any depth) that nobody touched for STALE_TEMP_SECONDS."""
    now = time.time() if now is None else now
    for parent, dirs, names in os.walk(folder):
        dirs[:] = [name for name in dirs if not name.startswith(".")]  # .git: git's own temp files
        yield from (Path(parent) / name for name in names if is_stale_temp(Path(parent) / name, now))


def is_stale_temp(path: Path, now: float) -> bool:
    """Whether `path` is a temp file of this writer that nobody touched for STALE_TEMP_SECONDS."""
    if not _is_temp_name(path.name):
        return False
    try:
        return now - path.stat().st_mtime >= STALE_TEMP_SECONDS
    except OSError:
        return False


def _fsync_dir(folder: Path) -> None:
    # Makes the rename itself durable; not every platform allows opening a directory.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# What this writer named its temp files before the fixed prefix: `.NAME.md` + mkstemp's 8 characters. An
# editor's own temp file (`.NAME.md.tmp`) is not ours: it may be the person's only copy of an edit.
_OLD_TEMP_NAME = re.compile(r"^\..+\.md\.[a-z0-9_]{8}\.tmp$")
_TEMP_NAME = re.compile(rf"^{re.escape(TEMP_PREFIX)}[a-z0-9_]{{8}}{re.escape(TEMP_SUFFIX)}$")


def _is_temp_name(name: str) -> bool:
    return bool(_TEMP_NAME.match(name) or _OLD_TEMP_NAME.match(name))
