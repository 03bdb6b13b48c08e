"""JSON-RPC 2.0 at the edge of `aimate mem mcp` (mcp/protocol.py): every request with an id gets exactly one
reply, with the code the spec gives, spoken as raw JSON lines to the real server process.

Before: a request whose params had the wrong type, `"jsonrpc": "1.0"` or no method got no reply (the client
waited forever), a line that was not JSON an "Internal Server Error" notification, an unknown method
-32602, and `confidence: 5` was accepted."""

from __future__ import annotations

import json
import queue
import stat
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from aimate_memory.mcp.protocol import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    check_envelope,
)
from aimate_memory.mcp.server import check_params
from tests.conftest import AIMATE
from tests.mcp.conftest import server_env

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

# (line, id the reply carries, expected error code or None for a result)
CASES: list[tuple[Any, Any, int | None]] = [
    ("not json {", None, PARSE_ERROR),
    ('{"jsonrpc": "2.0", "id": 2, "method": "ping"', None, PARSE_ERROR),
    ({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}, 3, METHOD_NOT_FOUND),
    ({"jsonrpc": "2.0", "id": "四", "method": "记忆/搜索"}, "四", METHOD_NOT_FOUND),
    ({"jsonrpc": "2.0", "id": 5, "method": "tools/call"}, 5, INVALID_PARAMS),
    ({"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {"cursor": 5}}, 6, INVALID_PARAMS),
    ({"jsonrpc": "1.0", "id": 7, "method": "ping"}, 7, INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": 8}, 8, INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": 9, "method": 42}, 9, INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": "memory_search"}, 10, INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}, None, INVALID_REQUEST),
    ([{"jsonrpc": "2.0", "id": 12, "method": "ping"}], None, INVALID_REQUEST),
    ("[]", None, INVALID_REQUEST),
    ('"ping"', None, INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": 15, "method": "ping"}, 15, None),
    ({"jsonrpc": "2.0", "method": "notifications/no-such"}, "no reply", None),
    ({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"}, "no reply", None),
]


def _line(item: Any) -> str:
    return (item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)) + "\n"


class RawServer:
    """`aimate mem mcp` with raw stdin/stdout; replies collected by a reader thread."""

    def __init__(self, home: Path, cwd: Path, env: dict[str, str]) -> None:
        self.home = home
        self.proc = subprocess.Popen(
            [str(AIMATE), "mem", "mcp"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.replies.put(json.loads(raw))

    def send(self, *items: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(_line(item) for item in items).encode("utf-8"))
        self.proc.stdin.flush()

    def collect(self, count: int, timeout: float = 90) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        got = []
        while len(got) < count:
            got.append(self.replies.get(timeout=max(0.1, deadline - time.monotonic())))
        return got

    def close(self) -> list[dict[str, Any]]:
        """Close stdin; what else the server wrote before it exited."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        time.sleep(0.2)
        rest = []
        while not self.replies.empty():
            rest.append(self.replies.get())
        return rest


@pytest.fixture(params=["front", "sdk-only"])
def raw_server(request, tmp_path: Path):
    home = tmp_path / "home"
    env = server_env(home)
    if request.param == "sdk-only":
        env["AIMATE_MCP_FRONT"] = "0"
    server = RawServer(home, tmp_path, env)
    yield server
    if server.proc.poll() is None:
        server.proc.kill()
        server.proc.wait()


def test_every_request_gets_exactly_one_reply_with_the_spec_code(raw_server: RawServer) -> None:
    raw_server.send(INITIALIZE, INITIALIZED, *(line for line, _, _ in CASES))
    answered = [case for case in CASES if case[1] != "no reply"]
    replies = raw_server.collect(1 + len(answered))
    assert all("method" not in reply and reply["jsonrpc"] == "2.0" for reply in replies), "replies, no notifications"
    # Replies may come in any order (JSON-RPC): compare them as (id, error code or "result") pairs.
    got = sorted(
        json.dumps([reply["id"], reply["error"]["code"] if "error" in reply else "result"]) for reply in replies
    )
    wanted = [["init", "result"]] + [[reply_id, code or "result"] for _, reply_id, code in answered]
    assert got == sorted(json.dumps(pair) for pair in wanted)
    assert next(reply for reply in replies if reply["id"] == 15)["result"] == {}
    assert raw_server.close() == [], "nothing more: exactly one reply each"
    log = raw_server.home / "state" / "mcp.log"
    assert "refused a message" in log.read_text(encoding="utf-8")
    assert stat.S_IMODE(log.stat().st_mode) == 0o600 and stat.S_IMODE(log.parent.stat().st_mode) == 0o700


def test_a_tool_argument_out_of_range_is_refused(raw_server: RawServer) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": "remember",
        "method": "tools/call",
        "params": {"name": "memory_remember", "arguments": {"text": "我们选用 Redis 做缓存", "confidence": 5}},
    }
    update = {
        "jsonrpc": "2.0",
        "id": "update",
        "method": "tools/call",
        "params": {"name": "memory_update", "arguments": {"id": "abc", "importance": 9}},
    }
    raw_server.send(INITIALIZE, INITIALIZED, call, update)
    replies = {reply["id"]: reply for reply in raw_server.collect(3)}
    for key, field in (("remember", "confidence"), ("update", "importance")):
        result = replies[key]["result"]
        assert result["isError"] is True
        assert f"invalid {field}" in result["content"][0]["text"]
    raw_server.close()


# -- the checks, pure ---------------------------------------------------------------------------------


def test_a_blank_line_is_skipped_without_a_reply() -> None:
    assert check_envelope("   \n").reply is None and check_envelope("\n").message is None


def test_the_clients_answer_to_a_server_request_passes() -> None:
    message = {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert check_envelope(json.dumps(message)).message == message
    assert check_params(message) is None


def test_params_problems_name_the_field_not_the_value() -> None:
    secret = "AKIAIOSFODNN7EXAMPLE"
    verdict = check_params({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": [secret]}})
    assert verdict is not None and verdict.reply is not None
    assert verdict.reply["error"]["code"] == INVALID_PARAMS
    assert "params.cursor" in verdict.reply["error"]["data"] and secret not in verdict.reply["error"]["data"]


def test_valid_requests_pass_untouched() -> None:
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_search", "arguments": {}}},
        {"jsonrpc": "2.0", "id": "x", "method": "tools/list"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ):
        assert check_envelope(json.dumps(message)).message == message
        assert check_params(message) is None
