"""The front of `aimate mem mcp`: answers a client's first messages before the SDK is imported.

Importing the MCP SDK is most of a cold server start (~0.5 s CPU; seconds of wall time on a loaded machine),
and clients wait for `initialize` and `tools/list` before they show the tools (docs/agents.md, "Latency").
So this module, stdlib only, answers from `mcp/listing.py` — the SDK's own answers, generated from
`mcp.server` and kept equal to them by a test — and imports the SDK on a thread only when a line needs it,
or `SDK_IMPORT_DELAY_S` after it started, whichever comes first. Not at once: a client starts its servers
together with its own start-up and its session-start hook, and the import's second of CPU, taken then from
one of two cores, is what a session waited for (docs/agents.md, "Inside the real assistants"). What the
front answers:

- `initialize` (with the protocol version negotiated as the SDK does), `notifications/initialized`, `ping`;
- after `initialize`, the parameterless list requests (`tools/list`, `resources/list`, …);
- a request for a method MCP does not have, before or after `initialize`: `-32601`, as `mcp/protocol.py`'s
  gate answers it once the SDK is there;
- `server/discover` and the 2026-07-28 requests (`_meta` with a protocol version, no `initialize`): the
  discover result, an envelope's error, and the lists above (`mcp/modern.py`). Claude Code 2.1 opens with
  `server/discover` (the spec's stdio probe); held for the SDK, the probe made every session wait for the
  import (docs/agents.md, "Latency").

Anything else (a tool call, a cursor, a line that is not JSON) waits for the SDK, behind `mcp/protocol.py`'s
gate, which answers what is not a valid MCP request with the JSON-RPC error. Once it is imported the
stream is handed over: every line answered here is replayed to the SDK first — its session state is then
the same as if it had read them — and its replies to those lines are dropped; then it reads stdin on.
`AIMATE_MCP_FRONT=0` serves with the SDK alone (for comparing the two).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from aimate_memory.mcp import listing, modern
from aimate_memory.mcp.protocol import check_envelope, method_not_found

LOADED = object()  # put on the line queue when the SDK is imported (or failed to be)
# When the SDK is imported if no line needed it before: past a client's start-up (a `claude -p` run takes
# ~0.8 s here) and before a person has typed a question that makes the model call a tool.
SDK_IMPORT_DELAY_S = 2.0
LISTED = set(listing.ANSWERS) - {"initialize"}
KNOWN_REQUESTS = frozenset(listing.REQUEST_METHODS)
Message = dict[str, Any]


def serve(open_system: Callable[[], Any], project: Path | None = None, global_only: bool = False) -> None:
    """`mcp.server.serve`, with this front answering until the SDK is imported."""
    signal.signal(signal.SIGINT, _stop)
    if os.environ.get("AIMATE_MCP_FRONT") == "0":
        import_server()
        from aimate_memory.mcp.server import serve as serve_sdk

        serve_sdk(open_system, project, global_only)
        return
    lines: queue.Queue[Any] = queue.Queue()
    failure: list[BaseException] = []
    threading.Thread(target=_read_lines, args=(sys.stdin.buffer, lines), name="aimate-mcp-stdin", daemon=True).start()
    loader = SdkLoader(lines, failure)
    timer = threading.Timer(SDK_IMPORT_DELAY_S, loader.start)
    timer.daemon = True
    timer.start()
    front = Front(sys.stdout.buffer)
    pending = front.answer_until_loaded(lines, needed=loader.start)
    timer.cancel()
    if failure:
        raise failure[0]
    if pending is None:
        return  # the client closed stdin before anything needed the SDK
    from aimate_memory.mcp.server import serve as serve_sdk

    replay = ReplayedLines(front.answered + pending, lines)
    serve_sdk(open_system, project, global_only, stdin=replay, stdout=ReplyFilter(sys.stdout.buffer, front.ids))


class Front:
    """Answers what `listing` answers, writing to `out`; remembers the lines it answered and their ids."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.answered: list[str] = []
        self.ids: list[Any] = []
        self.initialized = False

    def answer_until_loaded(
        self, lines: queue.Queue[Any], needed: Callable[[], None] = lambda: None
    ) -> list[str] | None:
        """Answer lines until the SDK is imported; the lines it must read after those answered here
        (None: stdin closed first). After a line it cannot answer, every later one waits for it too;
        `needed` is called at the first such line (the SDK's import starts then, if not already)."""
        pending: list[str] = []
        while True:
            item = lines.get()
            if item is LOADED:
                return pending
            if item == "":
                if not pending:
                    return None
                pending.append(item)
            elif pending or not self.answer(item):
                pending.append(item)
                needed()

    def answer(self, line: str) -> bool:
        """Answer `line` here when it is one of ours; False when the SDK must."""
        message = _parse(line)
        if message is None:
            return False
        method: str = message["method"]  # `_parse` passes only a string method
        params = message.get("params") or {}
        answered_here = modern.check(message)  # `server/discover`, a bad 2026-07-28 envelope: never replayed
        if answered_here is not None and answered_here.reply is not None:
            self._write(answered_here.reply)
            return True
        if "id" in message and method not in KNOWN_REQUESTS:
            # Not replayed: the SDK's gate would refuse it alike, and it changes no state.
            self._write(method_not_found(message["id"], method))
            return True
        if "id" not in message:
            reply = None
            if method != "notifications/initialized" or not self.initialized:
                return False
        elif method == "initialize" and not self.initialized:
            reply = _initialize_result(params)
            self.initialized = True
        elif method == "ping":
            reply = {}
        elif method in LISTED and (self.initialized or modern.is_modern(message)) and not params.get("cursor"):
            reply = listing.ANSWERS[method]
        else:
            return False
        if "id" in message:
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": reply}
            self._write(modern.completed(answer) if modern.is_modern(message) else answer)
            self.ids.append(message["id"])
        self.answered.append(line)
        return True

    def _write(self, message: Message) -> None:
        self.out.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
        self.out.flush()


