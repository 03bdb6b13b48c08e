"""The per-user background daemon: watches vaults, runs maintenance on a schedule, answers warm queries.

Files under `$AIMATE_HOME/state/`: `daemon.lock` (single instance: an flock the kernel drops when the
process dies, so a SIGKILL leaves no stale lock), `daemon.pid`, `daemon.sock` (Unix socket, mode 0600,
JSON lines), `daemon.log`, `projects.json` (the registry of project folders to watch).

Threads: the main thread runs every index/vault operation from one task queue, in order (SQLite
connections stay in one thread; a sync, a maintenance run and a search never interleave). The watcher
thread debounces file events and queues syncs; one thread accepts socket connections and one short
thread serves each; a timer thread waits `maintenance.interval_minutes` between maintenance runs. When
idle every thread is blocked (queue get, accept, condition wait, event wait): no polling.

`stop` (or SIGTERM) lets the current task finish, then exits; anything still queued is redone by the
full sync every start begins with — which is also how a crash (even SIGKILL mid-sync) is repaired.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import logging
import logging.handlers
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from aimate_memory.locks import file_lock
from aimate_memory.watch.client import daemon_request, filter_from_json, socket_path

log = logging.getLogger("aimate.daemon")

LOCK_FILE = "daemon.lock"
PID_FILE = "daemon.pid"
LOG_FILE = "daemon.log"
REGISTRY_FILE = "projects.json"
LAST_MAINTENANCE_FILE = "maintenance.last"
GLOBAL_KEY = "global"


@dataclass(frozen=True)
class DaemonPaths:
    state: Path
    lock: Path
    pid: Path
    socket: Path
    log: Path
    registry: Path

    @classmethod
    def of(cls, home: Path) -> DaemonPaths:
        state = Path(home) / "state"
        return cls(
            state, state / LOCK_FILE, state / PID_FILE, socket_path(home), state / LOG_FILE, state / REGISTRY_FILE
        )


# -- registry -----------------------------------------------------------------------------------------


def registered_projects(home: Path) -> list[Path]:
    """Project folders (each holding `.aimate/`) the daemon watches besides the global vault."""
    try:
        data = json.loads(DaemonPaths.of(home).registry.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return []
    return [Path(item) for item in data.get("projects", []) if isinstance(item, str)]


def register_project(home: Path, project_root: Path) -> bool:
    """Add a project folder (or its `.aimate/`) to the registry; True when it was new. A running daemon
    is told to start watching it. Cheap when already registered (one small file read)."""
    from aimate_memory.vault.atomic import atomic_write_text

    root = Path(project_root).expanduser().resolve()
    if root.name == ".aimate":
        root = root.parent
    paths = DaemonPaths.of(home)
    if root in registered_projects(home):
        return False
    with file_lock(paths.registry.with_suffix(".lock")):
        current = registered_projects(home)
        if root in current:
            return False
        projects = sorted({str(p) for p in current} | {str(root)})
        atomic_write_text(paths.registry, json.dumps({"projects": projects}, ensure_ascii=False, indent=2) + "\n")
    daemon_request(home, {"op": "reload"}, timeout=2.0)
    return True


def unregister_missing(home: Path) -> list[Path]:
    """Drop projects whose folder is gone; returns what was dropped."""
    from aimate_memory.vault.atomic import atomic_write_text

    paths = DaemonPaths.of(home)
    with file_lock(paths.registry.with_suffix(".lock")):
        current = registered_projects(home)
        keep = [p for p in current if (p / ".aimate").is_dir()]
        gone = [p for p in current if p not in keep]
        if gone:
            atomic_write_text(paths.registry, json.dumps({"projects": [str(p) for p in keep]}, indent=2) + "\n")
    return gone


# -- control from the CLI -------------------------------------------------------------------------------


def running_pid(home: Path) -> int | None:
    """The daemon's pid when one holds the lock, else None."""
    paths = DaemonPaths.of(home)
    if not paths.lock.exists():
        return None
    fd = os.open(paths.lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            return int(paths.pid.read_text().strip())
        except (FileNotFoundError, ValueError):
            return -1  # starting up: locked, pid not written yet
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def start_daemon(home: Path, wait: float = 15.0, env: dict[str, str] | None = None) -> int:
    """Start the daemon in the background (its own session, output to the log); returns its pid once it
    answers on its socket. Already running → that pid."""
    from aimate_memory.errors import AimateError

    pid = running_pid(home)
    if pid is not None and pid > 0:
        return pid
    paths = DaemonPaths.of(home)
    paths.state.mkdir(parents=True, exist_ok=True)
    full_env = {**os.environ, **(env or {}), "AIMATE_HOME": str(home)}
    with open(paths.log, "ab") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "aimate_memory.watch.daemon", "--home", str(home)],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            env=full_env,
            start_new_session=True,
            close_fds=True,
        )
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        code = proc.poll()
        if code is not None:
            pid = running_pid(home)
            if code == 3 and pid:
                return pid  # another start won the race
            raise AimateError(f"the daemon exited at start (code {code})", f"see {paths.log}")
        reply = daemon_request(home, {"op": "ping"}, timeout=1.0)
        if reply is not None and reply.get("ok"):
            return int(reply["pid"])
        time.sleep(0.05)
    raise AimateError("the daemon did not answer in time", f"see {paths.log}")


