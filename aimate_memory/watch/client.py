"""Talking to the daemon over its Unix socket: one JSON line out, one JSON line back.

Kept light (the stdlib, `errors` and `private_socket` at import time): `aimate mem search` with the daemon
up should cost little more than starting Python. Every function returns None when no daemon of this user
answers, so the caller falls back to doing the work in-process; a socket another user holds is logged as
a warning and never sent anything (`private_socket`). The request/reply shapes of every op are documented
in `watch.server`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from aimate_memory.watch.private_socket import (
    UnsafeSocketFolder,
    check_socket_folder,
    folder_kind,
    is_own_user,
    peer_of,
    socket_path,
)

log = logging.getLogger("aimate.daemon.client")

MAX_REQUEST_BYTES = 1 << 20  # one request line, newline included; the server refuses longer ones


@dataclass(frozen=True)
class Exchange:
    reply: dict[str, Any]
    peer_pid: int | None  # who answered, as the kernel says (None where it cannot tell)


def daemon_request(home: Path, payload: dict[str, Any], timeout: float = 30.0) -> dict[str, Any] | None:
    """Send one request; the reply, or None when no daemon of this user is listening (or it did not answer
    in time, or the request is too long to send: the caller does the work itself)."""
    exchange = daemon_exchange(home, payload, timeout)
    return None if exchange is None else exchange.reply


def daemon_exchange(home: Path, payload: dict[str, Any], timeout: float = 30.0) -> Exchange | None:
    """`daemon_request`, saying which process answered. Nothing is sent unless the socket's folder is this
    user's own and the kernel says the listener runs as this user (docs/reliability.md, "Security")."""
    path = socket_path(home)
    if not path.exists():
        return None
    line = json.dumps(payload, ensure_ascii=False).encode("utf-8") + b"\n"
    if len(line) > MAX_REQUEST_BYTES:
        log.info("request %r too long for the daemon (%d bytes); done in this process", payload.get("op"), len(line))
        return None
    try:
        check_socket_folder(path.parent, folder_kind(home, path))
    except UnsafeSocketFolder as exc:
        log.warning("not using the daemon: %s (%s)", exc.message, exc.hint)
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
        peer = peer_of(sock)
        if not is_own_user(peer):
            assert peer is not None
            log.warning(
                "not using the daemon: %s is served by uid %d (pid %s), not by you (uid %d); nothing was sent",
                path,
                peer.uid,
                peer.pid,
                os.getuid(),
            )
            return None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(line)  # a daemon refusing the request closes early: its reply is still read
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


# -- search through the daemon ----------------------------------------------------------------------


def filter_to_json(where: Any) -> dict[str, Any]:
    """A MemoryFilter as JSON (enums by value, times as ISO 8601)."""
    if where is None:
        return {}
    out: dict[str, Any] = {}
    for key, value in where.__dict__.items():
        if isinstance(value, tuple):
            out[key] = [getattr(item, "value", item) for item in value]
        elif hasattr(value, "isoformat"):
            out[key] = value.isoformat()
        else:
            out[key] = value
    return out


def filter_from_json(data: dict[str, Any]) -> Any:
    from aimate_memory.vault.filters import MemoryFilter
    from aimate_memory.vault.layout import Layer, Scope
    from aimate_memory.vault.model import to_datetime

    kwargs: dict[str, Any] = {}
    for key, value in (data or {}).items():
        if key == "layers":
            kwargs[key] = tuple(Layer(item) for item in value)
        elif key == "scopes":
            kwargs[key] = tuple(Scope(item) for item in value)
        elif key in ("categories", "tags", "statuses"):
            kwargs[key] = tuple(value)
        elif key.endswith(("_after", "_before")):
            kwargs[key] = to_datetime(value) if value else None
        elif key in ("path_glob", "extra"):
            kwargs[key] = value
    return MemoryFilter(**kwargs)


@dataclass
class _Value:
    value: str


@dataclass
class RemoteMemory:
    """What the CLI prints of a result memory (the daemon's SearchHit.as_dict)."""

    id: str
    title: str
    rel_path: PurePosixPath
    scope: _Value
    layer: _Value
    category: str
    tags: list[str]


