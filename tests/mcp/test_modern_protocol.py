"""MCP 2026-07-28 (stateless: `_meta` on every request, `server/discover`, no `initialize`) beside the 2025
handshake, through a raw stdio client (`RawClient`: a subprocess spoken to in JSON-RPC lines), with the front
and with the SDK alone (docs/agents.md, "Both protocols")."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from aimate_memory.mcp import listing
from aimate_memory.mcp.modern import UNSUPPORTED_PROTOCOL_VERSION
from tests.mcp.conftest import server_env
from tests.mcp.measure_startup import DISCOVER, INITIALIZE, RawClient

META = DISCOVER["_meta"]


def modern(params: dict[str, Any] | None = None, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    return {**(params or {}), "_meta": META if meta is None else meta}


@pytest.fixture(params=["front", "sdk"])
def client(request: pytest.FixtureRequest, seeded: tuple[Path, Path]) -> Any:
    home, workdir = seeded
    env = server_env(home) if request.param == "front" else {**server_env(home), "AIMATE_MCP_FRONT": "0"}
    raw = RawClient(env, workdir, stderr=subprocess.PIPE)
    yield raw
    raw.close()


def stderr_of(raw: RawClient) -> str:
    raw.close()
    assert raw.process.stderr is not None
    return raw.process.stderr.read().decode()


def test_a_client_speaking_only_2026_07_28_lists_the_tools_and_searches(client: RawClient) -> None:
    discovered = client.request("server/discover", modern())["result"]
    assert discovered["supportedVersions"] == ["2026-07-28"] and discovered["resultType"] == "complete"
    assert discovered["serverInfo"]["name"] == "aimate-memory"
    assert discovered["capabilities"]["tools"] == listing.ANSWERS["initialize"]["capabilities"]["tools"]
    assert "memory_search" in discovered["instructions"]

    listed = client.request("tools/list", modern())["result"]
    assert listed["resultType"] == "complete" and listed["tools"][0]["name"] == "memory_search"

    for query, title in (("会话缓存 Redis", "选用 Redis 做会话缓存"), ("pytest fixtures", "Tests run with pytest")):
        found = client.request("tools/call", modern({"name": "memory_search", "arguments": {"query": query}}))
        assert found["result"]["resultType"] == "complete" and not found["result"]["isError"]
        assert found["result"]["structuredContent"]["results"][0]["title"] == title

    # Not "Received request before initialization was complete": the SDK was given its handshake quietly.
    assert "initialization" not in stderr_of(client)


def test_a_stateless_call_without_any_handshake_is_served_too(client: RawClient) -> None:
    """A 2025 client that skips `initialize` (the issue's `-32602` plus a stderr warning)."""
    found = client.request("tools/call", {"name": "memory_search", "arguments": {"query": "Redis"}})
    assert found["result"]["structuredContent"]["results"][0]["title"] == "选用 Redis 做会话缓存"
    assert "resultType" not in found["result"]  # a legacy request gets a legacy answer
    assert "initialization" not in stderr_of(client)


def test_the_2025_handshake_still_works_after_a_discover_probe(client: RawClient) -> None:
    assert client.request("server/discover", modern())["result"]["resultType"] == "complete"
    initialized = client.request("initialize", INITIALIZE)["result"]
    assert initialized["protocolVersion"] == "2025-06-18" and "resultType" not in initialized
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    listed = client.request("tools/list", {})["result"]
    assert len(listed["tools"]) == 7 and "resultType" not in listed
    found = client.request("tools/call", {"name": "memory_search", "arguments": {"query": "pytest"}})["result"]
    assert found["structuredContent"]["results"][0]["title"] == "Tests run with pytest"


def test_an_envelope_the_server_cannot_serve_is_told_why(client: RawClient) -> None:
    future_meta = {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    future = client.request("tools/list", modern(meta=future_meta))
    assert future["error"]["code"] == UNSUPPORTED_PROTOCOL_VERSION
    assert future["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2099-01-01"}
    half = client.request("tools/list", modern(meta={"io.modelcontextprotocol/protocolVersion": "2026-07-28"}))
    assert half["error"]["code"] == -32602 and "clientCapabilities" in half["error"]["data"]
    # The stream goes on: a good request after the bad ones is answered.
    assert client.request("tools/list", modern())["result"]["resultType"] == "complete"