def stop_daemon(home: Path, timeout: float = 30.0) -> int | None:
    """Ask the daemon to stop after its current task; SIGTERM if the socket does not answer. Returns
    the pid that was stopped, or None when none was running."""
    pid = running_pid(home)
    if pid is None:
        return None
    reply = daemon_request(home, {"op": "stop"}, timeout=5.0)
    if reply is None and pid > 0:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if running_pid(home) is None:
            return pid
        time.sleep(0.05)
    from aimate_memory.errors import AimateError

    raise AimateError(f"the daemon (pid {pid}) did not stop within {timeout:.0f} s", f"kill {pid}")


# -- the daemon -----------------------------------------------------------------------------------------


class _Reply:
    def __init__(self) -> None:
        self.event = threading.Event()
        self.value: dict[str, Any] | None = None

    def set(self, value: dict[str, Any]) -> None:
        self.value = value
        self.event.set()


@dataclass
class _Task:
    name: str
    run: Callable[[], dict[str, Any] | None]
    reply: _Reply | None = None
    key: str | None = None  # sync tasks: coalesced per key


_STOP = _Task("stop", lambda: None)


class Daemon:
    def __init__(self, home: Path) -> None:
        from aimate_memory.vault.roots import Roots

        self.home = Path(home).resolve()
        self.paths = DaemonPaths.of(self.home)
        self.roots_type = Roots
        self.tasks: queue.Queue[_Task] = queue.Queue()
        self.started = time.time()
        self.stopping = threading.Event()
        self.systems: dict[str | None, Any] = {}  # project .aimate dir (str) or None → MemorySystem
        self.targets: dict[str, tuple[Any, Any]] = {}  # watch key → (system, vault)
        self.queued_syncs: set[str] = set()
        # Paths each queued sync must look at; None = walk the whole vault.
        self.dirty_paths: dict[str, set[str] | None] = {}
        self.last_sync: dict[str, str] = {}
        self.last_maintenance: str | None = None
        self.last_maintenance_summary: dict[str, str] = {}
        self.errors: deque[str] = deque(maxlen=20)
        self.current: str | None = None
        self.served = 0
        self._lock_fd: int | None = None
        self._server: socket.socket | None = None
        self._shared_embedder: Any = None
        self._lock = threading.Lock()
        self.watcher: Any = None

    # -- lifecycle ---------------------------------------------------------------------------------

    def acquire(self) -> bool:
        self.paths.state.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._lock_fd = fd
        return True

    def run(self) -> int:
        from aimate_memory.watch.watcher import Watcher

        if not self.acquire():
            print("aimate daemon: already running", file=sys.stderr)
            return 3
        _setup_logging(self.paths.log)
        self.paths.pid.write_text(f"{os.getpid()}\n")
        log.info("daemon starting (pid %d, home %s)", os.getpid(), self.home)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._on_signal)
        try:
            self.watcher = Watcher(self._on_dirty)
            self._open_vaults()
            self.watcher.start()  # before the first sync: nothing written meanwhile is missed
            self._serve()
            for key in list(self.targets):
                self._queue_sync(key, full=True)
            self.tasks.put(_Task("warm", self._warm))
            threading.Thread(target=self._schedule_maintenance, name="aimate-maintenance", daemon=True).start()
            self._loop()
        finally:
            self._shutdown()
        log.info("daemon stopped")
        return 0

    def _on_signal(self, signum: int, frame: Any) -> None:
        # Never block in a signal handler: hand the request to a thread.
        threading.Thread(target=self.request_stop, daemon=True).start()

    def request_stop(self) -> None:
        if not self.stopping.is_set():
            log.info("stop requested; finishing the current task")
            self.stopping.set()
            self.tasks.put(_STOP)

    def _loop(self) -> None:
        while not self.stopping.is_set():
            task = self.tasks.get()
            if task is _STOP or self.stopping.is_set():
                if task.reply is not None:
                    task.reply.set({"ok": False, "error": "the daemon is stopping"})
                break
            if task.key is not None:
                with self._lock:
                    self.queued_syncs.discard(task.key)
            self.current = task.name
            try:
                result = task.run()
            except Exception as exc:
                log.exception("task %s failed", task.name)
                self.errors.append(f"{_now()} {task.name}: {type(exc).__name__}: {exc}")
                result = _error_reply(exc)
            finally:
                self.current = None
            if task.reply is not None:
                task.reply.set(result or {"ok": True})
        # Answer whoever is still waiting.
        while True:
            try:
                task = self.tasks.get_nowait()
            except queue.Empty:
                break
            if task.reply is not None:
                task.reply.set({"ok": False, "error": "the daemon is stopping"})

    def _shutdown(self) -> None:
        if self.watcher is not None:
            with contextlib.suppress(Exception):
                self.watcher.stop()
        if self._server is not None:
            with contextlib.suppress(OSError):
                self._server.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                self._server.close()
            with contextlib.suppress(FileNotFoundError):
                self.paths.socket.unlink()
        for system in self.systems.values():
            with contextlib.suppress(Exception):
                system.close()
        with contextlib.suppress(FileNotFoundError):
            self.paths.pid.unlink()
        if self._lock_fd is not None:
            os.close(self._lock_fd)

    # -- vaults --------------------------------------------------------------------------------------

    def _make_system(self, project_aimate: Path | None) -> Any:
        from aimate_memory.system import MemorySystem

        system = MemorySystem(self.roots_type(self.home, project_aimate))
        if self._shared_embedder is None:
            self._shared_embedder = system.embedder
        elif system.embedder.fingerprint == self._shared_embedder.fingerprint:
            system.__dict__["embedder"] = self._shared_embedder  # one model in memory, not one per project
        with contextlib.suppress(Exception):
            from aimate_memory.git.repo import attach_auto_commit

            attach_auto_commit(system)  # maintenance runs are commits in the global vault (DESIGN §8)
        return system

    def _system(self, project_aimate: Path | None) -> Any:
        key = str(project_aimate) if project_aimate is not None else None
        if key not in self.systems:
            self.systems[key] = self._make_system(project_aimate)
        return self.systems[key]

    def _open_vaults(self) -> list[str]:
        """Watch the global vault and every registered project vault that exists; returns new keys."""
        added = []
        system = self._system(None)
        if GLOBAL_KEY not in self.targets and system.global_vault.exists:
            self._watch(GLOBAL_KEY, system, system.global_vault)
            added.append(GLOBAL_KEY)
        for project in registered_projects(self.home):
            if self._add_project(project):
                added.append(str(project))
        return added

    def _add_project(self, project_dir: Path) -> bool:
        key = str(project_dir)
        if key in self.targets:
            return False
        aimate = project_dir / ".aimate"
        if not (aimate / "memory").is_dir():
            return False
        system = self._system(aimate)
        assert system.project_vault is not None
        self._watch(key, system, system.project_vault)
        return True

    def _watch(self, key: str, system: Any, vault: Any) -> None:
        self.targets[key] = (system, vault)
        self.watcher.add(key, vault.root)
        log.info("watching %s (%s)", vault.root, key)

    def _reload(self) -> dict[str, Any]:
        added = self._open_vaults()
        for key in added:
            self._sync_key(key, full=True)
        return {"ok": True, "added": added}

    def _key_for(self, system: Any, vault: Any) -> str | None:
        for key, (_, watched) in self.targets.items():
            if watched.root == vault.root:
                return key
        return None

    # -- tasks -----------------------------------------------------------------------------------------

    def _on_dirty(self, key: str, paths: set[str], full: bool) -> None:
        """Watcher thread: queue a sync of the paths that changed (one queued sync per vault at a time)."""
        self._queue_sync(key, full, paths)

    def _queue_sync(self, key: str, full: bool = False, paths: set[str] | None = None) -> None:
        with self._lock:
            pending = self.dirty_paths.get(key, set())
            if full or paths is None or pending is None:
                self.dirty_paths[key] = None
            else:
                self.dirty_paths[key] = pending | paths
            if key in self.queued_syncs:
                return
            self.queued_syncs.add(key)
        self.tasks.put(_Task(f"sync {key}", lambda: self._sync_key(key, full), key=key))

    def _sync_key(self, key: str, full: bool = False) -> dict[str, Any]:
        system, vault = self.targets[key]
        if not vault.exists:
            return {"ok": True}
        with self._lock:
            paths = self.dirty_paths.pop(key, None)
        if self.watcher is not None:
            still_settling, overflowed = self.watcher.take(key)  # covered by this sync as well
            if overflowed:
                paths = None
            elif paths is not None:
                paths |= still_settling
        report = system.index_for(vault).sync(paths=None if full else paths)
        self.last_sync[key] = _now()
        if report.changed or report.errors:
            log.info(
                "synced %s: +%d ~%d >%d -%d, %d errors (%.0f ms)",
                key,
                report.added,
                report.updated,
                report.moved,
                report.deleted,
                report.errors,
                report.seconds * 1000,
            )
        return {"ok": True, "report": report.as_dict()}

    def _warm(self) -> dict[str, Any]:
        """Load the embedding model now, so the first query does not pay for it."""
        import aimate_memory.retrieval.hybrid  # noqa: F401  (the search code, loaded before the first query)

        embedder = self._shared_embedder
        if embedder is not None and embedder.enabled:
            embedder.get()
            log.info("embedding model %s", "loaded" if embedder.loaded else "unavailable")
        return {"ok": True}

    def _search(self, request: dict[str, Any]) -> dict[str, Any]:
        from aimate_memory.vault.roots import detect_roots

        project = request.get("project")
        cwd = request.get("cwd")
        roots = detect_roots(
            cwd=Path(cwd) if cwd and Path(cwd).is_dir() else None,
            project=Path(project) if project else None,
            global_only=bool(request.get("global_only")),
        )
        project_dir = roots.project.parent if roots.project is not None else None
        new_project = project_dir is not None and str(project_dir) not in self.targets
        if new_project and project_dir is not None and (project_dir / ".aimate/memory").is_dir():
            register_project_quiet(self.home, project_dir)  # used from this project: watch it from now on
            if self._add_project(project_dir):
                self._sync_key(str(project_dir), full=True)
        system = self._system(roots.project)
        if not request.get("no_sync"):
            for vault in system.vaults:
                key = self._key_for(system, vault)
                if key is not None and (key not in self.last_sync or self.watcher.has_pending(key)):
                    self._sync_key(key)
        where = filter_from_json(request.get("where") or {})
        response = system.search(str(request.get("query", "")), int(request.get("limit", 10)), where)
        self.served += 1
        return {
            "ok": True,
            "results": [hit.as_dict(True) for hit in response.results],
            "mode": response.mode,
            "warnings": response.warnings,
            "elapsed_ms": response.elapsed_ms,
        }

    def _maintain(self) -> dict[str, Any]:
        summaries: dict[str, str] = {}
        for key, (system, vault) in list(self.targets.items()):
            if not vault.exists or not system.config.get("maintenance.enabled"):
                continue
            for run in system.maintain(vaults=[vault]):
                summaries[key] = run.to_dict()["summary"]
                if run.changeset:
                    log.info("maintenance %s: %s", key, run.changeset.subject)
                for warning in run.warnings:
                    log.warning("maintenance %s: %s", key, warning)
                if run.duplicates:
                    log.info("maintenance %s: %d near-duplicate group(s)", key, len(run.duplicates))
        self.last_maintenance = _now()
        self.last_maintenance_summary = summaries
        with contextlib.suppress(OSError):
            (self.paths.state / LAST_MAINTENANCE_FILE).write_text(self.last_maintenance + "\n")
        return {"ok": True, "summary": summaries}

    def _schedule_maintenance(self) -> None:
        """Wait (blocked, not polling) for the interval, queue a run, repeat."""
        system = self._system(None)
        interval = float(system.config.get("maintenance.interval_minutes")) * 60
        delay = interval
        with contextlib.suppress(OSError, ValueError):
            last = datetime.fromisoformat((self.paths.state / LAST_MAINTENANCE_FILE).read_text().strip())
            self.last_maintenance = last.isoformat()
            delay = max(5.0, interval - (datetime.now().astimezone() - last).total_seconds())
        while not self.stopping.wait(delay):
            self.tasks.put(_Task("maintenance", self._maintain))
            delay = interval

    # -- socket ------------------------------------------------------------------------------------------

    def _serve(self) -> None:
        path = self.paths.socket
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a socket left by a killed daemon (we hold the lock: it is not in use)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            server.bind(str(path))
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        server.listen(64)
        self._server = server
        threading.Thread(target=self._accept_loop, args=(server,), name="aimate-socket", daemon=True).start()
        log.info("listening on %s", path)

    def _accept_loop(self, server: socket.socket) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(30)
            try:
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                request = json.loads(data) if data.strip() else {}
                reply = self._dispatch(request if isinstance(request, dict) else {})
            except (ValueError, OSError) as exc:
                reply = {"ok": False, "error": f"bad request: {exc}"}
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps(reply, ensure_ascii=False, default=str).encode("utf-8") + b"\n")

    def _dispatch(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "ping":
            return {"ok": True, "pid": os.getpid()}
        if op == "status":
            return self.status()
        if op == "stop":
            self.request_stop()
            return {"ok": True, "pid": os.getpid(), "stopping": True}
        tasks: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
            "search": ("search", lambda: self._search(request)),
            "maintain": ("maintenance", self._maintain),
            "reload": ("reload", self._reload),
            "sync": ("sync all", self._sync_all),
        }
        if op not in tasks:
            return {"ok": False, "error": f"unknown op {op!r}"}
        if self.stopping.is_set():
            return {"ok": False, "error": "the daemon is stopping"}
        name, run = tasks[op]
        reply = _Reply()
        self.tasks.put(_Task(name, run, reply))
        if op == "reload" and not request.get("wait"):
            return {"ok": True}
        if not reply.event.wait(float(request.get("timeout", 120))):
            return {"ok": False, "error": f"{op} timed out"}
        return reply.value or {"ok": True}

    def _sync_all(self) -> dict[str, Any]:
        return {"ok": True, "reports": {key: self._sync_key(key)["report"] for key in list(self.targets)}}

    def status(self) -> dict[str, Any]:
        vaults = []
        for key, (_, vault) in list(self.targets.items()):
            vaults.append(
                {"key": key, "scope": vault.scope.value, "root": str(vault.root), "last_sync": self.last_sync.get(key)}
            )
        embedder = self._shared_embedder
        return {
            "ok": True,
            "running": True,
            "pid": os.getpid(),
            "uptime_seconds": round(time.time() - self.started, 1),
            "started_at": datetime.fromtimestamp(self.started).astimezone().isoformat(timespec="seconds"),
            "vaults": vaults,
            "last_sync": max(self.last_sync.values()) if self.last_sync else None,
            "last_maintenance": self.last_maintenance,
            "last_maintenance_summary": self.last_maintenance_summary,
            "queue": self.tasks.qsize() + (self.watcher.pending() if self.watcher else 0),
            "current": self.current,
            "errors": list(self.errors) + (list(self.watcher.errors) if self.watcher else []),
            "rss_bytes": rss_bytes(),
            "model_loaded": bool(embedder is not None and embedder.loaded),
            "searches_served": self.served,
            "socket": str(self.paths.socket),
            "log": str(self.paths.log),
        }