@dataclass
class RemoteHit:
    data: dict[str, Any]
    memory: RemoteMemory
    score: float
    snippet: str
    highlights: list[tuple[int, int]]
    factors: dict[str, float]
    context_of: str | None = None

    def as_dict(self, explain: bool = False) -> dict[str, Any]:
        data = dict(self.data)
        if not explain:
            data.pop("factors", None)
        return data


@dataclass
class RemoteResponse:
    query: str
    results: list[RemoteHit]
    mode: str
    warnings: list[str] = field(default_factory=list)
    elapsed_ms: float = 0.0


def daemon_call(
    op: str,
    fields: dict[str, Any] | None = None,
    *,
    cwd: Path | None = None,
    project: Path | None = None,
    global_only: bool = False,
    home: Path | None = None,
    timeout: float = 30.0,
) -> dict[str, Any] | None:
    """One op on the vaults of a project (`project`, else found from `cwd`, default the working directory)
    through a running daemon: its reply, or None when there is no daemon (or `AIMATE_NO_DAEMON=1`) or it
    failed, so the caller does the work in-process (and, with `daemon.autostart`, a daemon is started for
    the next call). An error the daemon reports as an AimateError (bad
    query, …) is raised as the same error the CLI prints."""
    if home is None:
        from aimate_memory.vault.roots import aimate_home

        home = aimate_home()
    if os.environ.get("AIMATE_NO_DAEMON") == "1":
        return None
    if not socket_path(home).exists():
        from aimate_memory.watch.process import autostart

        autostart(home)
        return None
    payload = {
        "op": op,
        **(fields or {}),
        "cwd": str(cwd) if cwd is not None else os.getcwd(),
        "project": str(Path(project).expanduser().resolve()) if project else None,
        "global_only": global_only,
    }
    reply = daemon_request(home, payload, timeout)
    if reply is None:
        # A socket left by a daemon that was killed (SIGKILL, power loss) answers nobody: autostart asks the
        # instance lock, which a dead daemon does not hold, so a busy one is not started twice.
        from aimate_memory.watch.process import autostart

        autostart(home)
        return None
    if not reply.get("ok"):
        if reply.get("kind") == "AimateError":
            from aimate_memory.errors import AimateError

            raise AimateError(str(reply.get("error")), reply.get("hint"))
        return None  # the daemon failed: do the work here
    return reply


def daemon_search(
    query: str,
    limit: int,
    where: Any = None,
    *,
    cwd: Path | None = None,
    project: Path | None = None,
    global_only: bool = False,
    no_sync: bool = False,
    home: Path | None = None,
    timeout: float = 30.0,
) -> RemoteResponse | None:
    """Search through a running daemon (warm model and index); None when there is none (see `daemon_call`)."""
    fields = {"query": query, "limit": limit, "where": filter_to_json(where), "no_sync": no_sync}
    reply = daemon_call("search", fields, cwd=cwd, project=project, global_only=global_only, home=home, timeout=timeout)
    return None if reply is None else remote_response(query, reply)


def remote_response(query: str, reply: dict[str, Any]) -> RemoteResponse:
    """A daemon's `search` reply as the SearchResponse-shaped records the CLI and the hooks print."""
    hits = []
    for item in reply.get("results", []):
        memory = RemoteMemory(
            id=item["id"],
            title=item["title"],
            rel_path=PurePosixPath(item["path"]),
            scope=_Value(item["scope"]),
            layer=_Value(item["layer"]),
            category=item.get("category", ""),
            tags=list(item.get("tags", [])),
        )
        hits.append(
            RemoteHit(
                data=item,
                memory=memory,
                score=float(item["score"]),
                snippet=item.get("snippet", ""),
                highlights=[tuple(span) for span in item.get("highlights", [])],
                factors=dict(item.get("factors", {})),
                context_of=item.get("context_of"),
            )
        )
    return RemoteResponse(
        query, hits, reply.get("mode", "keyword"), list(reply.get("warnings", [])), float(reply.get("elapsed_ms", 0))
    )
