"""`scripts/bench.py --waits` (scripts/bench_waits.py): every wait a person or an assistant has — the commands,
search, the three hooks and MCP's memory_remember — is printed with p50/p95, daemon and cold, beside the vault's
size and the load; the hooks get the payload Claude Code sends, search asks in both languages."""

from __future__ import annotations

import json
from pathlib import Path

from scripts.bench_waits import HOOKS, MCP_REMEMBER, WAITS, command_line, hook_payload, table


def test_the_table_names_every_wait_with_its_load_and_the_vault_size() -> None:
    figures = {"p50": 120.0, "p95": 250.0, "cpu_p50": 90.0, "cpu_p95": 110.0, "daemon_cpu_p50": 20.0}
    waits = {name: figures for name in (*WAITS, MCP_REMEMBER)}
    phase = {"loadavg_start": [3.2, 3.0, 2.9], "loadavg_end": [4.1, 3.5, 3.0], **waits}
    result = {
        "size": 1650,
        "runs": 8,
        "cold": phase,
        "daemon": phase,
        "conflict_check_ms": {"core_and_decisions": 309, "p50": 10.0, "p95": 40.0},
        "first_index_s": 30.0,
        "daemon_rss_mb": 240.0,
    }
    printed = table(result)
    assert "1650 generated memories" in printed and "load cold 3.2→4.1" in printed
    commands = ("remember", "list", "show", "context", "review", "stale", "timeline", "search")
    for name in (*commands, *(f"hook {k}" for k in HOOKS), MCP_REMEMBER):
        assert f"| {name} | 120 / 250 (90 + 20) | ≤ 300 | 120 / 250 (90) |" in printed


def test_each_hook_gets_claude_codes_payload_in_both_languages(tmp_path: Path) -> None:
    assert hook_payload("list", 0, tmp_path) is None
    prompts = {json.loads(hook_payload("hook prompt", run, tmp_path) or "")["prompt"] for run in (0, 1)}
    chinese = {prompt for prompt in prompts if any("\u4e00" <= char <= "\u9fff" for char in prompt)}
    assert len(prompts) == 2 and len(chinese) == 1  # one English prompt, one Chinese
    started = json.loads(hook_payload("hook session-start", 3, tmp_path) or "")
    assert started["hook_event_name"] == "SessionStart" and started["cwd"] == str(tmp_path)
    ended = json.loads(hook_payload("hook session-end", 4, tmp_path) or "")
    turns = Path(ended["transcript_path"]).read_text(encoding="utf-8").splitlines()
    assert [json.loads(turn)["type"] for turn in turns] == ["user", "assistant"]


def test_search_asks_in_both_languages() -> None:
    queries = {command_line("search", run, "id")[1] for run in (0, 1)}
    assert len(queries) == 2 and any(any("\u4e00" <= char <= "\u9fff" for char in query) for query in queries)
