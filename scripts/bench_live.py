"""Live-vault benchmarks (docs/design.md §12): daemon idle CPU and RSS, `aimate mem search` wall time with the
daemon up vs a cold process, and edit → searchable latency through the watcher; and the assistants' doors
(docs/agents.md, "Latency"): the hooks cold and with the daemon, MCP spawn → tools/list, `aimate mem --help`;
and what one hostile request costs the daemon (docs/reliability.md, "Security": `--part request`); and the
daemon's memory at scale (`--part rss`, issue 38: RSS ≤ 250 MB at 10k memories with both models loaded).

    .venv/bin/python scripts/bench_live.py [--part all|live|faces|request|rss] [--idle 60] [--runs 20]
                                           [--edits 20] [--memories 200] [--request-mb 64] [--json]
                                           [--home PATH] [--daemon-env KEY=VALUE ...]

`--part rss --memories 10000 --runs 10`: a home of N memories from bench.py's generator (200 chunks embedded
by the models, every other chunk a synthetic vector, as bench.py's `--embed-max`), a real daemon with both
models loaded, then `--runs` searches (`aimate mem search`, English and Chinese words); the daemon's RSS split
into private and file-backed pages (`/proc/PID/smaps`) after the start and after the searches. `--home PATH`
keeps the built home there and reuses it on the next run (building 10k takes minutes); `--daemon-env` sets a
variable in the daemon's environment only (MALLOC_ARENA_MAX=2, say), to measure a lever.

Everything runs against a temporary AIMATE_HOME; every daemon it starts is stopped (or killed) at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from aimate_memory.watch.private_socket import socket_path  # noqa: E402
from aimate_memory.watch.process import rss_bytes, running_pid  # noqa: E402
from aimate_memory.watch.transport import daemon_request  # noqa: E402

AIMATE = Path(sys.executable).with_name("aimate")
TICKS = os.sysconf("SC_CLK_TCK")
WORDS = [
    "cache",
    "redis",
    "deploy",
    "kubernetes",
    "migration",
    "schema",
    "index",
    "query",
    "latency",
    "budget",
    "review",
    "release",
]
ZH = ["缓存", "部署", "迁移", "索引", "查询", "延迟", "预算", "评审", "发布", "会话", "数据库", "架构"]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def make_vault(home: Path, env: dict[str, str], count: int) -> None:
    subprocess.run([str(AIMATE), "mem", "init"], env=env, check=True, capture_output=True)
    folder = home / "memory/long_term/knowledge"
    for i in range(count):
        words = " ".join(WORDS[(i + j) % len(WORDS)] for j in range(12))
        zh = "".join(ZH[(i + j) % len(ZH)] for j in range(8))
        (folder / f"note{i:05d}.md").write_text(f"# Note {i}: {WORDS[i % len(WORDS)]} {zh[:4]}\n\n{words}\n\n{zh}\n")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": statistics.median(values), "p95": percentile(values, 0.95), "n": len(values)}


def start(env: dict[str, str], home: Path, wait_model: bool) -> int:
    subprocess.run([str(AIMATE), "mem", "daemon", "start"], env=env, check=True, capture_output=True)
    pid = running_pid(home)
    assert pid and pid > 0
    daemon_request(home, {"op": "sync"}, 300)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        status = daemon_request(home, {"op": "status"}, 5) or {}
        if (
            status.get("current") is None
            and status.get("queue") == 0
            and (status.get("model_loaded") or not wait_model)
        ):
            break
        time.sleep(0.2)
    return pid


def stop(env: dict[str, str], home: Path, pid: int) -> None:
    subprocess.run([str(AIMATE), "mem", "daemon", "stop"], env=env, capture_output=True)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def idle(pid: int, seconds: float) -> dict[str, float]:
    time.sleep(2)  # let the start-up settle
    before = cpu_seconds(pid)
    time.sleep(seconds)
    used = cpu_seconds(pid) - before
    return {"seconds": seconds, "cpu_seconds": round(used, 3), "cpu_percent": round(100 * used / seconds, 3)}


def search_wall(env: dict[str, str], runs: int) -> list[float]:
    times = []
    for i in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [str(AIMATE), "mem", "search", f"{WORDS[i % len(WORDS)]} 缓存", "--json"],
            env=env,
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - started)
    return times


def edit_latency(home: Path, edits: int) -> list[float]:
    folder = home / "memory/short_term/notes"
    latencies = []
    for i in range(edits):
        token = f"edittoken{i}x{os.getpid()}"
        path = folder / f"edit{i}.md"
        written = time.perf_counter()
        path.write_text(f"# Edit {i} 编辑\n\n{token}\n", encoding="utf-8")
        while True:
            reply = daemon_request(home, {"op": "search", "query": token, "limit": 1, "no_refresh": True}, 10) or {}
            if reply.get("results"):
                latencies.append(time.perf_counter() - written)
                break
            if time.perf_counter() - written > 10:
                raise SystemExit(f"edit {i} never became searchable")
            time.sleep(0.005)
        time.sleep(0.1)
    return latencies


# -- the assistants' doors -------------------------------------------------------------------------------

HOOK_PAYLOADS = {
    "prompt": {"hook_event_name": "UserPromptSubmit", "prompt": "which cache did we choose for the 部署 缓存?"},
    "session-start": {"hook_event_name": "SessionStart", "source": "startup"},
}
MCP_INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


def hook_wall(env: dict[str, str], kind: str, cwd: Path, runs: int) -> list[float]:
    payload = json.dumps({"session_id": "bench", "cwd": str(cwd), **HOOK_PAYLOADS[kind]}, ensure_ascii=False)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(
            [str(AIMATE), "mem", "hook", kind], input=payload, env=env, capture_output=True, text=True
        )
        times.append(time.perf_counter() - started)
        if not done.stdout:
            raise SystemExit(f"hook {kind} printed nothing: see state/hooks.log")
    return times


def mcp_tools_list_wall(env: dict[str, str], cwd: Path, runs: int) -> list[float]:
    """Spawn `aimate mem mcp`, initialize, list the tools: wall seconds until the list arrives."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        server = subprocess.Popen(
            [str(AIMATE), "mem", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=cwd
        )
        assert server.stdin is not None and server.stdout is not None
        for message in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": MCP_INITIALIZE},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ):
            server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()
        while json.loads(server.stdout.readline()).get("id") != 2:
            pass
        times.append(time.perf_counter() - started)
        server.stdin.close()
        server.wait(timeout=60)
    return times


