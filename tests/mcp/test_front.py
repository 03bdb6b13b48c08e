"""The front of `aimate mem mcp` (`mcp.front`): what it answers before the SDK is imported is what the SDK
answers, byte for byte as JSON, and the stream it hands over goes on as if the SDK had read it all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aimate_memory.mcp import listing
from aimate_memory.mcp.server import static_answers
from tests.mcp.conftest import server_env
from tests.mcp.measure_startup import RawClient

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
    }


def conversation(env: dict[str, str], cwd: Path, version: str) -> list[dict[str, Any]]:
    """The opening requests, then a tool call, as one client would send them; every reply."""
    client = RawClient(env, cwd)
    replies = []
    try:
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


@pytest.mark.parametrize("version", ["2025-03-26", "1999-01-01"])  # a version the SDK knows; one it does not
def test_front_and_sdk_answer_alike_and_the_hand_over_keeps_the_session(
    seeded: tuple[Path, Path], version: str
) -> None:
    home, workdir = seeded
    front = conversation(server_env(home), workdir, version)
    sdk = conversation({**server_env(home), "AIMATE_MCP_FRONT": "0"}, workdir, version)
    assert front[:-2] == sdk[:-2]
    assert front[0]["result"]["protocolVersion"] == (
        version if version in listing.SUPPORTED_VERSIONS else listing.LATEST_VERSION
    )
    assert len(front[1]["result"]["tools"]) == 7
    search = front[-2]["result"]
    assert not search.get("isError") and search["structuredContent"]["results"][0]["title"] == "选用 Redis 做会话缓存"
    assert front[-2]["result"]["structuredContent"]["results"] == sdk[-2]["result"]["structuredContent"]["results"]
    assert front[-1] == {**sdk[-1], "id": front[-1]["id"]} and front[-1]["result"] == front[1]["result"]


def test_front_answers_even_when_stdin_closes_at_once(seeded: tuple[Path, Path]) -> None:
    home, workdir = seeded
    client = RawClient(server_env(home), workdir)
    reply = client.request("initialize", dict(OPENING[0][1]))
    assert reply["result"]["serverInfo"]["name"] == "aimate-memory"
    client.close()
    assert client.process.returncode == 0
