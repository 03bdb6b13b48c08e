"""The conflict check's cost (issue 38: p95 ≤ 50 ms warm at 300 core memories and decisions):
`scripts/bench.py --conflicts --size N`.

A home with N generated memories (bench.py's generator: at 1,650 about 300 are active core memories and
decisions, what the check reads), indexed once with the real models, then `Conflicts.check` in process with
a new sentence each time (never one the sentence cache has seen; English and Chinese, some taking a side a
slot knows, so memories sharing a slot are read too):

- **first**: the first check of the process (the pool of core memories and decisions is built: the index's
  rows and stored vectors);
- **warm**: later checks, nothing changed in between (what a daemon or MCP server answers);
- **after a write**: each check right after a decision was written (`remember`), so the pool is brought up
  to date first — what the next `remember` pays.

p50/p95 ms wall, the warm checks' CPU ms too (what a loaded machine inflates least; the model runs on one
thread), and the load average before and after; a figure without its load is not comparable
(docs/benchmarks.md)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

GOAL_P95_MS = 50.0
SENTENCES = (  # {n} keeps each a sentence the process has not read before
    "We decided to serve tenant {n} from the reporting API behind the gateway",
    "我们决定第 {n} 号服务的缓存改用 Redis 集群",
    "Use tabs for indentation in generated module {n}",
    "第 {n} 个模块的计划文件放到 notes/plans 目录",
)


def conflicts(size: int, checks: int, log: Callable[[str], None], keep: Path | None = None) -> dict[str, Any]:
    from aimate_memory.system import MemorySystem
    from aimate_memory.vault.roots import Roots
    from scripts.bench import SEED, generate, summary

    root = keep or Path(tempfile.mkdtemp(prefix="aimate-conflicts-"))
    if keep is not None and keep.exists():
        shutil.rmtree(keep)
    home = root / "home"
    os.environ.update({"AIMATE_HOME": str(home), "AIMATE_NO_DAEMON": "1"})
    result: dict[str, Any] = {"size": size, "checks": checks}
    try:
        with MemorySystem.open(global_only=True) as system:
            system.init()
            generate(Roots.vault_dir(home), size, SEED)
            log(f"generated {size} memories; indexing with the models…")
            system.refresh()
            vault = system.global_vault
            row = system.store.index_for(vault).conn.execute(
                "SELECT count(*) FROM memories WHERE status = 'active' AND path NOT LIKE 'archive/%' "
                "AND (layer = 'core' OR category = 'decision')"
            )
            result["core_and_decisions"] = int(row.fetchone()[0])
            system.conflicts.check("warm the model: a sentence nobody wrote", vault)
            system.conflicts._pools.clear()  # the first check below builds the pool again, as a new process
            result["loadavg_start"] = list(os.getloadavg())
            start = time.perf_counter()
            system.conflicts.check(SENTENCES[0].format(n=-1), vault)
            result["first_ms"] = round((time.perf_counter() - start) * 1000, 1)
            warm, cpu = [], []
            for n in range(checks):
                start, start_cpu = time.perf_counter(), time.process_time()
                system.conflicts.check(SENTENCES[n % len(SENTENCES)].format(n=n), vault)
                warm.append((time.perf_counter() - start) * 1000)
                cpu.append((time.process_time() - start_cpu) * 1000)
            log("checks after a write…")
            written = []
            for n in range(max(checks // 4, 5)):
                system.remember(f"We decided to keep audit trail {n} for a year", kind="decision", keep_both=True)
                start = time.perf_counter()
                system.conflicts.check(SENTENCES[n % len(SENTENCES)].format(n=n + checks), vault)
                written.append((time.perf_counter() - start) * 1000)
            result["loadavg_end"] = list(os.getloadavg())
        result["warm"] = {key: round(value, 1) for key, value in summary(warm).items()}
        result["warm_cpu"] = {key: round(value, 1) for key, value in summary(cpu).items()}
        result["after_write"] = {key: round(value, 1) for key, value in summary(written).items()}
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return result


def table(result: dict[str, Any]) -> str:
    warm, cpu, written = result["warm"], result["warm_cpu"], result["after_write"]
    return "\n".join(
        [
            f"conflict check, in process: {result['size']} generated memories, {result['core_and_decisions']} active "
            f"core memories and decisions; load {result['loadavg_start'][0]:.1f}→{result['loadavg_end'][0]:.1f}",
            "",
            "| check | p50 ms | p95 ms | n | goal |",
            "|---|---|---|---|---|",
            f"| warm | {warm['p50']:.1f} | {warm['p95']:.1f} | {warm['n']:.0f} | p95 ≤ {GOAL_P95_MS:.0f} |",
            f"| warm, CPU of the process | {cpu['p50']:.1f} | {cpu['p95']:.1f} | {cpu['n']:.0f} | — |",
            f"| after a write | {written['p50']:.1f} | {written['p95']:.1f} | {written['n']:.0f} | — |",
            f"| first of the process | {result['first_ms']:.1f} | | 1 | — |",
        ]
    )
