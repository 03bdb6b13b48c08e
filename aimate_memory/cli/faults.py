"""Faults of the environment (permissions, a full disk, a damaged index) as one line and what to do.

Without this they reached the internal-error path ("unexpected …, report the traceback"), which tells a
person their machine's problem is our bug. Pure: a table from the fault to the message's hint."""

from __future__ import annotations

import errno

# errno → what to do about it.
_OS_HINTS = {
    errno.EACCES: "check the permissions of that path (or of AIMATE_HOME)",
    errno.EPERM: "the path is protected (read-only or immutable): check its attributes and permissions",
    errno.EROFS: "the file system is read-only: point AIMATE_HOME (or the project) at a writable place",
    errno.ENOSPC: "the disk is full: free some space and run the command again",
    errno.EDQUOT: "the disk quota is used up: free some space and run the command again",
    errno.EFBIG: "a file-size limit was reached (ulimit -f): raise it and run the command again",
    errno.EISDIR: "a folder is where a file should be: move it away",
    errno.ENOTDIR: "a file is where a folder should be: move it away",
    errno.ENAMETOOLONG: "the path is too long for the file system: use a shorter title or folder",
}
# Fragments of SQLite's messages → what to do; the index is derived, so rebuilding it loses nothing.
_SQLITE_HINTS = (
    ("readonly", "the index is read-only: check the permissions of index.db, or run with a writable AIMATE_HOME"),
    ("disk i/o error", "the index could not be written (disk full or a file-size limit?); then `aimate mem reindex`"),
    ("unable to open", "the index cannot be opened: check that index.db is a file and its folder is writable"),
    ("malformed", "the index is damaged: run `aimate mem reindex` (it is rebuilt from the files, nothing is lost)"),
    ("not a database", "index.db is not an index: move it away and run `aimate mem reindex`"),
    ("locked", "another process holds the index: try again in a moment"),
)


def describe_fault(exc: BaseException) -> tuple[str, str] | None:
    """(message, hint) for an environment fault; None for anything else (a bug)."""
    if isinstance(exc, OSError) and exc.errno in _OS_HINTS:
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}", _OS_HINTS[exc.errno]
    if type(exc).__module__.split(".")[0] in ("sqlean", "sqlite3"):
        text = str(exc)
        for fragment, hint in _SQLITE_HINTS:
            if fragment in text.lower():
                return f"index error: {text}", hint
    return None


def fault_or_bug(exc: BaseException) -> tuple[str, str]:
    """What a command prints for an exception that is not an AimateError: the fault's line, or an unexpected
    error's (a bug) with how to report it — the typer app and the fast path alike."""
    return describe_fault(exc) or (
        f"unexpected {type(exc).__name__}: {exc}",
        "run again with --debug and report the traceback",
    )
