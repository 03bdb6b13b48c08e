"""MCP 2026-07-28 (the stateless revision) beside the 2025 handshake, over the SDK 1.x (docs/agents.md,
"Both protocols"). Stdlib only: the front (`mcp/front.py`) answers with it before the SDK is imported.

What the 2026-07-28 spec asks of a server, and how it is met here:

- `server/discover` is required: it answers `supportedVersions`, `capabilities`, `serverInfo` and
  `instructions` (basic/versioning, server/discover). Answered here, from `mcp/listing.py`, never by the SDK.
- No `initialize`: every request carries `_meta` with `io.modelcontextprotocol/protocolVersion` and
  `io.modelcontextprotocol/clientCapabilities`. A request whose envelope lacks one gets `-32602` naming it; a
  version this server does not speak gets `-32022` (UnsupportedProtocolVersionError) with
  `data: {supported, requested}`.
- Every result carries `resultType` (`"complete"` here: this server never asks the client for input).

The SDK 1.x refuses a request before `initialize` ("Received request before initialization was complete",
`-32602` and a stderr line). So `ImplicitSession` gives it one: before the first message that is not an
`initialize`, it hands the SDK a private `initialize` (the legacy version the SDK knows, the client's
capabilities from `_meta`) whose reply `ModernReplies` drops. A legacy client that skips the handshake is
served the same way. Each request is judged on its own, as the spec asks (a modern request carries its own
version; nothing is inferred from an earlier one), so one stdio stream may carry both eras.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from aimate_memory.mcp import listing
from aimate_memory.mcp.protocol import INVALID_PARAMS, LineOut, LineSource, Message, Verdict, error_reply

MODERN_VERSIONS = ("2026-07-28",)
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
DISCOVER = "server/discover"
UNSUPPORTED_PROTOCOL_VERSION = -32022  # the spec's UnsupportedProtocolVersionError
# The id of the `initialize` ImplicitSession gives the SDK; its reply never reaches the client.
IMPLICIT_ID = "aimate:implicit-initialize"


def meta_of(message: Message) -> dict[str, Any] | None:
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return meta if isinstance(meta, dict) else None


def is_modern(message: Message) -> bool:
    """A 2026-07-28 request: its `_meta` names a protocol version (legacy `_meta` holds only a progress
    token; the key's prefix is reserved by the spec)."""
    meta = meta_of(message)
    return meta is not None and VERSION_KEY in meta and message.get("method") != "initialize"


def discover_result() -> Message:
    """`server/discover`'s result: the same capabilities, identity and instructions as `initialize`."""
    return {"resultType": "complete", "supportedVersions": list(MODERN_VERSIONS), **listing.ANSWERS["initialize"]}


def check(message: Message) -> Verdict | None:
    """The reply to a request only this module answers: `server/discover` (in either era), or a modern
    request whose envelope is incomplete or whose version is not ours. None: it goes on to the SDK."""
    if "id" not in message:
        return None
    request_id = message["id"]
    modern = is_modern(message)
    if modern:
        problem = envelope_problem(message)
        if problem is not None:
            return Verdict(reply=problem)
    if message.get("method") == DISCOVER:
        return Verdict(reply={"jsonrpc": "2.0", "id": request_id, "result": discover_result()})
    return None


def envelope_problem(message: Message) -> Message | None:
    meta = meta_of(message) or {}
    missing = [key for key in (VERSION_KEY, CAPABILITIES_KEY) if key not in meta]
    if missing:
        detail = f"params._meta lacks {', '.join(missing)}"
        return error_reply(message["id"], INVALID_PARAMS, "Invalid params", detail)
    version = meta[VERSION_KEY]
    if not isinstance(version, str):
        return error_reply(message["id"], INVALID_PARAMS, "Invalid params", f"{VERSION_KEY} must be a string")
    if version not in MODERN_VERSIONS:
        reply = error_reply(message["id"], UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        reply["error"]["data"] = {"supported": list(MODERN_VERSIONS), "requested": version[:100]}
        return reply
    return None


def completed(reply: Message) -> Message:
    """A modern request's reply: its result marked complete (errors are left as they are)."""
    result = reply.get("result")
    if isinstance(result, dict) and "resultType" not in result:
        reply = {**reply, "result": {"resultType": "complete", **result}}
    return reply


def implicit_initialize(message: Message) -> str:
    """The `initialize` line the SDK is given before a first message that is not one."""
    meta = meta_of(message) or {}
    capabilities = meta.get(CAPABILITIES_KEY)
    client = meta.get(CLIENT_INFO_KEY)
    if not isinstance(client, dict) or "name" not in client:
        client = {"name": "stateless", "version": "0"}
    capabilities = capabilities if isinstance(capabilities, dict) else {}
    params = {"protocolVersion": listing.LATEST_VERSION, "capabilities": capabilities, "clientInfo": client}
    return json.dumps({"jsonrpc": "2.0", "id": IMPLICIT_ID, "method": "initialize", "params": params}) + "\n"


class ModernReplies:
    """The SDK's stdout: drops the reply to the implicit `initialize`, marks modern requests' results complete.
    Each SDK write is one whole message (its stdio transport writes `json + "\\n"` at once)."""

    def __init__(self, out: LineOut) -> None:
        self._out = out
        self._modern: list[Any] = []
        self._lock = threading.Lock()

    def expect_modern(self, request_id: Any) -> None:
        with self._lock:
            self._modern.append(request_id)

    def write(self, text: str) -> int:
        message = _reply_of(text)
        if message is None:
            return self._out.write(text)
        if message.get("id") == IMPLICIT_ID:
            return len(text)
        with self._lock:
            modern = message.get("id") in self._modern
            if modern:
                self._modern.remove(message["id"])
        if not modern:
            return self._out.write(text)
        self._out.write(json.dumps(completed(message), ensure_ascii=False, separators=(",", ":")) + "\n")
        return len(text)

    def flush(self) -> None:
        self._out.flush()


class ImplicitSession:
    """The SDK's stdin (over the gate): an `initialize` of its own before the first message that is not one,
    and every modern request's id noted for `ModernReplies`."""

    def __init__(self, source: LineSource, replies: ModernReplies) -> None:
        self._source = source
        self._replies = replies
        self._initialized = False
        self._held: str | None = None

    def readline(self) -> str:
        if self._held is not None:
            line, self._held = self._held, None
            return line
        line = self._source.readline()
        message = _request_of(line)
        if message is None:
            return line
        if "id" in message and is_modern(message):
            self._replies.expect_modern(message["id"])
        if message.get("method") == "initialize":
            self._initialized = True
        elif not self._initialized:
            self._initialized = True
            self._held = line
            return implicit_initialize(message)
        return line


def _request_of(line: str) -> Message | None:
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) and isinstance(message.get("method"), str) else None


def _reply_of(text: str) -> Message | None:
    try:
        message = json.loads(text)
    except ValueError:
        return None
    return message if isinstance(message, dict) and "method" not in message and "id" in message else None
