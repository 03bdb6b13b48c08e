"""Bulk writes (issue 38): `scripts/bench.py --bulk --size N`. Goals on a quiet machine at 20,000: import
≤ 2 min, `commit` and `review --accept-all` ≤ 30 s each.

A vault of N generated memories (bench.py's generator) is exported as JSON Lines; then, each as the command
a person runs (a subprocess, keyword-only: the index's embedding is the model's cost, measured by bench.py's
main run), timed by wall clock and by CPU seconds of the child (what a loaded machine inflates least):

- `import`: the N records into a new home (files written, one flush, one commit, the index refreshed);
- `commit`: the N generated files, uncommitted, in a new home;
- `review --accept-all`: the same N files, in another new home.

The load average before and after is printed with them."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

GOALS_S = {"import": 120.0, "commit": 30.0, "accept_all": 30.0}


def _timed(argv: list[str], env: dict[str, str], cwd: Path) -> dict[str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[1:3])} failed: {proc.stderr.strip()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1)}


def bulk(size: int, log: Callable[[str], None]) -> dict[str, Any]:
    from aimate_memory.vault.roots import Roots
    from scripts.bench import SEED, generate

    aimate = str(Path(sys.executable).with_name("aimate"))
    root = Path(tempfile.mkdtemp(prefix="aimate-bulk-"))
    base = {**os.environ, "AIMATE_NO_DAEMON": "1", "AIMATE_EMBEDDING__ENABLED": "false", "HOME": str(root)}
    result: dict[str, Any] = {"size": size, "loadavg_start": list(os.getloadavg())}

    def home(name: str) -> dict[str, str]:
        env = {**base, "AIMATE_HOME": str(root / name)}
        subprocess.run([aimate, "mem", "init"], env=env, cwd=root, check=True, capture_output=True)
        return env

    try:
        source = home("source")
        generate(Roots.vault_dir(root / "source"), size, SEED)
        records = root / "records.jsonl"
        subprocess.run([aimate, "mem", "export", "-o", str(records)], env=source, cwd=root, check=True)
        log(f"import of {size} records…")
        result["import"] = _timed([aimate, "mem", "import", str(records)], home("imported"), root)
        for name, argv in (("commit", ["commit", "-m", "bulk"]), ("accept_all", ["review", "--accept-all"])):
            env = home(name)
            generate(Roots.vault_dir(root / name), size, SEED)
            log(f"{' '.join(argv)} of {size} files…")
            result[name] = _timed([aimate, "mem", *argv], env, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    result["loadavg_end"] = list(os.getloadavg())
    return result


def table(result: dict[str, Any]) -> str:
    lines = [
        f"{result['size']} memories; load {result['loadavg_start'][0]:.1f}→{result['loadavg_end'][0]:.1f}",
        "",
        "| bulk write | wall s | CPU s | goal (quiet machine, at 20,000) |",
        "|---|---|---|---|",
    ]
    for name, label in (("import", "import"), ("commit", "commit"), ("accept_all", "review --accept-all")):
        lines.append(f"| {label} | {result[name]['wall_s']} | {result[name]['cpu_s']} | ≤ {GOALS_S[name]:.0f} s |")
    return "\n".join(lines)
