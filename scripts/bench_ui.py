"""The page's answer times (docs/ui.md, "Speed"): a throwaway 500-memory vault (250 English, 250 Chinese, 10 core,
20 pending captures; keyword search, no daemon), `aimate mem ui` on it, each page loaded 20 times: median, p95.

Usage: .venv/bin/python scripts/bench_ui.py"""

from __future__ import annotations

import http.cookiejar
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

AIMATE = Path(sys.executable).with_name("aimate")
LOADS = 20


def seed(project: Path) -> str:
    """The vault; returns one memory's id."""
    from aimate_memory.system import MemorySystem

    subprocess.run(["git", "init", "-q", str(project)], check=True)
    with MemorySystem.open(cwd=project) as system:
        system.init()
        for i in range(250):
            body = f"We chose tool {i} because it is fast. " * 5
            system.add(f"Decision {i}: use tool {i} for job {i % 17}", body, category="decision", scope="global")
            system.add(f"决定 {i}：第 {i % 13} 类任务用工具 {i}", f"选择工具 {i}，因为它快。" * 5, scope="project")
        for i in range(10):
            system.add(f"Rule {i}", f"Always do thing {i}.", layer="core", category="rule", scope="global")
        system.git.accept_all()
        for i in range(20):
            system.remember(f"We decided to deploy service {i} on Fridays only after the freeze", confidence=0.7)
        return system.list(limit=1)[0].id


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    home, project = folder / "home", folder / "shop"
    project.mkdir()
    os.environ.update(
        AIMATE_HOME=str(home), AIMATE_EMBEDDING__ENABLED="false", AIMATE_NO_DAEMON="1", AIMATE_GIT__AUTO_COMMIT="false"
    )
    some_id = seed(project)
    server = subprocess.Popen([str(AIMATE), "mem", "ui", "--no-open"], cwd=project, stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    found = re.search(r"http://\S+", server.stdout.readline())
    assert found, "no address printed"
    base = found.group(0).split("/?")[0]
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    opener.open(found.group(0)).read()
    pages = ["/review", "/context", "/context?q=tool+17+job", "/search?q=tool+17", "/search?q=%E5%B7%A5%E5%85%B7",
             "/search", f"/memory/{some_id}"]  # fmt: skip
    try:
        for path in pages:
            times = []
            for _ in range(LOADS):
                started = time.perf_counter()
                opener.open(base + path).read()
                times.append((time.perf_counter() - started) * 1000)
            times.sort()
            p95 = times[int(0.95 * (LOADS - 1))]
            print(f"{path[:40]:40s} median {statistics.median(times):6.0f} ms  p95 {p95:6.0f} ms")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
