"""What a person waits on, each command as a subprocess (issue 38): `scripts/bench.py --waits --size N`.

A home with N generated memories (bench.py's generator: at 1,650 about 300 are core memories and decisions,
the ones capture's conflict check reads), indexed once with the real models. Then each command —
remember, list, show, context, review, stale, timeline, search, and the three hooks an assistant starts as a
process of its own (`hook session-start`, `hook prompt`, `hook session-end`, Claude Code's payload on standard
input) — is run `--runs` times as `aimate mem …`, and `memory_remember` is called `--runs` times on one running
`aimate mem mcp` (what an assistant waits for when it saves a memory):

- **cold**: no daemon (`AIMATE_NO_DAEMON=1`): the process imports, opens the facade, syncs and answers;
- **daemon**: a warm daemon answers (`aimate mem daemon start`, its models loaded first).

Printed with p50/p95 wall (ms) and the load average before and after each phase: a figure without its load
is not comparable (docs/benchmarks.md); and the CPU ms of the command's process and, through the daemon, of the
daemon for it (read 0.3 s after the answer, so a `remember`'s commit made after answering is counted) — the
figures a loaded machine inflates least. And `remember`'s capture by phase (`capture_phases`: the laps it logs,
each with its thread's CPU), cold and through the daemon. Commands run from bytecode, as installed
(PYTHONDONTWRITEBYTECODE is dropped and the package compiled first). Also the conflict check alone, in process
and warm (p50/p95 ms of `Conflicts.check` over the generated core memories and decisions), the first-run index
build (models loaded, every chunk embedded) and the daemon's RSS with its models loaded."""

from __future__ import annotations

import compileall
import json
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

DAEMON_GOAL_MS = 300.0  # issue 38: p95 through the daemon for each wait
COLD_GOALS_MS = {"remember": 1500.0, "list": 1000.0, "show": 1000.0, "context": 1000.0, "review": 1000.0}
COMMANDS = ("remember", "list", "show", "context", "review", "stale", "timeline", "search")
HOOKS = ("session-start", "prompt", "session-end")
BUILT_FILE = "built-size"  # in a kept folder: the size of the home built there (`waits`, reused when equal)
SETTLED_S = 2.5  # after the last answer: the daemon's idle step (1 s after its queue empties) has run
WAITS = (*COMMANDS, *(f"hook {kind}" for kind in HOOKS))
MCP_REMEMBER = "MCP memory_remember"  # a warm server's call (kind given, as an assistant gives it)
PROMPTS = ("which cache did we choose for the billing API? redis timeouts", "会话缓存用什么？Redis 超时")
REMEMBERED = (  # decisions, so the conflict and supersede checks run; {n} keeps each run a new sentence
    "We decided to use service-{n} behind the load balancer for the billing API",
    "我们决定第 {n} 号服务的缓存改用 Redis 集群",
)


def command_line(name: str, run: int, memory_id: str) -> list[str]:
    if name.startswith("hook "):
        return name.split()
    if name == "remember":
        return ["remember", REMEMBERED[run % 2].format(n=run), "--json"]
    if name == "show":
        return ["show", memory_id]
    if name == "context":
        return ["context", "缓存 redis timeouts"]
    if name == "search":
        return ["search", PROMPTS[run % 2]]
    return [name]


def hook_payload(name: str, run: int, cwd: Path) -> str | None:
    """Claude Code's payload for a hook (docs/agents.md), a new session each run; None for a command. A
    session-end's transcript holds one exchange, so the hook appends turns as in a real session."""
    if not name.startswith("hook "):
        return None
    kind, session = name.split()[1], f"bench-{run}"
    payload: dict[str, Any] = {"session_id": session, "cwd": str(cwd)}
    if kind == "session-start":
        payload |= {"hook_event_name": "SessionStart", "source": "startup"}
    elif kind == "prompt":
        payload |= {"hook_event_name": "UserPromptSubmit", "prompt": PROMPTS[run % 2]}
    else:
        transcript = cwd / f"transcript-{session}.jsonl"
        turns = [("user", PROMPTS[run % 2]), ("assistant", "Redis, with a 30 s timeout.")]
        transcript.write_text(
            "".join(
                json.dumps({"type": role, "message": {"role": role, "content": [{"type": "text", "text": text}]}})
                + "\n"
                for role, text in turns
            ),
            encoding="utf-8",
        )
        payload |= {"hook_event_name": "SessionEnd", "reason": "other", "transcript_path": str(transcript)}
    return json.dumps(payload, ensure_ascii=False)


