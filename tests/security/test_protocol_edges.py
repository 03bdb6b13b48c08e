"""The small edges of issue 35, point 8, each against the real part: `review --accept ""` (and the page with
an empty path) accepts nothing; MCP answers an id of 1.5, and unknown resources and prompts with JSON-RPC
codes; a context budget has an upper bound (MCP and the daemon); the daemon checks `budget_setting`; and a
bad request's reply never carries the request's own text (a secret sent by mistake)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from aimate_memory.mcp.protocol import INVALID_PARAMS, INVALID_REQUEST
from tests.mcp.test_protocol import INITIALIZE, INITIALIZED, RawServer, raw_server  # noqa: F401  (the server fixture)
from tests.ui.conftest import GUARD, HOST
from tests.ui.test_guard import pending
from tests.watch.test_daemon_security import raw_exchange, serving  # noqa: F401  (the daemon fixture)

# Written out, not imported, so the file runs against the code before these limits (and fails there).
MAX_CONTEXT_BUDGET = 1_000_000  # config/defaults.py
RESOURCE_NOT_FOUND = -32002  # mcp/protocol.py
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize("ref", ["", "  "])
def test_review_accept_of_an_empty_name_accepts_nothing(cli, initialized, home: Path, ref: str) -> None:
    for text in ("周五之前冻结发布", "The CI runs on arm64"):
        assert cli("mem", "remember", text, "--confidence", "0.7").code == 0  # an agent's: pending review
    before = cli("mem", "list", "--status", "pending", "--json").json()
    assert len(before) == 2
    refused = cli("mem", "review", "--accept", ref)
    assert refused.code != 0 and "the id or path is empty" in " ".join(refused.err.split())
    assert cli("mem", "list", "--status", "pending", "--json").json() == before


def test_the_limits_written_here_are_the_codes(tmp_path: Path) -> None:
    from aimate_memory.config import defaults
    from aimate_memory.mcp import protocol

    assert (defaults.MAX_CONTEXT_BUDGET, protocol.RESOURCE_NOT_FOUND) == (MAX_CONTEXT_BUDGET, RESOURCE_NOT_FOUND)


def test_the_page_accepts_nothing_for_an_empty_path(page_client: TestClient) -> None:
    assert "deploy on Fridays" in pending(page_client)  # the page is open (its cookie set)
    form = {"scope": "global", "path": "", "form_token": GUARD.form_token}
    done = page_client.post("/review/accept", data=form, headers={"origin": f"http://{HOST}"})
    assert done.status_code == 400 and "the id or path is empty" in done.text
    assert "deploy on Fridays" in pending(page_client)  # still waiting for the person


def test_mcp_answers_a_fractional_id_and_unknown_names_with_json_rpc_codes(raw_server: RawServer) -> None:  # noqa: F811
    raw_server.send(
        INITIALIZE,
        INITIALIZED,
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "memory://no-such"}},
        {"jsonrpc": "2.0", "id": 3, "method": "prompts/get", "params": {"name": "没有这个提示"}},
        {"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "memory://core"}},
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "memory_context", "arguments": {"budget": MAX_CONTEXT_BUDGET * 1000}},
        },
    )
    replies = {json.dumps(reply["id"]): reply for reply in raw_server.collect(6)}
    assert replies["1.5"]["error"]["code"] == INVALID_REQUEST
    assert replies["2"]["error"]["code"] == RESOURCE_NOT_FOUND
    assert replies["3"]["error"]["code"] == INVALID_PARAMS
    assert replies["4"]["error"]["code"] == -32603 and "aimate mem init" in replies["4"]["error"]["message"]
    assert replies["5"]["result"]["isError"] is True and "budget" in json.dumps(replies["5"]["result"])
    assert all(reply.get("error", {}).get("code") != 0 for reply in replies.values())


BAD_WITH_SECRETS = [
    {"op": "context", "budget_setting": SECRET},
    {"op": "context", "budget_setting": "hooks.capture_status"},
    {"op": "context", "budget": MAX_CONTEXT_BUDGET + 1},
    {"op": "search", "query": "x", "limit": SECRET},
    {"op": "search", "query": "x", SECRET: 1},
    {"op": SECRET},
    {"op": "remember", "text": "x", "source": ["密码", SECRET]},
]


@pytest.mark.parametrize("request_", BAD_WITH_SECRETS, ids=[f"bad{i}" for i in range(len(BAD_WITH_SECRETS))])
def test_the_daemon_refuses_bad_requests_without_echoing_them(serving: Path, request_: dict) -> None:  # noqa: F811
    reply = json.loads(raw_exchange(serving, json.dumps(request_, ensure_ascii=False).encode() + b"\n"))
    assert reply["ok"] is False and reply["kind"] == "BadRequest" and reply["error"].startswith("bad request: ")
    assert SECRET not in json.dumps(reply) and SECRET[:12] not in json.dumps(reply)
    if "budget_setting" in request_:
        assert "hooks.context_budget or context.total_budget" in reply["error"]