def _stop(signum: int, frame: object) -> None:
    """SIGINT is how Claude Code stops a stdio server (then SIGTERM 100 ms later). Python's own handling took
    1–1.4 s and then aborted ("Fatal Python error: _enter_buffered_busy", exit -6, on stderr): the stdin reader
    thread holds its lock at shutdown. Exit at once, as SIGTERM would: every write of ours is atomic (a file
    is replaced whole, SQLite commits or rolls back), so nothing is lost that SIGTERM would have kept."""
    os._exit(0)


def _initialize_result(params: Message) -> Message:
    requested = params.get("protocolVersion")
    version = requested if requested in listing.SUPPORTED_VERSIONS else listing.LATEST_VERSION
    return {"protocolVersion": version, **listing.ANSWERS["initialize"]}


def _parse(line: str) -> Message | None:
    """A valid request or notification (`protocol.check_envelope`); anything else is the SDK's gate's to
    answer (None)."""
    message = check_envelope(line).message
    return message if message is not None and isinstance(message.get("method"), str) else None


def _read_lines(stream: BinaryIO, lines: queue.Queue[Any]) -> None:
    """stdin to the queue, line by line; "" at the end."""
    try:
        for raw in iter(stream.readline, b""):
            lines.put(raw.decode("utf-8", errors="replace"))
    finally:
        lines.put("")


class SdkLoader:
    """Imports the SDK on a thread, once, at the first `start()`; puts LOADED on the line queue when done."""

    def __init__(self, lines: queue.Queue[Any], failure: list[BaseException]) -> None:
        self._lines = lines
        self._failure = failure
        self._started = threading.Lock()

    def start(self) -> None:
        if self._started.acquire(blocking=False):
            threading.Thread(target=self._load, name="aimate-mcp-import", daemon=True).start()

    def _load(self) -> None:
        try:
            import_server()
        except BaseException as exc:
            self._failure.append(exc)
        finally:
            self._lines.put(LOADED)


def import_server() -> None:
    """Import `mcp.server` (the SDK, pydantic, our tools) for a stdio server, without the SDK package's own
    `__init__`: it re-exports the client side too — `ClientSession`, the stdio and session-group clients, ~150 ms
    of a server start's ~1 s of CPU (docs/design.md, "Every process's start, third round") — which a server never
    uses. The package is registered bare (its spec, path and loader, nothing run), so `mcp.types` and
    `mcp.server.*` import as usual. Only where nothing imported `mcp` yet: a process that did (a test's client)
    keeps the whole package."""
    if "mcp" not in sys.modules:
        import importlib.util

        spec = importlib.util.find_spec("mcp")
        if spec is not None and spec.submodule_search_locations is not None:
            sys.modules["mcp"] = importlib.util.module_from_spec(spec)
    import aimate_memory.mcp.server  # noqa: F401


class ReplayedLines:
    """The SDK's stdin: the lines the front answered or held back, then the rest of stdin as read."""

    def __init__(self, first: list[str], lines: queue.Queue[Any]) -> None:
        self._first = list(first)
        self._lines = lines

    def readline(self) -> str:
        if self._first:
            return self._first.pop(0)
        item = self._lines.get()
        while item is LOADED:
            item = self._lines.get()
        if item == "":
            self._lines.put("")  # every later read sees the end too
        return str(item)


class ReplyFilter:
    """The SDK's stdout: its replies to the requests the front answered are dropped, all else written."""

    def __init__(self, out: BinaryIO, ids: list[Any]) -> None:
        self._out = out
        self._ids = list(ids)

    def write(self, text: str) -> int:
        if self._ids and self._is_answered(text):
            return len(text)
        self._out.write(text.encode("utf-8"))
        return len(text)

    def flush(self) -> None:
        self._out.flush()

    def _is_answered(self, text: str) -> bool:
        try:
            message = json.loads(text)
        except ValueError:
            return False
        if not isinstance(message, dict) or "method" in message or message.get("id") not in self._ids:
            return False
        self._ids.remove(message["id"])
        return True