def command_wall(env: dict[str, str], args: list[str], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([str(AIMATE), *args], env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return times


def faces(home: Path, workdir: Path, keyword: dict[str, str], vectors: dict[str, str], runs: int) -> dict[str, object]:
    """Hooks cold (keyword-only, as they always are without a daemon) and with a daemon that has the model
    loaded (hybrid); MCP spawn → tools/list (median of `runs // 2`); `aimate mem --help` cold."""
    cold = {**keyword, "AIMATE_NO_DAEMON": "1"}
    core = [
        "mem",
        "add",
        "Package manager",
        "--layer",
        "core",
        "--category",
        "rule",
        "--body",
        "Always pnpm. 始终用 pnpm。",
    ]
    subprocess.run([str(AIMATE), *core], env=cold, check=True, capture_output=True)  # what session-start gives
    results: dict[str, object] = {"load_average_before": os.getloadavg()[0]}
    for kind in HOOK_PAYLOADS:
        hook_wall(cold, kind, workdir, 1)  # the page cache
        results[f"hook_{kind}_cold_s"] = summary(hook_wall(cold, kind, workdir, runs))
    pid = start(vectors, home, wait_model=True)
    try:
        for kind in HOOK_PAYLOADS:
            hook_wall(vectors, kind, workdir, 1)
            served = (daemon_request(home, {"op": "status"}, 10) or {}).get("searches_served", 0)
            results[f"hook_{kind}_daemon_s"] = summary(hook_wall(vectors, kind, workdir, runs))
            if kind == "prompt":
                served = (daemon_request(home, {"op": "status"}, 10) or {}).get("searches_served", 0) - served
                if served != runs:
                    print(f"warning: the daemon answered {served} of {runs} prompt hooks", file=sys.stderr)
    finally:
        stop(vectors, home, pid)
    results["mcp_spawn_to_tools_list_s"] = summary(mcp_tools_list_wall(cold, workdir, max(1, runs // 2)))
    results["cli_help_cold_s"] = summary(command_wall(cold, ["mem", "--help"], runs))
    results["load_average_after"] = os.getloadavg()[0]
    return results


def live(home: Path, keyword: dict[str, str], vectors: dict[str, str], args: argparse.Namespace) -> dict[str, object]:
    """The daemon idle, edit → searchable, and `aimate mem search` warm vs cold."""
    results: dict[str, object] = {}
    # 1. keyword-only daemon: idle CPU, RSS, edit → searchable.
    pid = start(keyword, home, wait_model=False)
    try:
        results["idle_keyword_only"] = {**idle(pid, args.idle), "rss_mb": round((rss_bytes(pid) or 0) / 1e6, 1)}
        results["edit_to_searchable_s"] = summary(edit_latency(home, args.edits))
    finally:
        stop(keyword, home, pid)

    # 2. daemon with the embedding model loaded: idle CPU, RSS, warm CLI search.
    pid = start(vectors, home, wait_model=True)
    try:
        results["idle_with_model"] = {**idle(pid, args.idle), "rss_mb": round((rss_bytes(pid) or 0) / 1e6, 1)}
        search_wall(vectors, 2)  # warm the page cache
        served = (daemon_request(home, {"op": "status"}, 10) or {}).get("searches_served", 0)
        results["search_wall_daemon_s"] = summary(search_wall(vectors, args.runs))
        served = (daemon_request(home, {"op": "status"}, 10) or {}).get("searches_served", 0) - served
        if served != args.runs:
            log = (home / "state/daemon.log").read_text(encoding="utf-8")[-3000:]
            print(f"warning: the daemon answered {served} of {args.runs} searches\n{log}", file=sys.stderr)
    finally:
        stop(vectors, home, pid)

    # 3. the same searches in a cold process (no daemon: loads the model every time).
    results["search_wall_cold_s"] = summary(search_wall({**vectors, "AIMATE_NO_DAEMON": "1"}, args.runs))
    results["search_wall_cold_keyword_only_s"] = summary(search_wall({**keyword, "AIMATE_NO_DAEMON": "1"}, args.runs))
    floor = []
    for _ in range(args.runs):
        started = time.perf_counter()
        subprocess.run([str(AIMATE), "mem", "--help"], env=keyword, check=True, capture_output=True)
        floor.append(time.perf_counter() - started)
    results["cli_startup_floor_help_s"] = summary(floor)
    return results


def peak_rss(pid: int) -> int:
    """VmHWM: the most resident memory the process ever had (bytes)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def hostile_request(home: Path, keyword: dict[str, str], megabytes: int) -> dict[str, object]:
    """One request of `megabytes` MB with no newline, sent raw (the client refuses to send it): the daemon's
    CPU seconds and peak-RSS growth until it answers or closes, and what it answered."""
    pid = start(keyword, home, wait_model=False)
    try:
        cpu, peak = cpu_seconds(pid), peak_rss(pid)
        block = b"x" * (1 << 20)
        started = time.perf_counter()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(300)
            sock.connect(str(socket_path(home)))
            sent = 0
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                for _ in range(megabytes):
                    sock.sendall(block)
                    sent += len(block)
                sock.shutdown(socket.SHUT_WR)
            reply = b""
            with contextlib.suppress(ConnectionResetError):
                while chunk := sock.recv(65536):
                    reply += chunk
        return {
            "megabytes": megabytes,
            "sent_mb": round(sent / 2**20, 1),
            "wall_s": round(time.perf_counter() - started, 3),
            "cpu_seconds": round(cpu_seconds(pid) - cpu, 3),
            "peak_rss_growth_mb": round((peak_rss(pid) - peak) / 1e6, 1),
            "reply": reply.decode("utf-8", "replace").strip()[:200],
        }
    finally:
        stop(keyword, home, pid)


def build_large(home: Path, count: int) -> dict[str, object]:
    """A home of `count` generated memories, indexed, 200 chunks embedded by the models and every other chunk
    a synthetic vector (bench.py's `--embed-max`: the daemon's memory does not depend on which vectors)."""
    from aimate_memory.system import MemorySystem
    from aimate_memory.vault.roots import Roots
    from scripts.bench import SEED, generate, keyword_only_embedder, new_system, prefill_vectors

    os.environ["AIMATE_HOME"] = str(home)
    base = MemorySystem(Roots(home, None))
    base.init()
    generate(base.global_vault.root, count, SEED)
    env = {**os.environ, "AIMATE_NO_DAEMON": "1"}  # committed, as a vault in use is: timeline reads its history
    subprocess.run([str(AIMATE), "mem", "commit", "-m", "bench vault"], env=env, check=True, capture_output=True)
    system = new_system(home, keyword_only_embedder(dict(base.store.embedder.settings)))
    system.refresh()
    system.close()
    embedder = base.store.embedder.get()
    system = new_system(home, base.store.embedder)
    filled = prefill_vectors(system, embedder, 200, SEED)
    system.refresh()
    chunks = system.retrieval.stats()["global"]["chunks"]
    system.close()
    base.close()
    return {"chunks": chunks, "embedded": filled["real_chunks"], "synthetic": filled["synthetic_chunks"]}


def memory_map(pid: int) -> dict[str, object]:
    """RSS split into private pages (heap, the models' arrays, SQLite's page cache, stacks) and file-backed
    ones (libraries, the USE table; the index when it was mapped), and the five largest file mappings (MB)."""
    anonymous = 0
    by_file: dict[str, int] = {}
    name, rss = "", 0
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = line.split(None, 1)[0]
        if "-" in head and not head.endswith(":"):
            parts = line.split(None, 5)
            name = parts[5].strip() if len(parts) > 5 else ""
        elif head == "Rss:":
            rss = int(line.split()[1]) * 1024
            if name.startswith("/"):
                by_file[name] = by_file.get(name, 0) + rss  # one file mapped twice (two connections) counts twice
        elif head == "Anonymous:":
            anonymous += int(line.split()[1]) * 1024
    total = rss_bytes(pid) or 0
    top = sorted(by_file.items(), key=lambda item: -item[1])[:5]
    return {
        "rss_mb": round(total / 1e6, 1),
        "private_mb": round(anonymous / 1e6, 1),
        "file_mb": round((total - anonymous) / 1e6, 1),
        "top_files_mb": {path: round(size / 1e6, 1) for path, size in top},
    }


def rollup(pid: int) -> dict[str, float]:
    """`/proc/PID/smaps_rollup` (one read, no per-mapping walk): RSS, private (anonymous) and file-backed MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        key, value = line.split(":", 1)
        fields[key] = int(value.split()[0]) * 1024
    return {
        "rss_mb": round(fields["Rss"] / 1e6, 1),
        "private_mb": round(fields["Anonymous"] / 1e6, 1),
        "file_mb": round((fields["Rss"] - fields["Anonymous"]) / 1e6, 1),
    }


def mixed_workload(vectors: dict[str, str], pid: int, rounds: int, runs: int) -> list[dict[str, object]]:
    """What a person and an assistant send (scripts/bench_waits.py's commands: remember in English and
    Chinese, list, show, context, review, stale, timeline, search and the three hooks), `runs` of each a
    round: the daemon's memory after each command's runs (smaps_rollup), so what grows shows by name, and the
    daemon's CPU seconds for them."""
    from scripts.bench_waits import WAITS, command_line, hook_payload

    workdir = Path(tempfile.mkdtemp(prefix="aimate-rss-mixed-"))  # no project: the global vault alone
    env = {**vectors, "HOME": str(workdir), "COLUMNS": "120"}
    listed = subprocess.run(
        [str(AIMATE), "mem", "list", "--json", "-n", "1"], env=env, cwd=workdir, check=True, capture_output=True
    )
    memory_id = json.loads(listed.stdout)[0]["id"]
    phases: list[dict[str, object]] = []
    for round_number in range(rounds):
        for name in WAITS:
            cpu = cpu_seconds(pid)
            for run in range(runs):
                # A new sentence each remember and a new session each hook, in this run and in one before it on
                # the same `--home` (a sentence remembered already would take the shorter path).
                number = 100_000 * (os.getpid() % 10_000) + 1_000 * round_number + run
                argv = [str(AIMATE), "mem", *command_line(name, number, memory_id)]
                done = subprocess.run(
                    argv,
                    cwd=workdir,
                    env=env,
                    input=hook_payload(name, number, workdir) or "",
                    capture_output=True,
                    text=True,
                )
                if done.returncode != 0:
                    raise SystemExit(f"{' '.join(argv[1:3])} failed: {done.stderr[-400:]}")
            # A remember's commit runs right after its answer (watch/commits.py), and the daemon gives memory back
            # once it has been idle for a second (`IDLE_SETTLE_SECONDS`): what it holds between bursts.
            time.sleep(2.5)
            daemon_cpu = round(cpu_seconds(pid) - cpu, 2)  # what the daemon spent on them (and its idle step)
            phases.append({"round": round_number + 1, "after": name, **rollup(pid), "daemon_cpu_s": daemon_cpu})
            print(json.dumps(phases[-1]), file=sys.stderr)  # progress: a round takes minutes at load
    return phases


def daemon_memory(
    home: Path, vectors: dict[str, str], extra: dict[str, str], searches: int, mixed_rounds: int = 0
) -> dict[str, object]:
    """A real daemon on `home` (both models loaded, `extra` in its environment only): its memory after the
    start, after `searches` searches through `aimate mem search` (an English and a Chinese word each) and,
    with `mixed_rounds`, after each command of that many rounds of the mixed workload (`searches` each)."""
    results: dict[str, object] = {"loadavg_start": os.getloadavg()[0]}
    os.chdir(tempfile.gettempdir())  # no project around: the daemon serves the global vault alone
    pid = start({**vectors, **extra}, home, wait_model=True)
    try:
        time.sleep(2)
        results["started"] = memory_map(pid)
        search_wall(vectors, searches)
        time.sleep(1)
        results["after_searches"] = memory_map(pid)
        results["searches"] = searches
        if mixed_rounds:
            results["mixed"] = mixed_workload(vectors, pid, mixed_rounds, searches)
            results["after_mixed"] = memory_map(pid)
            results["peak_rss_mb"] = round(peak_rss(pid) / 1e6, 1)
    finally:
        stop(vectors, home, pid)
    results["loadavg_end"] = os.getloadavg()[0]
    return results


def rss_part(args: argparse.Namespace) -> dict[str, object]:
    """`--part rss`: build (or reuse, `--home`) a home of `--memories` memories and measure the daemon's memory."""
    with contextlib.ExitStack() as stack:
        if args.home:
            home = Path(args.home).resolve()
        else:
            home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="aimate-bench-rss-"))) / "home"
        results: dict[str, object] = {"memories": args.memories}
        if not (home / "state" / "built").is_file():
            started = time.perf_counter()
            results["built"] = build_large(home, args.memories)
            results["build_s"] = round(time.perf_counter() - started, 1)
            (home / "state" / "built").write_text(json.dumps(results["built"]), encoding="utf-8")
        env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_EMBEDDING__ENABLED": "true"}
        env.pop("AIMATE_NO_DAEMON", None)
        extra = dict(item.split("=", 1) for item in args.daemon_env)
        results["daemon_env"] = extra
        results.update(daemon_memory(home, env, extra, args.runs, args.mixed))
        return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--part", choices=("all", "live", "faces", "request", "rss"), default="all")
    parser.add_argument("--idle", type=float, default=60.0, help="idle seconds measured per daemon")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--memories", type=int, default=200)
    parser.add_argument("--request-mb", type=int, default=64, help="size of the hostile request (--part request)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--home", help="--part rss: build the home here once and reuse it")
    parser.add_argument("--daemon-env", action="append", default=[], help="--part rss: KEY=VALUE for the daemon")
    parser.add_argument("--mixed", type=int, default=0, help="--part rss: rounds of the mixed workload after")
    args = parser.parse_args()
    if args.part == "rss":
        print(json.dumps(rss_part(args), indent=2))
        return
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="aimate-bench-live-") as tmp:
        home = Path(tmp) / "home"
        workdir = Path(tmp) / "work"
        workdir.mkdir()
        os.chdir(workdir)
        base = {**os.environ, "AIMATE_HOME": str(home)}
        base.pop("AIMATE_NO_DAEMON", None)
        keyword = {**base, "AIMATE_EMBEDDING__ENABLED": "false"}
        vectors = {**base, "AIMATE_EMBEDDING__ENABLED": "true"}
        make_vault(home, vectors, args.memories)
        subprocess.run([str(AIMATE), "mem", "index"], env=vectors, check=True, capture_output=True)
        if args.part in ("all", "faces"):
            results.update(faces(home, workdir, keyword, vectors, args.runs))
        if args.part in ("all", "live"):
            results.update(live(home, keyword, vectors, args))
        if args.part == "request":
            results["hostile_request"] = hostile_request(home, keyword, args.request_mb)
    results["memories"] = args.memories
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for key, value in results.items():
        if isinstance(value, dict):
            print(
                f"{key:34s} "
                + "  ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in value.items())
            )
        else:
            print(f"{key:34s} {value}")


if __name__ == "__main__":
    main()
