"""The daemon's socket server: a Unix socket (mode 0600) where each connection carries one request line
and gets one reply line, dispatched through a table of operations.

Protocol (the client end is `watch.transport.daemon_request`); UTF-8 JSON, one object per line:

    request  {"op": NAME, ...fields of that op}
    reply    {"ok": true, ...results of that op}
          or {"ok": false, "error": MESSAGE[, "kind": "AimateError", "BadRequest" or the exception's type,
                                              "hint": HINT]}

The operations (the table is `Daemon.operations`; adding one is one entry there, name → `Operation`:
its handler and the table of the fields its request may carry, each a `Field` with its rule):

    op        request fields                          reply fields
    ping      -                                       pid
    status    -                                       running, pid, uptime_seconds, started_at, vaults,
                                                      last_refresh, last_maintenance[_summary], queue, current,
                                                      errors, rss_bytes, model_loaded, searches_served, socket, log,
                                                      recent_tasks (the last 50: name, finished, queued_ms,
                                                      wall_ms, cpu_ms — watch.tasks.TaskTiming)
    stop      -                                       pid, stopping (exits after the current task)
    search    query, limit=10, where={MemoryFilter     SearchRecord.to_dict(): results=[HitRecord.to_dict(
              as JSON}, cwd, project, global_only,    explain=True)], mode, warnings, elapsed_ms, vaults
              no_refresh                                 (system.records)
    context   query=null, budget=null,                sections, total_tokens, budget, warnings, text
              budget_setting=null (a config key to    (ContextRecord.to_dict())
              read the budget from), + the project
              fields of search
    remember  text, source="cli", thread=null,        result=CaptureRecord.to_dict()
              status=null ("pending": for review) or
              status_setting (a config key to read
              it from), force, confidence, scope, kind
              (as MCP passes them), + project fields
    converse  role, content, session=null (a client   result=AppendRecord.to_dict() (the turn appended)
              session id), + project fields
    end_session  session=null, + project fields       ended (false when that session was not running)
    refresh   project fields                          - (stale vaults of that project refreshed)
    maintain  -                                       summary={vault key: summary}
    sync      -                                       reports={vault key: RefreshReport.as_dict()}
    reload    wait=false                              added=[vault keys]; without `wait`, {"ok": true} at once
    hook      (added by `integrations.daemon`, the daemon as installed: a whole hook answered here)

The project fields (search, context, remember, converse, end_session, refresh) pick the vaults as the CLI does:
`project` (a folder), else found from `cwd`; `global_only`; `no_refresh` skips syncing stale vaults first.
They are the verbs of `system.client.MemoryClient`; `watch.client.DaemonClient` sends them.

ping, status and stop are answered on the connection's thread; the others are queued for the daemon's
main thread (in order, never interleaved) and take `timeout` (seconds, default 120) → "OP timed out".

Every request is answered, never closed on silently (docs/reliability.md, "Security"): a peer that is not
the daemon's user, a line over 1 MiB (`transport.MAX_REQUEST_BYTES`, read in linear time) or not all sent
within 30 s, a line that is not a JSON object, an unknown op, a field the op does not take, a missing one
or a value breaking its rule (`"timeout": [1]`, `"limit": true`, a relative `cwd`) → {"ok": false,
"kind": "BadRequest", "error": "bad request: …"}, and a handler's exception → its error reply; a daemon
that is stopping → {"ok": false, "error": "the daemon is stopping"}. A client falls back to doing the
work itself on any of these but an AimateError, which it shows.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aimate_memory.config.defaults import BUDGET_KEYS, MAX_CONTEXT_BUDGET
from aimate_memory.errors import AimateError
from aimate_memory.watch.private_socket import ensure_socket_folder, is_own_user, peer_of
from aimate_memory.watch.tasks import error_reply
from aimate_memory.watch.transport import MAX_REQUEST_BYTES

log = logging.getLogger("aimate.daemon")

Request = dict[str, Any]
Reply = dict[str, Any]
Handler = Callable[[Request], Reply]

RECV_BYTES = 65536
CONNECTION_TIMEOUT = 30.0  # seconds a client may take to send its whole line
BAD_REQUEST = "BadRequest"  # the reply's `kind` for a request refused before it ran


class RequestError(ValueError):
    """A request that is refused before any handler sees it; its message is the reply's `error`."""


@dataclass(frozen=True)
class Field:
    """One request field: what it must be (`rule`, said in the error) and the test of it."""

    rule: str
    valid: Callable[[Any], bool]
    required: bool = False


@dataclass(frozen=True)
class Operation:
    """An op of the protocol: its handler and the fields its request may carry (any other is refused)."""

    handler: Handler
    fields: Mapping[str, Field] = field(default_factory=dict)


def _is_number(value: Any) -> bool:
    # isfinite on an int of 400 digits raises OverflowError: whole numbers are finite anyway.
    return _is_whole(value) or (isinstance(value, float) and math.isfinite(value))


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_absolute_path(value: Any) -> bool:
    return isinstance(value, str) and os.path.isabs(value) and "\0" not in value


MAX_TIMEOUT = 3600.0  # a client waiting longer than an hour for one answer has gone
MAX_LIMIT = 1000

