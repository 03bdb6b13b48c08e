"""JSON-RPC 2.0 as MCP speaks it, checked line by line before the SDK reads a message (docs/agents.md,
"MCP server"). Stdlib only: the front (`mcp/front.py`) uses the same envelope check before the SDK loads.

The SDK (mcp 1.x) left a client waiting: a request that failed its validation got no reply at all when
its params were of the wrong type, a line that was not JSON got an "Internal Server Error" notification,
an unknown method `-32602`. Here every request with an id gets exactly one reply: the SDK's, or one of these
errors written by the `Gate` —

- `-32700` parse error: the line is not JSON (id null: there is no id to answer);
- `-32600` invalid request: not a JSON-RPC 2.0 object (a batch, `"jsonrpc": "1.0"`, no method, an id that
  is not a string or a number — then id null);
- `-32601` method not found: a request for a method MCP does not have;
- `-32602` invalid params: the method's params are not what MCP says (`check_params`, given by the server);
- `-32600` with the id as sent for a number id that is not whole (`1.5`): MCP's ids are strings or integers.

The server answers `resources/read` of an unknown URI with `-32002` and `prompts/get` of an unknown prompt
with `-32602` (the SDK's own answer was code 0, which is no JSON-RPC error code).

A notification never gets a reply (JSON-RPC forbids it): an unknown or malformed one is dropped and logged.
A tool call's own arguments (`confidence: 5`) are the tool's to refuse, as an `isError` result the model
reads (MCP: "tool execution errors"), not as a protocol error.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
RESOURCE_NOT_FOUND = -32002  # MCP's code for resources/read of a URI the server does not have

Message = dict[str, Any]


@dataclass(frozen=True)
class Verdict:
    """What to do with one line: pass `message` on (None: do not), and/or write `reply`."""

    message: Message | None = None
    reply: Message | None = None


def error_reply(request_id: Any, code: int, message: str, detail: str | None = None) -> Message:
    error: Message = {"code": code, "message": message}
    if detail:
        error["data"] = detail
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def method_not_found(request_id: Any, method: str) -> Message:
    """The reply to a request for a method the server lacks (the front's and the gate's alike)."""
    return error_reply(request_id, METHOD_NOT_FOUND, "Method not found", method[:100])


def check_envelope(line: str) -> Verdict:
    """The JSON-RPC 2.0 checks that need no knowledge of MCP's methods. A blank line is skipped silently."""
    if not line.strip():
        return Verdict()
    try:
        message = json.loads(line)
    except ValueError as exc:
        return Verdict(reply=error_reply(None, PARSE_ERROR, "Parse error", str(exc)))
    if isinstance(message, list):
        return Verdict(reply=error_reply(None, INVALID_REQUEST, "Invalid Request", "batches are not supported"))
    if not isinstance(message, dict):
        return Verdict(reply=error_reply(None, INVALID_REQUEST, "Invalid Request", "a message is a JSON object"))
    has_id = "id" in message
    request_id = message.get("id")
    if has_id and not _valid_id(request_id):
        return Verdict(reply=error_reply(None, INVALID_REQUEST, "Invalid Request", "id must be a string or a number"))
    if isinstance(request_id, float) and not request_id.is_integer():
        # JSON-RPC's numbers, but MCP's ids are strings or integers: the SDK would drop `1.5` without a reply.
        # The id is answered as sent, so the client can match the error to its request.
        return Verdict(
            reply=error_reply(request_id, INVALID_REQUEST, "Invalid Request", "id must be a string or an integer")
        )
    problem = _envelope_problem(message)
    if problem is None:
        return Verdict(message=message)
    if not has_id and isinstance(message.get("method"), str):
        return Verdict()  # a malformed notification: nobody waits for an answer
    return Verdict(reply=error_reply(request_id, INVALID_REQUEST, "Invalid Request", problem))


def _valid_id(value: Any) -> bool:
    # MCP forbids a null id; a bool is not a number in JSON-RPC's sense.
    return isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool))


def _envelope_problem(message: Message) -> str | None:
    if message.get("jsonrpc") != "2.0":
        return 'jsonrpc must be "2.0"'
    if "method" not in message:
        if "id" in message and ("result" in message or "error" in message):
            return None  # the client's answer to a request of ours
        return "a request needs a method"
    if not isinstance(message["method"], str):
        return "method must be a string"
    if "params" in message and not isinstance(message["params"], dict):
        return "params must be an object"
    return None


class LineOut(Protocol):
    def write(self, text: str) -> int: ...

    def flush(self) -> None: ...


class LockedOut:
    """One writer for the SDK's replies and the gate's: each message is written whole, never interleaved
    (the SDK writes from its task, the gate from the thread reading stdin)."""

    def __init__(self, out: LineOut) -> None:
        self._out = out
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            return self._out.write(text)

    def flush(self) -> None:
        with self._lock:
            self._out.flush()

    def send(self, message: Message) -> None:
        with self._lock:
            self._out.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n")
            self._out.flush()


class LineSource(Protocol):
    def readline(self) -> str: ...


class Gate:
    """The SDK's stdin: a line that is a valid message goes on; for any other, the error reply is written
    here and the next line is read. `check_params` judges a message whose envelope is valid (MCP's methods
    and their params) and returns a Verdict to answer or drop it, None to pass it on."""

    def __init__(
        self,
        source: LineSource,
        out: LockedOut,
        check_params: Callable[[Message], Verdict | None],
        on_refused: Callable[[str], None] = lambda reason: None,
    ) -> None:
        self._source = source
        self._out = out
        self._check_params = check_params
        self._on_refused = on_refused

    def readline(self) -> str:
        while True:
            line = self._source.readline()
            if not line:
                return line
            verdict = check_envelope(line)
            if verdict.message is not None:
                verdict = self._check_params(verdict.message) or verdict
            if verdict.reply is not None:
                self._out.send(verdict.reply)
            if verdict.reply is not None and "error" in verdict.reply:  # not `server/discover`'s answer
                self._on_refused(f"{verdict.reply['error']['message']}: {verdict.reply['error'].get('data', '')}")
            if verdict.message is not None:
                return line
            if verdict.reply is None and line.strip():
                self._on_refused("dropped a notification it does not know, or a malformed one")