def register_project_quiet(home: Path, project_dir: Path) -> None:
    """`register_project` from inside the daemon (no notification to itself)."""
    from aimate_memory.vault.atomic import atomic_write_text

    paths = DaemonPaths.of(home)
    with file_lock(paths.registry.with_suffix(".lock")):
        current = registered_projects(home)
        if project_dir.resolve() in current:
            return
        projects = sorted({str(p) for p in current} | {str(project_dir.resolve())})
        atomic_write_text(paths.registry, json.dumps({"projects": projects}, ensure_ascii=False, indent=2) + "\n")


def rss_bytes(pid: int | str = "self") -> int | None:
    """Resident memory, from /proc (Linux); None elsewhere."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _error_reply(exc: Exception) -> dict[str, Any]:
    from aimate_memory.errors import AimateError

    if isinstance(exc, AimateError):
        return {"ok": False, "kind": "AimateError", "error": exc.message, "hint": exc.hint}
    return {"ok": False, "kind": type(exc).__name__, "error": str(exc)}


def _now() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _setup_logging(path: Path) -> None:
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=2, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    logging.getLogger("watchdog").setLevel(logging.WARNING)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)


def main(argv: list[str] | None = None) -> int:
    import warnings

    parser = argparse.ArgumentParser(prog="aimate-daemon", description="AIMate memory daemon (foreground)")
    parser.add_argument("--home", type=Path, default=None)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=RuntimeWarning, module="watchdog")
    if args.home is not None:
        os.environ["AIMATE_HOME"] = str(args.home)
    from aimate_memory.vault.roots import aimate_home

    return Daemon(aimate_home()).run()


if __name__ == "__main__":
    sys.exit(main())
