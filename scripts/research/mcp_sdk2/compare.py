"""Does the front (`mcp/front.py`) still pay? spawn → `tools/list` and spawn → first `memory_search` answered,
opening as Claude Code 2.1 does (`server/discover` first), for: SDK 1.x with the front, SDK 1.x alone
(`AIMATE_MCP_FRONT=0`), SDK 2.x alone (server.py; it answers the probe and is then spoken to in 2026-07-28
style, `_meta` on every request). Runs interleaved, keyword-only, a temp home with 20 memories.

    .venv/bin/python scripts/research/mcp_sdk2/compare.py [RUNS] [SDK2_PYTHON]   (default 5, /tmp/sdk2/bin/python)
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO))

from aimate_memory.mcp.server import INSTRUCTIONS, TOOL_SPECS  # noqa: E402
from tests.mcp.measure_startup import AIMATE, DISCOVER, INITIALIZE, seed  # noqa: E402

META = DISCOVER["_meta"]


def once(argv: list[str], env: dict[str, str], cwd: Path, search: bool) -> tuple[float, float | None, str]:
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    counter = [0]

    def request(method: str, params: dict[str, Any]) -> dict[str, Any]:
        counter[0] += 1
        message = {"jsonrpc": "2.0", "id": counter[0], "method": method, "params": params}
        process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        while True:
            reply: dict[str, Any] = json.loads(process.stdout.readline())  # type: ignore[union-attr]
            if reply.get("id") == counter[0]:
                return reply

    modern = "result" in request("server/discover", DISCOVER)
    if not modern:
        request("initialize", {**INITIALIZE, "protocolVersion": "2025-11-25"})
        process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        process.stdin.flush()
    extra: dict[str, Any] = {"_meta": META} if modern else {}
    assert len(request("tools/list", extra)["result"]["tools"]) == 7
    listed = time.perf_counter() - started
    searched = None
    if search:
        reply = request("tools/call", {"name": "memory_search", "arguments": {"query": "会话缓存 Redis"}, **extra})
        assert "选用 Redis" in json.dumps(reply, ensure_ascii=False), reply
        searched = time.perf_counter() - started
    process.stdin.close()
    errors = process.stderr.read().decode()
    process.wait(30)
    return listed, searched, errors


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    sdk2_python = sys.argv[2] if len(sys.argv) > 2 else "/tmp/sdk2/bin/python"
    specs = {n: (s.title, s.description, s.annotations.model_dump(exclude_none=True)) for n, s in TOOL_SPECS.items()}
    scratch = Path(tempfile.mkdtemp(prefix="aimate-sdk2-"))
    (scratch / "specs.py").write_text(f"INSTRUCTIONS = {INSTRUCTIONS!r}\nTOOL_SPECS = {specs!r}\n", encoding="utf-8")
    home = scratch / "home"
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_NO_DAEMON": "1", "AIMATE_EMBEDDING__ENABLED": "false"}
    seed(home, scratch, env)
    site_packages = sysconfig.get_paths()["purelib"]
    variants = {
        "sdk 1.x + front": ([str(AIMATE), "mem", "mcp"], {}),
        "sdk 1.x alone": ([str(AIMATE), "mem", "mcp"], {"AIMATE_MCP_FRONT": "0"}),
        "sdk 2.x alone": (
            [sdk2_python, str(HERE / "server.py"), site_packages],
            {"PYTHONPATH": os.pathsep.join([str(REPO), str(scratch)])},
        ),
    }
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    listed: dict[str, list[float]] = {name: [] for name in variants}
    searched: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):  # interleaved: the machine's load falls on every variant alike
        for name, (argv, extra) in variants.items():
            first, _, errors = once(argv, {**env, **extra}, scratch, search=False)
            _, search, more = once(argv, {**env, **extra}, scratch, search=True)
            listed[name].append(first)
            searched[name].append(search or 0.0)
            if errors or more:
                print(f"stderr from {name}: {(errors or more)[:300]}")
    for name in variants:
        print(
            f"{name}: spawn → tools/list median {statistics.median(listed[name]):.3f} s "
            f"(min {min(listed[name]):.3f}); spawn → first memory_search median "
            f"{statistics.median(searched[name]):.3f} s (min {min(searched[name]):.3f}); {runs} runs"
        )
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
