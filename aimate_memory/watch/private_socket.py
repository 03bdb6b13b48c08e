"""Where the daemon's socket lives, and the two checks that keep it the person's own (docs/reliability.md,
"Security"): the socket's folder is verified before the daemon binds there and before a client connects
(ours, not a symbolic link, closed to others), and each end asks the kernel who the other end is
(`SO_PEERCRED`) before it sends a byte. Stdlib only: the client imports this before anything heavy.

The socket is `$AIMATE_HOME/state/daemon.sock`; when that path is too long for AF_UNIX, it goes to a
private runtime folder: `$XDG_RUNTIME_DIR/aimate/` when XDG_RUNTIME_DIR is set and valid (an absolute
folder of ours, mode 0700, as the XDG spec requires), else `/tmp/aimate-UID/` — a shared, sticky folder
where another local user can create that name first, which is why it is checked, never trusted.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
from enum import Enum
from pathlib import Path
from typing import NamedTuple

from aimate_memory.errors import AimateError
from aimate_memory.vault.roots import STATE_DIR

SOCKET_NAME = "daemon.sock"
MAX_SOCKET_PATH = 100  # AF_UNIX paths are limited to 108 bytes
RUNTIME_SUBDIR = "aimate"  # inside XDG_RUNTIME_DIR (already per user)


class Folder(Enum):
    """Which bits of a socket folder's mode other users must not have. The runtime folder sits in a
    shared place: 0700 exactly. `state/` sits in the person's own home, where 0755 is what older
    versions made: writable by the owner alone suffices there, since nobody else can put a socket in it."""

    RUNTIME = 0o077
    STATE = 0o022


class UnsafeSocketFolder(AimateError):
    """The socket's folder is not the person's own: the daemon does not listen there, clients do not
    connect there."""


class Peer(NamedTuple):  # not a dataclass: a forwarded hook imports this module (vault/roots.py says why)
    pid: int | None
    uid: int


def socket_path(home: Path) -> Path:
    """`$AIMATE_HOME/state/daemon.sock`, or a name from a hash of the home in the runtime folder when that
    path is too long for AF_UNIX."""
    path = Path(home) / STATE_DIR / SOCKET_NAME
    if len(os.fsencode(str(path))) <= MAX_SOCKET_PATH:
        return path
    import hashlib  # only for such a home: with OpenSSL's, ~10 ms of every command a daemon answers (issue 38)

    digest = hashlib.sha256(os.fsencode(str(Path(home).resolve()))).hexdigest()[:16]
    return runtime_folder() / f"{digest}.sock"


def runtime_folder() -> Path:
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and Path(xdg).is_absolute() and _problem(Path(xdg), Folder.RUNTIME) is None:
        return Path(xdg) / RUNTIME_SUBDIR
    import tempfile  # only for a home whose socket path is too long: its import was ~10 ms of every command

    return Path(tempfile.gettempdir()) / f"aimate-{os.getuid()}"


def folder_kind(home: Path, path: Path) -> Folder:
    return Folder.STATE if path.parent == Path(home) / STATE_DIR else Folder.RUNTIME


def ensure_socket_folder(home: Path) -> Path:
    """The socket's path, its folder created private (0700) when missing and verified either way; raises
    UnsafeSocketFolder when it is not ours to use."""
    path = socket_path(home)
    kind = folder_kind(home, path)
    folder = path.parent
    if kind is Folder.STATE:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    else:
        try:
            os.mkdir(folder, 0o700)  # never `exist_ok`: an existing folder is checked below, not adopted
        except FileExistsError:
            pass
        else:
            os.chmod(folder, 0o700, follow_symlinks=False)  # a umask like 0o277 must not leave it unusable
    check_socket_folder(folder, kind)
    return path


def check_socket_folder(folder: Path, kind: Folder) -> None:
    """Raise UnsafeSocketFolder unless `folder` is a real folder (not a symbolic link) owned by this user,
    with none of `kind`'s bits in its mode. One lstat: nothing is followed."""
    problem = _problem(folder, kind)
    if problem is not None:
        message, hint = problem
        raise UnsafeSocketFolder(f"the daemon's socket folder {folder} {message}", hint)


def _problem(folder: Path, kind: Folder) -> tuple[str, str] | None:
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return "does not exist", "start the daemon: `aimate mem daemon start`"
    remove = f"remove it (`rm -r {folder}`; it is made again, private)"
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link", remove
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder", remove
    uid = os.getuid()
    if info.st_uid != uid:
        return (
            f"belongs to {_user(info.st_uid)}, not to you",
            f"another user may be waiting for your requests there: have it removed (`sudo rm -r {folder}`),"
            " or set XDG_RUNTIME_DIR to a private folder of yours",
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & kind.value:
        wanted = "0700" if kind is Folder.RUNTIME else "writable by you alone (0700 or 0755)"
        return f"has mode {mode:04o}; it must be {wanted}", f"`chmod 700 {folder}` if you made it, else {remove}"
    return None


def _user(uid: int) -> str:
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (ImportError, KeyError):
        return f"uid {uid}"


# -- the other end -----------------------------------------------------------------------------------

_UCRED = struct.Struct("3i")  # Linux `struct ucred`: pid, uid, gid


def peer_of(sock: socket.socket) -> Peer | None:
    """Who is at the other end of a connected Unix socket, as the kernel says: Linux `SO_PEERCRED`
    (the peer's pid and uid when it called connect/listen). None where the platform has no such option
    (macOS, the BSDs): there the verified private folder is the guard — only this user can create a
    socket in a folder that is theirs and closed to others — which `check_socket_folder` ensures."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    pid, uid, _gid = _UCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, option, _UCRED.size))
    return Peer(pid=pid or None, uid=uid)


def is_own_user(peer: Peer | None) -> bool:
    """True when the peer runs as this user (or the platform cannot tell: see `peer_of`)."""
    return peer is None or peer.uid == os.getuid()
