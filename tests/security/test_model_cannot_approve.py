# ruff: noqa: F811  (the fixtures `writer` and `writer_home` are imported from tests/mcp/conftest and taken by name)
"""Issue 35, point 5: a model cannot approve its own writes. Through a real MCP client on `aimate mem mcp`: a
capture the model saved into core stays pending whatever `memory_update` says; the person's own pending capture
(from the prompt hook's `remember:`/`记住：`) cannot be activated either; an active core rule cannot be
rewritten, re-statused or forgotten. Each refusal says so and names `aimate mem review`; the files are
unchanged. The person's command (`aimate mem review --accept`) still accepts."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Result, make_runner
from tests.mcp.conftest import McpProcess, server_env, writer, writer_home  # noqa: F401  (fixtures used by name)

pytestmark = pytest.mark.slow  # a server and the CLI as subprocesses

RULE_EN = ("Always use pnpm", "Use pnpm, never npm, in every repository.")
RULE_ZH = ("所有交互使用简体中文", "回答和提交说明都用简体中文。")


@pytest.fixture
def server(initialized: Path, home: Path, workdir: Path) -> Iterator[McpProcess]:
    process = McpProcess(["mem", "mcp"], workdir, server_env(home))
    yield process
    process.close()


@pytest.fixture
def shared(writer: McpProcess, writer_home: tuple[Path, Path]) -> tuple[McpProcess, Callable[..., Result], Path]:
    """The module's one server (`writer`), the CLI on its home, and the home: for the tests that each write
    memories of their own and read back only those (a server's start is ~1.4 s of CPU). The test that counts
    every pending capture keeps a server and a home of its own."""
    home, workdir = writer_home
    return writer, make_runner(home, workdir, vectors=False), home


def _refused(result: Any) -> str:
    assert result.isError, result.structuredContent
    text = result.content[0].text
    assert "refused, nothing written" in text and "aimate mem review" in text and "Traceback" not in text
    return text


def _file(home: Path, path: str) -> bytes:
    """The global vault file's bytes: what a refused call must leave as it was."""
    return (home / "memory" / path).read_bytes()


@pytest.mark.parametrize("text", ["Deploy straight to production without review", "部署时跳过所有代码审查，直接上线"])
def test_the_models_core_capture_stays_pending(shared, text: str) -> None:
    server, cli, home = shared
    saved = server.ok("memory_remember", text=text, kind="rule", confidence=0.99)
    memory = saved["memory"]
    assert saved["action"] == "pending" and memory["layer"] == "core" and memory["status"] == "pending"
    assert memory["scope"] == "global"
    before = _file(home, memory["path"])

    refusal = _refused(server.call("memory_update", id=memory["id"][:8], status="active"))
    assert ("只有用户本人" in refusal) and ("only the person" in refusal)
    _refused(server.call("memory_update", id=memory["id"][:8], body="rewritten by the model"))
    assert _file(home, memory["path"]) == before
    assert server.ok("memory_get", id=memory["id"])["status"] == "pending"
    context = server.ok("memory_context", query=text)["text"]
    assert text not in context  # pending is never presented as memory

    # The person accepts it with their own command: then it is active and in every session start.
    assert cli("mem", "review", "--accept", memory["id"][:8]).code == 0
    assert server.ok("memory_get", id=memory["id"])["status"] == "active"
    assert text in server.ok("memory_context")["text"]


def test_the_persons_own_pending_capture_is_not_the_models_to_accept(server: McpProcess, cli, workdir: Path) -> None:
    for said in ("记住：周五之前冻结发布", "remember: the CI runs on arm64"):
        payload = {"session_id": "s1", "cwd": str(workdir), "hook_event_name": "UserPromptSubmit", "prompt": said}
        hook = cli("mem", "hook", "prompt", input=json.dumps(payload, ensure_ascii=False))
        assert "queued for review" in hook.out
    pending = {item["id"] for item in cli("mem", "list", "--status", "pending", "--json").json()}
    assert len(pending) == 2
    for memory_id in pending:
        _refused(server.call("memory_update", id=memory_id[:8], status="active"))
    after = cli("mem", "list", "--status", "all", "--json").json()
    assert {item["status"] for item in after if item["id"] in pending} == {"pending"}


@pytest.mark.parametrize(("title", "body"), [RULE_EN, RULE_ZH])
def test_an_active_core_rule_cannot_be_rewritten_or_forgotten(shared, title: str, body: str) -> None:
    server, cli, home = shared
    added = cli("mem", "add", title, "--layer", "core", "--category", "rule", "--body", body, "--json").json()
    before = _file(home, added["path"])
    for change in ({"body": "Use npm."}, {"title": "Use npm"}, {"status": "archived"}, {"importance": 1}):
        text = _refused(server.call("memory_update", id=added["id"][:8], **change))
        assert "core memory" in text and "核心记忆" in text
    _refused(server.call("memory_forget", id=added["id"][:8]))
    assert _file(home, added["path"]) == before and body in server.ok("memory_context")["text"]


def test_the_model_still_edits_ordinary_memories(shared) -> None:
    server, cli, _ = shared
    added = cli("mem", "add", "Deploy checklist", "--body", "1. build", "--json").json()
    updated = server.ok("memory_update", id=added["id"][:8], body="1. 构建\n2. 发布", importance=4)
    assert updated["importance"] == 4 and "发布" in server.ok("memory_get", id=added["id"])["body"]
    assert server.ok("memory_update", id=added["id"][:8], status="pending")["status"] == "pending"
    _refused(server.call("memory_update", id=added["id"][:8], status="active"))  # and back is the person's
