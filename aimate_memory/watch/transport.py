"""The daemon's wire: one JSON line out, one JSON line back over its Unix socket.

Kept light (the stdlib, `errors` and `private_socket` at import time): `aimate mem search` with the daemon
up should cost little more than starting Python. Every function returns None when no daemon of this user
answers, so the caller falls back to doing the work in-process; a socket another user holds is logged as
a warning and never sent anything (`private_socket`). The request/reply shapes of every op are documented
in `watch.server`; `watch.client` speaks them for the facade's verbs.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from aimate_memory.watch.private_socket import (
    UnsafeSocketFolder,
    check_socket_folder,
    folder_kind,
    is_own_user,
    peer_of,
    socket_path,
)

if TYPE_CHECKING:
    import logging
    from collections.abc import Callable

MAX_REQUEST_BYTES = 1 << 20  # one request line, newline included; the server refuses longer ones
NO_DAEMON_ENV = "AIMATE_NO_DAEMON"  # "1": never ask the daemon (tests, a person debugging)


def _log() -> logging.Logger:
    """The client's logger, imported when there is something to say: `logging` is ~18 ms of a forwarded
    hook's ~50 ms of imports (docs/agents.md, "Latency")."""
    import logging

    return logging.getLogger("aimate.daemon.client")


class Exchange(NamedTuple):
    reply: dict[str, Any]
    peer_pid: int | None  # who answered, as the kernel says (None where it cannot tell)


def daemon_request(
    home: Path, payload: dict[str, Any], timeout: float = 30.0, meanwhile: Callable[[], object] | None = None
) -> dict[str, Any] | None:
    """Send one request; the reply, or None when no daemon of this user is listening (or it did not answer
    in time, or the request is too long to send: the caller does the work itself). `meanwhile`: run once the
    request is sent, while the daemon works on it (a command importing what prints the answer)."""
    exchange = daemon_exchange(home, payload, timeout, meanwhile)
    return None if exchange is None else exchange.reply


def daemon_exchange(
    home: Path, payload: dict[str, Any], timeout: float = 30.0, meanwhile: Callable[[], object] | None = None
) -> Exchange | None:
    """`daemon_request`, saying which process answered. Nothing is sent unless the socket's folder is this
    user's own and the kernel says the listener runs as this user (docs/reliability.md, "Security")."""
    path = socket_path(home)
    if not path.exists():
        return None
    line = json.dumps(payload, ensure_ascii=False).encode("utf-8") + b"\n"
    if len(line) > MAX_REQUEST_BYTES:
        _log().info("request %r too long for the daemon (%d bytes); done in this process", payload.get("op"), len(line))
        return None
    try:
        check_socket_folder(path.parent, folder_kind(home, path))
    except UnsafeSocketFolder as exc:
        _log().warning("not using the daemon: %s (%s)", exc.message, exc.hint)
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
        peer = peer_of(sock)
        if not is_own_user(peer):
            assert peer is not None
            _log().warning(
                "not using the daemon: %s is served by uid %d (pid %s), not by you (uid %d); nothing was sent",
                path,
                peer.uid,
                peer.pid,
                os.getuid(),
            )
            return None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(line)  # a daemon refusing the request closes early: its reply is still read
        if meanwhile is not None:
            meanwhile()
        raw = _read_reply(sock)
        reply = json.loads(raw) if raw.strip() else None
        return Exchange(reply, peer.pid if peer else None) if isinstance(reply, dict) else None
    except (OSError, ValueError):
        return None
    finally:
        with contextlib.suppress(OSError):
            sock.close()


def _read_reply(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        data = sock.recv(65536)
        if not data:
            break
        chunks.append(data)
        if data.endswith(b"\n"):
            break
    return b"".join(chunks)