def process_cpu_ms(pid: int | None) -> float:
    """A running process's CPU ms so far (Linux `/proc`; 0 elsewhere or without a pid)."""
    if pid is None:
        return 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")  # utime + stime


def daemon_split(home: Path | None, name: str, started: float) -> dict[str, float]:
    """What the daemon did for one wait, from its own task timings (`daemon status`'s `recent_tasks`, kept by
    `watch.tasks.TaskQueue`): the request's own task (`name`: the op, "hook" for a hook) as `queue` (ms it
    waited in the daemon's queue, behind any sync queued before it), `wall` (ms running) and `cpu` (ms of the
    daemon's main thread's CPU); `after`: the CPU ms of the tasks that finished after it (a remember's commit).
    `started`: `time.time()` when the command started. Empty without a daemon, or from a daemon that keeps no
    timings (an older one). A session-end hook is answered before its task runs: its task is not waited for."""
    from aimate_memory.watch.transport import daemon_request

    reply = daemon_request(home, {"op": "status"}) if home is not None else None
    return split_of((reply or {}).get("recent_tasks", []), name, started)


def split_of(recent: list[dict[str, Any]], name: str, started: float) -> dict[str, float]:
    """`daemon_split` of these task timings (`TaskTiming.to_dict()`, oldest first)."""
    own = next((task for task in recent if task["finished"] >= started and task["name"] == name), None)
    if own is None:
        return {}
    return {
        "queue": own["queued_ms"],
        "wall": own["wall_ms"],
        "cpu": own["cpu_ms"],
        "after": sum(task["cpu_ms"] for task in recent if task["finished"] > own["finished"]),
    }


def capture_phases(home: Path, started: float) -> list[dict[str, float]]:
    """The newest capture's breakdown logged since `started` (`time.time()`) in the global index's perf
    table: each part's wall ms and, as "<part>_cpu", the CPU ms of the thread that ran it (system/capture.py's
    laps: classify, similar, restated, conflicts, write, commit, index), "total" its wall. Empty when none."""
    import sqlite3

    from aimate_memory.vault.roots import Roots

    path = Roots.index_path(home)
    if not path.is_file():
        return []
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = conn.execute(
            "SELECT ms, breakdown FROM metrics WHERE op = 'capture' AND at >= ? ORDER BY rowid DESC LIMIT 1",
            (started,),
        ).fetchone()
    except sqlite3.DatabaseError:
        return []
    finally:
        conn.close()
    if row is None or not row[1]:
        return []
    parts = {key: float(value) for key, value in json.loads(row[1]).items() if isinstance(value, int | float)}
    laps_cpu = sum(value for key, value in parts.items() if key.endswith(CPU_SUFFIX))
    return [{**parts, "total": float(row[0]), f"total{CPU_SUFFIX}": laps_cpu}]


