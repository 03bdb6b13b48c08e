"""`scripts/bench.py --waits` (scripts/bench_waits.py): every wait a person or an assistant has — the commands,
search, the three hooks and MCP's memory_remember — is printed with p50/p95, daemon and cold, beside the vault's
size and the load; the hooks get the payload Claude Code sends, search asks in both languages."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from scripts.bench_waits import (
    HOOKS,
    MCP_REMEMBER,
    WAITS,
    add_split,
    capture_phases,
    command_line,
    hook_payload,
    phase_summary,
    phase_table,
    split_of,
    split_table,
    table,
    task_name,
)
from tests.conftest import in_process


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
        "daemon_rss_busy_mb": 262.5,
    }
    printed = table(result)
    assert "daemon RSS 240.0 MB (262.5 MB right after the last answer)" in printed  # after the idle step, and before
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


def test_a_wait_through_the_daemon_is_split_by_the_daemons_own_task_timings() -> None:
    """The request's own task is the daemon's part of the wait (its queue wait — behind a sync queued before
    it —, its wall and CPU); what finished after it is the work after answering (a remember's commit); what
    finished before the command started is not this wait's. Every hook is the daemon's "hook" task."""
    recent = [
        {"name": "remember", "finished": 99.0, "queued_ms": 1.0, "wall_ms": 50.0, "cpu_ms": 40.0},  # before
        {"name": "refresh", "finished": 100.05, "queued_ms": 3.0, "wall_ms": 20.0, "cpu_ms": 15.0},
        {"name": "remember", "finished": 100.2, "queued_ms": 18.0, "wall_ms": 120.0, "cpu_ms": 90.0},
        {"name": "commit", "finished": 100.4, "queued_ms": 0.5, "wall_ms": 150.0, "cpu_ms": 60.0},
    ]
    split = split_of(recent, "remember", started=100.0)
    assert split == {"queue": 18.0, "wall": 120.0, "cpu": 90.0, "after": 60.0}
    assert split_of(recent, "remember", started=101.0) == {}  # an older daemon, or none: no split
    assert task_name("hook session-end") == "hook" and task_name(MCP_REMEMBER) == "remember"
    wait = {"p50": 300.0, "p95": 420.0, "cpu_p50": 100.0, "daemon_cpu_p50": 170.0}
    add_split(wait, [split, split])
    assert wait["daemon_cpu_p50"] == 170.0  # the daemon's whole CPU (/proc) stays beside its task's own
    printed = split_table({name: wait for name in (*WAITS, MCP_REMEMBER)})
    assert "| remember | 300 / 420 | 100 | 18 | 120 / 120 (90) | 60 | 162 |" in printed
    assert split_table({name: {"p50": 1.0} for name in (*WAITS, MCP_REMEMBER)}) == ""


@pytest.mark.usefixtures("isolated_git")
def test_a_remember_is_broken_down_by_phase_with_each_phases_cpu(home: Path) -> None:
    """Each capture logs its laps — wall and the CPU of the thread that ran them — in the perf table, and the
    bench reads the newest one since a run started: where a `remember`'s wait went (docs/benchmarks.md)."""
    runs = []
    with in_process(home) as system:
        for sentence in ("We decided to keep the billing cache in Redis", "我们决定账单缓存改用 Memcached"):
            started = time.time()
            assert system.remember(sentence).action in ("written", "conflict")
            runs.extend(capture_phases(home, started))
    assert len(runs) == 2 and capture_phases(home, time.time() + 60) == []
    for run in runs:
        for part in ("classify", "similar", "write", "commit", "index"):
            assert run[part] >= 0 and run[f"{part}_cpu"] >= 0
        assert (
            run["total"]
            >= sum(
                value for key, value in run.items() if key not in ("total", "total_cpu") and not key.endswith("_cpu")
            )
            - 1
        )
        assert run["commit"] > 0  # in process the commit is in the wait (git); the daemon defers it
    summary = phase_summary(runs)
    assert set(summary["classify"]) == {"wall_p50", "wall_p95", "cpu_p50"}
    printed = phase_table({"daemon": {"remember": {"phases": summary}}, "cold": None})
    assert printed.startswith("| remember's capture, by phase | classify |") and "| daemon | " in printed
    assert phase_table({"daemon": {"remember": {}}}) == ""