STRING = Field("a string", lambda value: isinstance(value, str))
TEXT = Field(STRING.rule, STRING.valid, required=True)
OPTIONAL_TEXT = Field("a string or null", lambda value: value is None or isinstance(value, str))
FLAG = Field("true or false", lambda value: isinstance(value, bool))
FOLDER = Field("an absolute path or null", lambda value: value is None or _is_absolute_path(value))
SECONDS = Field(
    f"a number of seconds above 0 and at most {MAX_TIMEOUT:.0f}",
    lambda value: _is_number(value) and 0 < value <= MAX_TIMEOUT,
)
LIMIT = Field(f"a whole number from 1 to {MAX_LIMIT}", lambda value: _is_whole(value) and 1 <= value <= MAX_LIMIT)
CONFIDENCE = Field(
    "a number from 0 to 1, or null", lambda value: value is None or (_is_number(value) and 0 <= value <= 1)
)
TOKENS = Field(
    f"a whole number of tokens from 1 to {MAX_CONTEXT_BUDGET}, or null",
    lambda value: value is None or (_is_whole(value) and 1 <= value <= MAX_CONTEXT_BUDGET),
)
BUDGET_SETTING = Field(f"{' or '.join(BUDGET_KEYS)}, or null", lambda value: value is None or value in BUDGET_KEYS)


def check_fields(request: Request, fields: Mapping[str, Field]) -> None:
    """Raise RequestError for a field the op does not take, a required one missing, or a value that
    breaks its rule."""
    for name, value in request.items():
        if name == "op":
            continue
        rule = fields.get(name)
        # Never the request's own text in the reply: a value or a mistyped name can be a secret the client
        # sent (docs/reliability.md, "Security").
        if rule is None:
            raise RequestError(f"a field op {request['op']!r} does not take (it takes: {', '.join(fields)})")
        if not rule.valid(value):
            raise RequestError(f"field {name!r} must be {rule.rule}, not {_kind(value)}")
    missing = [name for name, rule in fields.items() if rule.required and name not in request]
    if missing:
        raise RequestError(f"op {request['op']!r} needs the field {missing[0]!r}")


def _kind(value: Any) -> str:
    """What a value is, without the value: `a string`, `a number`, `null`…"""
    kinds = (
        (bool, "true or false"),
        (int | float, "a number"),
        (str, "a string"),
        (list, "a list"),
        (dict, "an object"),
    )
    return "null" if value is None else next((kind for cls, kind in kinds if isinstance(value, cls)), "something else")


def dispatch(operations: Mapping[str, Operation], request: Request) -> Reply:
    """The handler for `request["op"]`, called with the request once its fields are checked; an error
    reply for an unknown op or a bad field."""
    op = request.get("op")
    operation = operations.get(op) if isinstance(op, str) else None
    try:
        if operation is None:
            raise RequestError(f"unknown op (the ops: {', '.join(operations)})")
        check_fields(request, operation.fields)
    except RequestError as exc:
        return bad_request(str(exc))
    return operation.handler(request)


def bad_request(message: str) -> Reply:
    return {"ok": False, "kind": BAD_REQUEST, "error": f"bad request: {message}"}


class SocketServer:
    """Listen on `path`; each connection is served by a short thread of its own."""

    def __init__(self, home: Path, operations: Mapping[str, Operation]) -> None:
        self.home = home
        self.operations = operations
        self.path: Path | None = None
        self._socket: socket.socket | None = None

    def start(self) -> None:
        """Bind the socket in its verified private folder (raises UnsafeSocketFolder when the folder is
        not the person's own) and serve it on a thread."""
        self.path = ensure_socket_folder(self.home)
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
        if self.path is not None:
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
            reply = self._answer(conn)
            with contextlib.suppress(OSError):
                conn.settimeout(CONNECTION_TIMEOUT)
                conn.sendall(json.dumps(reply, ensure_ascii=False, default=str).encode("utf-8") + b"\n")

    def _answer(self, conn: socket.socket) -> Reply:
        """The reply to the connection's request; every failure is an error reply, never a silent close."""
        try:
            peer = peer_of(conn)
            if not is_own_user(peer):
                assert peer is not None
                log.warning("refused a connection from uid %d (pid %s)", peer.uid, peer.pid)
                return bad_request(f"uid {peer.uid} is not the daemon's user")
            return dispatch(self.operations, parse_request(read_line(conn)))
        except RequestError as exc:
            return bad_request(str(exc))
        except AimateError as exc:  # a project folder that does not exist, say: the client shows it
            return error_reply(exc)
        except Exception as exc:  # a handler's failure is the client's answer, and the daemon goes on
            log.exception("request failed")
            return error_reply(exc)


def read_line(conn: socket.socket, limit: int = MAX_REQUEST_BYTES, seconds: float = CONNECTION_TIMEOUT) -> bytes:
    """One request line (without its newline), read in linear time: refused past `limit` bytes or when it
    has not all arrived within `seconds`."""
    deadline = time.monotonic() + seconds
    line = bytearray()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise RequestError(f"the request did not arrive within {seconds:g} s")
        conn.settimeout(remaining)
        try:
            chunk = conn.recv(RECV_BYTES)
        except TimeoutError:
            raise RequestError(f"the request did not arrive within {seconds:g} s") from None
        end = chunk.find(b"\n")
        line += chunk if end < 0 else chunk[:end]
        if len(line) >= limit:  # the newline counts: a line of `limit` bytes has no room for it
            raise RequestError(f"the request is longer than {limit} bytes")
        if end >= 0 or not chunk:
            return bytes(line)


def parse_request(line: bytes) -> Request:
    """A request line as a JSON object; RequestError for anything else."""
    if not line.strip():
        raise RequestError("empty request")
    try:
        request = json.loads(line)
    except (ValueError, RecursionError) as exc:  # RecursionError: thousands of nested brackets
        raise RequestError(f"not JSON ({type(exc).__name__}: {str(exc)[:80]})") from None
    if not isinstance(request, dict):
        raise RequestError("a request is a JSON object")
    return request
