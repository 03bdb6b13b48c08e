"""The daemon's socket server: a Unix socket (mode 0600) where each connection carries one request line
and gets one reply line, dispatched through a table of operations.

Protocol (the client end is `watch.client.daemon_request`); UTF-8 JSON, one object per line:

    request  {"op": NAME, ...fields of that op}
    reply    {"ok": true, ...results of that op}
          or {"ok": false, "error": MESSAGE[, "kind": "AimateError" or the exception's type, "hint": HINT]}

The operations (the table is `Daemon.operations`; adding one is one entry there, name → handler):

    op        request fields                          reply fields
    ping      -                                       pid
    status    -                                       running, pid, uptime_seconds, started_at, vaults,
                                                      last_sync, last_maintenance[_summary], queue, current,
                                                      errors, rss_bytes, model_loaded, searches_served, socket, log
    stop      -                                       pid, stopping (exits after the current task)
    search    query, limit=10, where={MemoryFilter     results=[SearchHit.as_dict(explain=True)], mode, warnings,
              as JSON}, cwd, project, global_only,    elapsed_ms
              no_sync
    context   query=null, budget=null,                sections, total_tokens, budget, warnings, text
              budget_setting=null (a config key to    (Context.to_dict())
              read the budget from), + the project
              fields of search
    remember  text, source="cli", + project fields    result=CaptureResult.to_dict()
    converse  role, content, + project fields         - (the turn is appended to the session)
    end_session  project fields                       ended (false when no session was active)
    maintain  -                                       summary={vault key: summary}
    sync      -                                       reports={vault key: SyncReport.as_dict()}
    reload    wait=false                              added=[vault keys]; without `wait`, {"ok": true} at once

The project fields (search, context, remember, converse, end_session) pick the vaults as the CLI does:
`project` (a folder), else found from `cwd`; `global_only`; `no_sync` skips syncing stale vaults first.
context, remember, converse and end_session are the facade calls a hook makes (`integrations.hooks`).

ping, status and stop are answered on the connection's thread; the others are queued for the daemon's
main thread (in order, never interleaved) and take `timeout` (seconds, default 120) → "OP timed out".
An unknown op, a line that is not JSON, or a daemon that is stopping → {"ok": false, "error": …}.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

log = logging.getLogger("aimate.daemon")

Request = dict[str, Any]
Reply = dict[str, Any]
Handler = Callable[[Request], Reply]

RECV_BYTES = 65536
CONNECTION_TIMEOUT = 30.0  # seconds a client may take to send its line


def dispatch(operations: Mapping[str, Handler], request: Request) -> Reply:
    """The handler for `request["op"]`, called with the request; an error reply for an unknown op."""
    op = request.get("op")
    handler = operations.get(op) if isinstance(op, str) else None
    if handler is None:
        return {"ok": False, "error": f"unknown op {op!r}"}
    return handler(request)


class SocketServer:
    """Listen on `path`; each connection is served by a short thread of its own."""

    def __init__(self, path: Path, operations: Mapping[str, Handler]) -> None:
        self.path = path
        self.operations = operations
        self._socket: socket.socket | None = None

    def start(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a socket left by a killed daemon (the caller holds the instance lock)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)  # created 0600: no window where another user could connect
        try:
            server.bind(str(self.path))
        finally:
            os.umask(old_umask)
        os.chmod(self.path, 0o600)
        server.listen(64)
        self._socket = server
        threading.Thread(target=self._accept_loop, args=(server,), name="aimate-socket", daemon=True).start()
        log.info("listening on %s", self.path)

    def close(self) -> None:
        if self._socket is None:
            return
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._socket.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._socket = None

    def _accept_loop(self, server: socket.socket) -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(CONNECTION_TIMEOUT)
            try:
                request = _read_request(conn)
                reply = dispatch(self.operations, request)
            except (ValueError, OSError) as exc:
                reply = {"ok": False, "error": f"bad request: {exc}"}
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps(reply, ensure_ascii=False, default=str).encode("utf-8") + b"\n")


def _read_request(conn: socket.socket) -> Request:
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(RECV_BYTES)
        if not chunk:
            break
        data += chunk
    request = json.loads(data) if data.strip() else {}
    return request if isinstance(request, dict) else {}
