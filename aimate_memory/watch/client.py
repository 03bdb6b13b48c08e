"""Talking to the daemon over its Unix socket: one JSON line out, one JSON line back.

Kept light (stdlib only at import time): `aimate mem search` with the daemon up should cost little more
than starting Python. Every function returns None when no daemon answers, so the caller falls back to
doing the work in-process. The request/reply shapes of every op are documented in `watch.server`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

STATE_DIR = "state"
SOCKET_NAME = "daemon.sock"
MAX_SOCKET_PATH = 100  # AF_UNIX paths are limited to 108 bytes


def socket_path(home: Path) -> Path:
    """`$AIMATE_HOME/state/daemon.sock`; when that path is too long for AF_UNIX, a per-user folder
    (mode 0700) under the temp dir named after a hash of the home."""
    path = Path(home) / STATE_DIR / SOCKET_NAME
    if len(os.fsencode(str(path))) <= MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(os.fsencode(str(Path(home).resolve()))).hexdigest()[:16]
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()) / f"aimate-{os.getuid()}"
    return base / f"{digest}.sock"


def daemon_request(home: Path, payload: dict[str, Any], timeout: float = 30.0) -> dict[str, Any] | None:
    """Send one request; the reply, or None when no daemon is listening (or it did not answer in time)."""
    path = socket_path(home)
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
        sock.sendall(json.dumps(payload, ensure_ascii=False).encode("utf-8") + b"\n")
        chunks = []
        while True:
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
            if data.endswith(b"\n"):
                break
        raw = b"".join(chunks)
        return json.loads(raw) if raw.strip() else None
    except (OSError, ValueError):
        return None
    finally:
        with contextlib.suppress(OSError):
            sock.close()


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
                highlights=[tuple(span) for span in item.get("highlights", [])],  # type: ignore[misc]
                factors=dict(item.get("factors", {})),
                context_of=item.get("context_of"),
            )
        )
    return RemoteResponse(
        query, hits, reply.get("mode", "keyword"), list(reply.get("warnings", [])), float(reply.get("elapsed_ms", 0))
    )