def phase_summary(runs: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each part of the captures' breakdowns (`capture_phases`): wall p50 / p95 and CPU p50 (ms); a part a
    run did not take (a capture that restated nothing has no "restated") counts 0 there."""
    from scripts.bench import summary

    parts = [key for key in dict.fromkeys(key for run in runs for key in run) if not key.endswith(CPU_SUFFIX)]
    out = {}
    for part in parts:
        wall = summary([run.get(part, 0.0) for run in runs])
        cpu = summary([run.get(f"{part}{CPU_SUFFIX}", 0.0) for run in runs])
        out[part] = {
            "wall_p50": round(wall["p50"], 1),
            "wall_p95": round(wall["p95"], 1),
            "cpu_p50": round(cpu["p50"], 1),
        }
    return out


def task_name(wait: str) -> str:
    """The daemon's name for the task that answers `wait` (watch/daemon.py's ops; every hook is "hook")."""
    return "hook" if wait.startswith("hook ") else "remember" if wait == MCP_REMEMBER else wait


SPLIT = ("queue", "wall", "cpu", "after")
CPU_SUFFIX = "_cpu"  # a lap's CPU in a capture's breakdown (system/perf.py `Stopwatch`)


def add_split(out: dict[str, Any], splits: list[dict[str, float]]) -> None:
    """The daemon's side of a wait's runs, p50 (and p95 of its wall), into `out` as `task_<part>_p50`;
    nothing when some run has none (a daemon without timings)."""
    from scripts.bench import summary

    if not splits:
        return
    for part in SPLIT:
        values = [split.get(part, 0.0) for split in splits]
        out[f"task_{part}_p50"] = round(summary(values)["p50"], 1)
    out["task_wall_p95"] = round(summary([split.get("wall", 0.0) for split in splits])["p95"], 1)


def timed_runs(
    aimate: Path, env: dict[str, str], cwd: Path, runs: int, memory_id: str, tag: str, daemon_pid: int | None = None
) -> dict[str, Any]:
    """Each command `runs` times (plus one not counted, to fill the page cache): wall ms, p50/p95, the command
    process's own CPU ms and, through the daemon, the daemon's CPU ms for it (p50 each) — what a loaded machine
    inflates least. The daemon's figure includes what it does right after answering (a `remember`'s commit):
    it is read once the next command starts."""
    from scripts.bench import summary

    out: dict[str, Any] = {"loadavg_start": list(os.getloadavg())}
    home = Path(env["AIMATE_HOME"]) if daemon_pid else None
    for name in WAITS:
        times, cpu, served, splits = [], [], [], []
        phases: list[dict[str, float]] = []
        for run in range(runs + 1):
            number = run + (1000 if tag == "daemon" else 0)
            argv = [str(aimate), "mem", *command_line(name, number, memory_id)]
            stdin = hook_payload(name, number, cwd)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            daemon_before = process_cpu_ms(daemon_pid)
            started_at, start = time.time(), time.perf_counter()
            proc = subprocess.run(
                argv, cwd=cwd, env=env, input=stdin or "", capture_output=True, text=True, timeout=600
            )
            elapsed = (time.perf_counter() - start) * 1000
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            time.sleep(0.3 if daemon_pid else 0)  # what the daemon does after answering (a commit) counts too
            daemon_after = process_cpu_ms(daemon_pid)
            split = daemon_split(home, task_name(name), started_at)
            if proc.returncode != 0:
                raise RuntimeError(f"{' '.join(argv[1:3])} failed: {proc.stderr.strip()[-400:]}")
            if run:
                times.append(elapsed)
                cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
                served.append(daemon_after - daemon_before)
                splits.extend([split] if split else [])
                phases.extend(capture_phases(Path(env["AIMATE_HOME"]), started_at) if name == "remember" else [])
        out[name] = {key: round(value, 1) for key, value in summary(times).items()}
        if phases:
            out[name]["phases"] = phase_summary(phases)
        out[name]["cpu_p50"] = round(summary(cpu)["p50"], 1)
        out[name]["cpu_p95"] = round(summary(cpu)["p95"], 1)
        if daemon_pid:
            out[name]["daemon_cpu_p50"] = round(summary(served)["p50"], 1)
            add_split(out[name], splits if len(splits) == runs else [])
    out[MCP_REMEMBER] = mcp_remember(env, cwd, runs, tag, daemon_pid)
    out["loadavg_end"] = list(os.getloadavg())
    return out


def mcp_remember(env: dict[str, str], cwd: Path, runs: int, tag: str, daemon_pid: int | None = None) -> dict[str, Any]:
    """`memory_remember` on a running `aimate mem mcp` (a bare JSON-RPC client, as Claude Code's is), two calls
    not counted first (the server's first call loads what it needs): wall ms p50/p95, and the CPU ms of the
    server — and, through the daemon, of the daemon — for each call (p50)."""
    from scripts.bench import bare_mcp, call_tool, summary

    times, cpu, served, splits = [], [], [], []
    home = Path(env["AIMATE_HOME"]) if daemon_pid else None
    with bare_mcp(env, cwd) as (call, pid):
        for run in range(runs + 2):
            text = REMEMBERED[run % 2].format(n=run + (3000 if tag == "daemon" else 2000))
            server_before, daemon_before = process_cpu_ms(pid), process_cpu_ms(daemon_pid)
            started_at, start = time.time(), time.perf_counter()
            call_tool(call, "memory_remember", {"text": text, "kind": "decision"})
            elapsed = (time.perf_counter() - start) * 1000
            time.sleep(0.3 if daemon_pid else 0)  # what the daemon does after answering (a commit) counts too
            split = daemon_split(home, task_name(MCP_REMEMBER), started_at)
            if run >= 2:
                times.append(elapsed)
                cpu.append(process_cpu_ms(pid) - server_before)
                served.append(process_cpu_ms(daemon_pid) - daemon_before)
                splits.extend([split] if split else [])
    out = {key: round(value, 1) for key, value in summary(times).items()}
    out["cpu_p50"], out["cpu_p95"] = round(summary(cpu)["p50"], 1), round(summary(cpu)["p95"], 1)
    if daemon_pid:
        out["daemon_cpu_p50"] = round(summary(served)["p50"], 1)
        add_split(out, splits if len(splits) == runs else [])
    return out


def conflict_check(home: Path, checks: int) -> dict[str, Any]:
    """`Conflicts.check` warm, in process: what remember adds for a core memory or a decision."""
    from aimate_memory.system import MemorySystem
    from aimate_memory.vault.filters import MemoryFilter
    from aimate_memory.vault.layout import Layer
    from scripts.bench import summary

    with MemorySystem.open(global_only=True) as system:
        system.refresh()
        vault = system.global_vault
        where = MemoryFilter(layers=(Layer.CORE, Layer.LONG_TERM), statuses=("active",))
        pool = [m for m in system.list(where) if m.layer is Layer.CORE or m.category == "decision"]
        for warm in range(3):
            system.conflicts.check(REMEMBERED[warm % 2].format(n=warm), vault)
        times = []
        for n in range(checks):
            start = time.perf_counter()
            system.conflicts.check(REMEMBERED[n % 2].format(n=n + 50), vault)
            times.append((time.perf_counter() - start) * 1000)
    return {"core_and_decisions": len(pool), **{k: round(v, 1) for k, v in summary(times).items()}}


def wait_until(check: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise RuntimeError("the daemon did not warm up in time")


def waits(
    size: int, runs: int, log: Callable[[str], None], keep: Path | None = None, cold: bool = True
) -> dict[str, Any]:
    """`cold` False: only through the daemon (what a change to the daemon's side moves, in half the time)."""
    aimate = Path(sys.executable).with_name("aimate")
    root = keep or Path(tempfile.mkdtemp(prefix="aimate-waits-"))
    home, user = root / "home", root / "user"
    # A kept home of this size built before is measured again as it is (a 10k vault's first index takes tens
    # of minutes on a loaded machine): only what the earlier runs added to it differs.
    reused = keep is not None and (keep / BUILT_FILE).is_file() and (keep / BUILT_FILE).read_text().strip() == str(size)
    if keep is not None and keep.exists() and not reused:
        shutil.rmtree(keep)
    user.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "AIMATE_HOME": str(home), "HOME": str(user), "COLUMNS": "120"}
    env.pop("AIMATE_NO_DAEMON", None)
    # As installed: pip compiles the package's bytecode, so a command reads it. A shell (or CI) that sets
    # PYTHONDONTWRITEBYTECODE made every command compile each module it imports from source (30-40 ms of a
    # daemon-answered `list`'s CPU, more cold): the bytecode is compiled once here, and read.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "aimate_memory"), quiet=1)
    os.environ.update({"AIMATE_HOME": str(home), "HOME": str(user)})
    result: dict[str, Any] = {"size": size, "runs": runs}
    try:
        if reused:
            log(f"reusing the {size}-memory home kept in {root}")
        else:
            result["first_index_s"] = build_home(aimate, env, home, user, size, log)
            if keep is not None:
                (keep / BUILT_FILE).write_text(f"{size}\n")
        listed = subprocess.run(
            [str(aimate), "mem", "list", "--json", "-n", "1"], env=env, cwd=user, check=True, capture_output=True
        )
        memory_id = json.loads(listed.stdout)[0]["id"]
        if cold:
            log("cold runs (no daemon)…")
            result["cold"] = timed_runs(aimate, {**env, "AIMATE_NO_DAEMON": "1"}, user, runs, memory_id, "cold")
        log("daemon runs…")
        subprocess.run([str(aimate), "mem", "daemon", "start"], env=env, cwd=user, check=True, capture_output=True)

        def warm() -> bool:
            status = subprocess.run(
                [str(aimate), "mem", "daemon", "status", "--json"], env=env, cwd=user, capture_output=True, text=True
            )
            data = json.loads(status.stdout or "{}")
            return bool(data.get("model_loaded")) and not data.get("queue") and not data.get("current")

        wait_until(warm, 600)
        pid = json.loads(
            subprocess.run(
                [str(aimate), "mem", "daemon", "status", "--json"], env=env, cwd=user, capture_output=True, text=True
            ).stdout
        )["pid"]
        result["daemon"] = timed_runs(aimate, env, user, runs, memory_id, "daemon", daemon_pid=int(pid))
        result["daemon_rss_busy_mb"] = daemon_rss_mb(aimate, env, user)
        # The daemon gives back what a burst freed once its queue has been empty for a second (watch/daemon.py
        # `IDLE_SETTLE_SECONDS`): read right after the last answer, the figure was whatever the last commands
        # had freed and not yet returned — 212-293 MB at 300 memories from run to run (docs/benchmarks.md,
        # "Remember and the daemon's memory at 10,000"). What it holds between bursts is read after that.
        time.sleep(SETTLED_S)
        result["daemon_rss_mb"] = daemon_rss_mb(aimate, env, user)
        subprocess.run([str(aimate), "mem", "daemon", "stop"], env=env, cwd=user, capture_output=True)
        log("conflict check in process…")
        result["conflict_check_ms"] = conflict_check(home, max(runs * 4, 20))
    finally:
        subprocess.run([str(aimate), "mem", "daemon", "stop"], env=env, cwd=user, capture_output=True)
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return result


def daemon_rss_mb(aimate: Path, env: dict[str, str], cwd: Path) -> float:
    """The running daemon's resident memory (MB), as `daemon status` reports it."""
    status = subprocess.run(
        [str(aimate), "mem", "daemon", "status", "--json"], env=env, cwd=cwd, capture_output=True, text=True
    )
    return round(json.loads(status.stdout)["rss_bytes"] / 1e6, 1)


def build_home(
    aimate: Path, env: dict[str, str], home: Path, user: Path, size: int, log: Callable[[str], None]
) -> float:
    """`size` generated memories in a new home, committed and indexed: seconds of the first index."""
    from aimate_memory.vault.roots import Roots
    from scripts.bench import SEED, generate

    subprocess.run([str(aimate), "mem", "init"], env=env, cwd=user, check=True, capture_output=True)
    generate(Roots.vault_dir(home), size, SEED)
    commit = [str(aimate), "mem", "commit", "-m", "bench vault"]
    subprocess.run(commit, env=env, cwd=user, check=True, capture_output=True)
    log(f"generated {size} memories; first index (models loaded, every chunk embedded)…")
    start = time.perf_counter()
    subprocess.run([str(aimate), "mem", "index"], env=env, cwd=user, check=True, capture_output=True)
    return round(time.perf_counter() - start, 1)


def table(result: dict[str, Any]) -> str:
    """The waits as a Markdown table: p50/p95 ms cold and through the daemon, each phase's load; then where
    each wait through the daemon went (`split_table`)."""
    cold, daemon = result.get("cold"), result["daemon"]
    loads = f"daemon {daemon['loadavg_start'][0]:.1f}→{daemon['loadavg_end'][0]:.1f}"
    if cold is not None:
        loads = f"cold {cold['loadavg_start'][0]:.1f}→{cold['loadavg_end'][0]:.1f}, {loads}"
    lines = [
        f"vault: {result['size']} generated memories, {result['runs']} runs a command; load {loads}",
        "",
        "| command | daemon p50 / p95 ms (CPU p50: command + daemon) | goal | cold p50 / p95 ms (CPU p50) | goal |",
        "|---|---|---|---|---|",
    ]
    for name in (*WAITS, MCP_REMEMBER):
        cold_goal = COLD_GOALS_MS.get(name)
        cold_cell = f"{cold[name]['p50']:.0f} / {cold[name]['p95']:.0f} ({cold[name]['cpu_p50']:.0f})" if cold else "—"
        lines.append(
            f"| {name} | {daemon[name]['p50']:.0f} / {daemon[name]['p95']:.0f} ({daemon[name]['cpu_p50']:.0f} + "
            f"{daemon[name].get('daemon_cpu_p50', 0):.0f}) "
            f"| ≤ {DAEMON_GOAL_MS:.0f} | {cold_cell} | {f'≤ {cold_goal:.0f}' if cold_goal else '—'} |"
        )
    check = result["conflict_check_ms"]
    lines += [
        "",
        f"conflict check (in process, warm, {check['core_and_decisions']} core memories and decisions): "
        f"p50 {check['p50']:.1f} ms, p95 {check['p95']:.1f} ms (goal p95 ≤ 50 ms); "
        f"first index {result.get('first_index_s', 'reused')} s; daemon RSS {result['daemon_rss_mb']} MB "
        f"({result.get('daemon_rss_busy_mb', '—')} MB right after the last answer)",
    ]
    split = split_table(daemon)
    phases = phase_table(result)
    return "\n".join(lines + (["", split] if split else []) + (["", phases] if phases else []))


def phase_table(result: dict[str, Any]) -> str:
    """`remember`'s capture by phase (its own laps, `capture_phases`): wall p50 / p95 (CPU p50) ms, through the
    daemon and cold. Cold, "commit" is the git commit; through the daemon it runs after the answer."""
    measured = [
        (tag, result[tag]["remember"]["phases"])
        for tag in ("daemon", "cold")
        if result.get(tag) and "phases" in result[tag]["remember"]
    ]
    if not measured:
        return ""
    parts = list(dict.fromkeys(part for _, phases in measured for part in phases))
    lines = ["| remember's capture, by phase | " + " | ".join(parts) + " |", "|---" * (len(parts) + 1) + "|"]
    for tag, phases in measured:
        cells = [
            f"{phases[part]['wall_p50']:.0f} / {phases[part]['wall_p95']:.0f} ({phases[part]['cpu_p50']:.0f})"
            if part in phases
            else "—"
            for part in parts
        ]
        lines.append(f"| {tag} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def split_table(daemon: dict[str, Any]) -> str:
    """Where each wait through the daemon went, p50 ms: the whole wait; the command's process (its CPU);
    the daemon's queue, its work for the request (wall, and its main thread's CPU) and what it did after
    answering (CPU: a remember's commit); the rest — the process starting, its imports, the socket, waiting
    for a core. Empty for a daemon that keeps no task timings."""
    rows = [name for name in (*WAITS, MCP_REMEMBER) if "task_wall_p50" in daemon[name]]
    if not rows:
        return ""
    lines = [
        "| wait through the daemon | wall p50 / p95 | command CPU | daemon queue | daemon wall p50 / p95 (CPU) "
        "| after the answer (CPU) | the rest |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in rows:
        wait = daemon[name]
        rest = wait["p50"] - wait["task_queue_p50"] - wait["task_wall_p50"]
        lines.append(
            f"| {name} | {wait['p50']:.0f} / {wait['p95']:.0f} | {wait['cpu_p50']:.0f} "
            f"| {wait['task_queue_p50']:.0f} "
            f"| {wait['task_wall_p50']:.0f} / {wait['task_wall_p95']:.0f} ({wait['task_cpu_p50']:.0f}) "
            f"| {wait['task_after_p50']:.0f} | {rest:.0f} |"
        )
    return "\n".join(lines)
