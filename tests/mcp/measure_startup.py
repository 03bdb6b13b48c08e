"""Measure `aimate mem mcp` start-up the way a client sees it: spawn → `tools/list` answered, and the first
`memory_search` (sent at once, or `--think` seconds later as a model would), over raw JSON-RPC on stdio
(no client library in the way).

    python tests/mcp/measure_startup.py [--runs 10] [--vectors] [--think SECONDS] [--discover] [AIMATE_HOME]

`--discover` opens as Claude Code 2.1 does: `server/discover` (the 2026-07-28 probe), then `initialize`.

Without AIMATE_HOME, a temp home with a small vault (20 memories, Chinese and English) is made first."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

AIMATE = Path(sys.executable).with_name("aimate")
DISCOVER = {  # Claude Code 2.1's first message (the 2026-07-28 spec's stdio probe)
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "measure", "version": "1"},
    }
}
INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "measure", "version": "1"},
}


class RawClient:
    def __init__(self, env: dict[str, str], cwd: Path, stderr: int = subprocess.DEVNULL) -> None:
        self.process = subprocess.Popen(
            [str(AIMATE), "mem", "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
            cwd=cwd,
        )
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}})
        assert self.process.stdout is not None
        while True:
            message = json.loads(self.process.stdout.readline())
            if message.get("id") == self.next_id:
                return message

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def cpu_seconds(self) -> float:
        """User + system CPU of the server so far (Linux): wall time on a loaded machine says little."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


Timing = tuple[float, float]  # (wall seconds, server CPU seconds) since spawn


def once(
    env: dict[str, str], cwd: Path, query: str | None, think: float = 0, discover: bool = False
) -> tuple[Timing, Timing | None]:
    started = time.perf_counter()
    client = RawClient(env, cwd)
    if discover:
        assert client.request("server/discover", DISCOVER)["result"]["resultType"] == "complete"
    client.request("initialize", INITIALIZE)
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools = client.request("tools/list")
    listed = (time.perf_counter() - started, client.cpu_seconds())
    assert len(tools["result"]["tools"]) == 7, tools
    searched = None
    if query is not None:
        time.sleep(think)  # a model reading the tool list before its first call; the warm-up runs meanwhile
        # Without a pause it is measured from the spawn; with one, from the request (the search alone).
        asked, cpu_asked = (time.perf_counter(), client.cpu_seconds()) if think else (started, 0.0)
        answer = client.request("tools/call", {"name": "memory_search", "arguments": {"query": query}})
        assert not answer["result"].get("isError"), answer
        searched = (time.perf_counter() - asked, client.cpu_seconds() - cpu_asked)
    client.close()
    return listed, searched


def summary(timings: list[Timing]) -> str:
    wall = [timing[0] for timing in timings]
    cpu = [timing[1] for timing in timings]
    return (
        f"wall median {statistics.median(wall):.3f} s (min {min(wall):.3f}, max {max(wall):.3f}); "
        f"server CPU median {statistics.median(cpu):.3f} s"
    )


def seed(home: Path, cwd: Path, env: dict[str, str]) -> None:
    subprocess.run([str(AIMATE), "mem", "init"], env=env, cwd=cwd, check=True, capture_output=True)
    for i in range(10):
        for title, body in (
            (f"决定 {i}：选用 Redis 做会话缓存", "延迟低，支持过期。"),
            (f"Decision {i}: tests run with pytest", "Fixtures and a temporary AIMATE_HOME."),
        ):
            subprocess.run(
                [str(AIMATE), "mem", "add", title, "--body", body], env=env, cwd=cwd, check=True, capture_output=True
            )
    subprocess.run([str(AIMATE), "mem", "index"], env=env, cwd=cwd, check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("home", nargs="?", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--think", type=float, default=0, help="seconds between tools/list and the search")
    parser.add_argument("--vectors", action="store_true", help="with the embedding models (default: keyword only)")
    parser.add_argument("--discover", action="store_true", help="open with server/discover, as Claude Code does")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="aimate-mcp-measure-")) / "home"
    cwd = home.parent
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_NO_DAEMON": "1"}
    if not args.vectors:
        env["AIMATE_EMBEDDING__ENABLED"] = "false"
    if args.home is None:
        seed(home, cwd, env)
    listed = [once(env, cwd, None, discover=args.discover)[0] for _ in range(args.runs)]
    searches = [once(env, cwd, "会话缓存 Redis", args.think, args.discover) for _ in range(max(3, args.runs // 3))]
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"spawn → tools/list ({len(listed)} runs): {summary(listed)}")
    first = [searched for _, searched in searches if searched is not None]
    mode = "hybrid" if args.vectors else "keyword"
    start = f"{args.think:g} s after tools/list → its answer" if args.think else "spawn → its answer"
    print(f"first memory_search, {mode}, {start} ({len(first)} runs): {summary(first)}")


if __name__ == "__main__":
    main()
