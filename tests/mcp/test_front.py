"""The front of `aimate mem mcp` (`mcp.front`): what it answers before the SDK is imported is what the SDK
answers, byte for byte as JSON, and the stream it hands over goes on as if the SDK had read it all."""

from __future__ import annotations

import io
import json
import queue
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aimate_memory.mcp import listing
from aimate_memory.mcp.front import LOADED, Front
from aimate_memory.mcp.server import static_answers
from tests.mcp.conftest import server_env
from tests.mcp.measure_startup import DISCOVER, RawClient

# Requests a client sends at start, in order; ids as clients send them (numbers, one string).
OPENING = [
    ("initialize", {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    ("tools/list", {}),
    ("resources/list", {}),
    ("resources/templates/list", {}),
    ("prompts/list", {}),
    ("ping", {}),
]


def test_listing_is_what_the_sdk_answers() -> None:
    """Fails when a tool, its description or the SDK changed: regenerate with
    `python -m aimate_memory.mcp.server` and commit aimate_memory/mcp/listing.py."""
    assert static_answers() == {
        "answers": listing.ANSWERS,
        "supported_versions": listing.SUPPORTED_VERSIONS,
        "latest_version": listing.LATEST_VERSION,
        "request_methods": listing.REQUEST_METHODS,
    }


def conversation(env: dict[str, str], cwd: Path, version: str, discover: bool = False) -> list[dict[str, Any]]:
    """The opening requests, then a tool call, as one client would send them; every reply. `discover`:
    Claude Code 2.1's probe first (its reply is not in the list)."""
    client = RawClient(env, cwd)
    replies = []
    try:
        if discover:
            assert client.request("server/discover", DISCOVER)["result"]["supportedVersions"] == ["2026-07-28"]
        for method, params in OPENING:
            if method == "initialize":
                params = {**params, "protocolVersion": version}
            replies.append(client.request(method, params))
            if method == "initialize":
                client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        replies.append(
            client.request("tools/call", {"name": "memory_search", "arguments": {"query": "会话缓存 Redis"}})
        )
        replies.append(client.request("tools/list", {}))  # after the hand-over: the SDK's own answer
    finally:
        client.close()
    return replies


@pytest.mark.parametrize(
    ("version", "discover"),
    # a version the SDK knows; one it does not; Claude Code 2.1's opening (a 2026-07-28 probe, then 2025-11-25)
    [("2025-03-26", False), ("1999-01-01", False), ("2025-11-25", True)],
)
def test_front_and_sdk_answer_alike_and_the_hand_over_keeps_the_session(
    seeded: tuple[Path, Path], version: str, discover: bool
) -> None:
    home, workdir = seeded
    front = conversation(server_env(home), workdir, version, discover)
    sdk = conversation({**server_env(home), "AIMATE_MCP_FRONT": "0"}, workdir, version, discover)
    assert front[:-2] == sdk[:-2]
    assert front[0]["result"]["protocolVersion"] == (
        version if version in listing.SUPPORTED_VERSIONS else listing.LATEST_VERSION
    )
    assert len(front[1]["result"]["tools"]) == 7
    search = front[-2]["result"]
    assert not search.get("isError") and search["structuredContent"]["results"][0]["title"] == "选用 Redis 做会话缓存"

    # The same hits, minus the score: each search counts a use, and a use the first server journaled may or
    # may not be folded in by the time the second one ranks (a flake under load, 2026-11-26).
    def hits(replies: list[dict]) -> list[dict]:
        return [
            {k: v for k, v in hit.items() if k != "score"}
            for hit in replies[-2]["result"]["structuredContent"]["results"]
        ]

    assert hits(front) == hits(sdk)
    assert front[-1] == {**sdk[-1], "id": front[-1]["id"]} and front[-1]["result"] == front[1]["result"]


def test_front_answers_even_when_stdin_closes_at_once(seeded: tuple[Path, Path]) -> None:
    home, workdir = seeded
    client = RawClient(server_env(home), workdir)
    reply = client.request("initialize", dict(OPENING[0][1]))
    assert reply["result"]["serverInfo"]["name"] == "aimate-memory"
    client.close()
    assert client.process.returncode == 0


def test_front_answers_a_probe_and_an_unknown_request_without_waiting_for_the_sdk() -> None:
    """The probe is answered (2026-07-28: `server/discover` is required), and not replayed. Before the fix
    `server/discover` was held for the SDK, and every line after it too: Claude Code's
    `initialize` waited for the import (1.57 s median, issue 30). The SDK never loads here."""
    out = io.BytesIO()
    front = Front(out)
    lines: queue.Queue[Any] = queue.Queue()
    opening = [
        {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": DISCOVER},
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": dict(OPENING[0][1])},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "x", "method": "server/unknown", "params": {}},  # after initialize too
    ]
    for message in opening:
        lines.put(json.dumps(message) + "\n")
    lines.put("")  # stdin closes before the SDK is loaded…
    lines.put(LOADED)  # …which the front, having left nothing for it, never waits for
    assert front.answer_until_loaded(lines) is None  # nothing left for the SDK
    replies = [json.loads(line) for line in out.getvalue().decode().splitlines()]
    assert [reply["id"] for reply in replies] == [0, 1, 2, "x"]
    assert replies[0]["result"]["serverInfo"]["name"] == "aimate-memory"  # the 2026-07-28 discover
    assert replies[3]["error"]["code"] == -32601
    assert len(replies[2]["result"]["tools"]) == 7
    assert 0 not in front.ids and "x" not in front.ids  # refused lines are not replayed to the SDK
    assert len(front.answered) == 3


@pytest.mark.parametrize("front", ["1", "0"])
def test_a_probe_writes_nothing_to_stderr(seeded: tuple[Path, Path], front: str) -> None:
    """Claude Code logs any stderr line of a server as an error (`[ERROR] MCP server "aimate" Server stderr`)."""
    home, workdir = seeded
    client = RawClient({**server_env(home), "AIMATE_MCP_FRONT": front}, workdir, stderr=subprocess.PIPE)
    assert client.request("server/discover", DISCOVER)["result"]["resultType"] == "complete"
    client.request("initialize", {**OPENING[0][1], "protocolVersion": "2025-11-25"})
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert len(client.request("tools/list")["result"]["tools"]) == 7
    assert client.request("server/discover", DISCOVER)["result"]["resultType"] == "complete"  # after the hand-over
    client.close()
    assert client.process.stderr is not None
    assert client.process.stderr.read().decode() == ""


@pytest.mark.parametrize("front", ["1", "0"])
def test_sigint_stops_the_server_at_once_and_quietly(seeded: tuple[Path, Path], front: str) -> None:
    """Claude Code stops its servers with SIGINT. Before, the server aborted after ~1 s with a "Fatal Python
    error" on stderr (exit -6): its stdin thread held the reader's lock at interpreter shutdown."""
    home, workdir = seeded
    client = RawClient({**server_env(home), "AIMATE_MCP_FRONT": front}, workdir, stderr=subprocess.PIPE)
    client.request("initialize", dict(OPENING[0][1]))
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    client.request("tools/list")
    client.process.send_signal(signal.SIGINT)
    assert client.process.wait(timeout=30) == 0
    assert client.process.stderr is not None
    assert client.process.stderr.read().decode() == ""


def test_the_sdk_is_asked_for_only_when_a_line_needs_it() -> None:
    """The SDK's import (a second of CPU) used to start with the server and competed with the client's own
    start-up; now a client that only connects never causes it (the timer in `serve` does, later), and the
    first line the front cannot answer — a tool call — starts it at once."""
    front = Front(io.BytesIO())
    lines: queue.Queue[Any] = queue.Queue()
    asked: list[str] = []
    for method, params in OPENING:
        lines.put(json.dumps({"jsonrpc": "2.0", "id": method, "method": method, "params": params}) + "\n")
    lines.put(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    lines.put("")
    assert front.answer_until_loaded(lines, needed=lambda: asked.append("sdk")) is None
    assert asked == []

    call = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/call",
        "params": {"name": "memory_search", "arguments": {"query": "缓存"}},
    }
    lines.put(json.dumps(call) + "\n")
    lines.put(LOADED)
    assert front.answer_until_loaded(lines, needed=lambda: asked.append("sdk")) == [json.dumps(call) + "\n"]
    assert asked == ["sdk"]


# `aimate mem mcp` as `aimate` runs it, reporting at exit which of the SDK's parts it imported.
SDK_PARTS = ("mcp.server.fastmcp", "mcp.client", "mcp.client.session", "mcp.client.stdio", "mcp.client.session_group")
# and the context builder, which only `memory_context` needs (mcp/tools.py imports it there)
SDK_PARTS += ("aimate_memory.context.build",)
REPORTING_SERVER = (
    "import atexit, sys\n"
    f"atexit.register(lambda: sys.stderr.write('IMPORTED ' + ' '.join(m for m in {SDK_PARTS!r} if m in sys.modules)"
    " + '\\n'))\n"
    "from aimate_memory.cli import main; sys.argv[:1] = ['aimate']; main()"
)


def test_a_server_imports_the_sdk_without_its_client_side(seeded: tuple[Path, Path]) -> None:
    """The SDK package's `__init__` re-exports the client (ClientSession, the stdio and session-group clients:
    ~0.1 s of a server's start); a server imports its server side alone (`front.import_server`) and still answers
    a tool call, in Chinese and English; a search builds no context, so the context package is not imported either.
    The server side is in the report, so the check can fail. Both languages are asked of one server, which
    reports after both calls (a server for each was ~1 s of CPU more)."""
    home, workdir = seeded
    process = subprocess.Popen(
        [sys.executable, "-c", REPORTING_SERVER, "mem", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(home),
        cwd=workdir,
    )
    client = RawClient.__new__(RawClient)
    client.process, client.next_id = process, 0
    client.request(*OPENING[0])
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for query in ("会话缓存 Redis", "which Redis cache did we pick?"):
        found = client.request("tools/call", {"name": "memory_search", "arguments": {"query": query}})
        assert found["result"]["structuredContent"]["results"][0]["title"] == "选用 Redis 做会话缓存", query
    _, err = process.communicate(timeout=60)
    imported = set(err.decode().rsplit("IMPORTED ", 1)[1].split())
    assert imported == {"mcp.server.fastmcp"}, imported
