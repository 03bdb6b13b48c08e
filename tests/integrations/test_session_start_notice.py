"""The session-start hook's notice to the person and its size, through a daemon's replies (no vault opened)."""

from __future__ import annotations

import json
from pathlib import Path

from aimate_memory.integrations.hook_events import Client, HookKind, parse_event, render_output
from aimate_memory.integrations.hooks import MAX_CONTEXT_CHARS, run_hook
from tests.integrations.clients import connect_with

START = json.dumps({"session_id": "s", "cwd": "/work/proj", "hook_event_name": "SessionStart"})
LEFT_OUT = (
    "2 core memories did not fit: '规则二' (c2000000), 'Rule three' (c3000000); run `aimate mem context` to see them"
)


def _never_open(cwd: Path | None):
    raise AssertionError("the daemon answered; no vault is opened")


def test_warnings_reach_the_person_as_a_system_message_and_the_model_too(tmp_path: Path) -> None:
    reply = {
        "ok": True,
        "text": "## Core memory · global\n\n- 始终用 pnpm (c1000000)\n",
        "budget": 2000,
        "warnings": [{"kind": "core_over_budget", "message": LEFT_OUT}],
    }
    out = run_hook(HookKind.SESSION_START, START, connect_with(_never_open, lambda op, f, c: reply), home=tmp_path)
    output = json.loads(out)
    assert output["systemMessage"] == f"AIMate: {LEFT_OUT}"
    context = output["hookSpecificOutput"]["additionalContext"]
    assert "- 始终用 pnpm (c1000000)" in context and context.endswith(f"AIMate: {LEFT_OUT}")

    kimi = run_hook(
        HookKind.SESSION_START,
        START,
        connect_with(_never_open, lambda o, f, c: reply),
        client=Client.KIMI,
        home=tmp_path,
    )
    assert kimi.rstrip().endswith(LEFT_OUT)  # plain text: the notice is in it


def test_a_notice_alone_is_still_printed(tmp_path: Path) -> None:
    """Not even one core memory fitted: the person still hears which ones are missing."""
    reply = {"ok": True, "text": "", "budget": 10, "warnings": [{"kind": "core_over_budget", "message": LEFT_OUT}]}
    output = json.loads(
        run_hook(HookKind.SESSION_START, START, connect_with(_never_open, lambda op, f, c: reply), home=tmp_path)
    )
    assert output["systemMessage"].endswith(LEFT_OUT)


def test_a_context_over_the_character_cap_is_built_again_smaller(tmp_path: Path) -> None:
    asked: list[dict] = []

    def daemon(op: str, fields: dict, cwd: Path | None) -> dict:
        asked.append(fields)
        budget = fields.get("budget", 4000)
        # within its tokens (`prompt_tokens`: a 5-letter word is one) at 6 characters a token: the characters bind
        return {"ok": True, "text": "abcde " * budget, "budget": budget, "total_tokens": budget, "warnings": []}

    output = json.loads(run_hook(HookKind.SESSION_START, START, connect_with(_never_open, daemon), home=tmp_path))
    context = output["hookSpecificOutput"]["additionalContext"]
    assert len(context) <= 10_000 and context.count("abcde ") * 6 > MAX_CONTEXT_CHARS * 0.8  # smaller, not emptied
    assert asked[0] == {"budget_setting": "hooks.context_budget"} and asked[1]["budget"] < 4000
    assert len(asked) == 2  # one rebuild was enough


def test_render_output_without_a_notice_is_unchanged() -> None:
    event = parse_event(HookKind.SESSION_START, START)
    assert json.loads(render_output(Client.CLAUDE, event, "上下文")) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "上下文"}
    }
    assert "systemMessage" in json.loads(render_output(Client.CLAUDE, event, "上下文", notice="AIMate: x"))
