"""What AIMate costs a session inside the real assistants (issue 30 §4): `claude -p` and `codex exec` (the
versions pinned in tests/clients/clients.txt, installed by scripts/test.sh) against the scripted model of
tests/clients, which answers at once and calls no tool — so a configured session differs from a bare one only
by our hooks and the MCP connect. Overhead = median(configured) − median(bare), the two interleaved run by run
so the machine's load falls on both alike; with the daemon `install` sets up by default (warm) and cold
(`install --no-daemon`).

    .venv/bin/python scripts/bench_clients.py [--runs 5] [--clients claude,codex] [--keyword-only] [--json]

Claude Code's own debug log gives the parts (MCP connect, each hook) for its runs. Everything runs in temp
HOMEs on 127.0.0.1; daemons started here are stopped at the end. Goals: ≤ 0.3 s with the daemon, ≤ 1.5 s cold.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.clients.fake_model import FakeModel
from tests.clients.harness import (
    Run,
    Workspace,
    claude_debug_timings,
    missing_reason,
    point_codex_at,
    run_claude,
    run_codex,
)

PROMPT = "Which cache did we choose for sessions? 会话缓存用的是什么？"


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def install(workspace: Workspace, client: str, model_url: str, daemon_up: bool) -> None:
    """The user's install: with a warm daemon (its default: autostart here, started at once), or without."""
    scope = ["--user"] if client == "claude" else []
    workspace.aimate("install", client, *scope, *([] if daemon_up else ["--no-daemon"]))
    if client == "codex":
        point_codex_at(workspace, model_url)


def runner(client: str, model_url: str) -> Callable[[Workspace], Run]:
    if client == "claude":
        return lambda workspace: run_claude(workspace, model_url, PROMPT)
    return lambda workspace: run_codex(workspace, PROMPT)


def measure(client: str, daemon_up: bool, runs: int, vectors: bool, root: Path) -> dict[str, object]:
    label = f"{client}-{'daemon' if daemon_up else 'cold'}"
    bare = Workspace(root / f"{label}-bare").create(vectors)
    ours = Workspace(root / f"{label}-ours").create(vectors)
    with FakeModel(call_tools=False) as model:
        if client == "codex":
            point_codex_at(bare, model.url)
        install(ours, client, model.url, daemon_up)
        run = runner(client, model.url)
        walls: dict[str, list[float]] = {"bare": [], "ours": []}
        parts: dict[str, list[float]] = {}
        try:
            run(ours)  # not counted: first-run caches of the client (and a daemon's first search)
            for _ in range(runs):
                for name, workspace in (("bare", bare), ("ours", ours)):
                    done = run(workspace)
                    if done.code != 0:
                        raise RuntimeError(f"{label} {name}: exit {done.code}: {done.err[-2000:]}")
                    walls[name].append(done.wall)
                if client == "claude":
                    for part, seconds in claude_debug_timings(ours).items():
                        parts.setdefault(part, []).append(seconds)
        finally:
            ours.stop_daemon()
    medians = {name: statistics.median(values) for name, values in walls.items()}
    return {
        "client": client,
        "daemon": daemon_up,
        "runs": runs,
        "bare_median_s": round(medians["bare"], 3),
        "ours_median_s": round(medians["ours"], 3),
        "overhead_s": round(medians["ours"] - medians["bare"], 3),
        "parts_median_s": {part: round(statistics.median(values), 3) for part, values in parts.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--clients", default="claude,codex")
    parser.add_argument("--keyword-only", action="store_true", help="embedding.enabled false in the temp homes")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    reason = missing_reason()
    if reason:
        sys.exit(f"bench_clients: {reason}")
    results = []
    before = uptime()
    with tempfile.TemporaryDirectory(prefix="aimate-bench-clients-") as tmp:
        for client in args.clients.split(","):
            for daemon_up in (True, False):
                started = time.perf_counter()
                result = measure(client, daemon_up, args.runs, not args.keyword_only, Path(tmp))
                result["uptime_after"] = uptime()
                result["seconds"] = round(time.perf_counter() - started, 1)
                results.append(result)
                if not args.json:
                    mode = "daemon up" if daemon_up else "cold     "
                    print(
                        f"{client:6} {mode}: overhead {result['overhead_s']:+.2f} s "
                        f"(median {result['ours_median_s']:.2f} s with AIMate, {result['bare_median_s']:.2f} s "
                        f"without, {args.runs} runs each) parts {result['parts_median_s']}  [{result['uptime_after']}]",
                        flush=True,
                    )
    if args.json:
        print(json.dumps({"uptime_before": before, "date": time.strftime("%Y-%m-%d %H:%M %Z"), "results": results}))
    else:
        print(f"before: {before}\n{os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M %Z')}")


if __name__ == "__main__":
    main()
