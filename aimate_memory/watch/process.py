"""The daemon as a process: start it in the background, stop it, find its pid, hold its single-instance
lock, read its memory use. What the CLI's `daemon start|stop|status` call; what runs inside the daemon
is `hold_instance_lock` and the allocator's two knobs (`limit_malloc_arenas`, `release_free_memory`).

Single instance: the daemon holds an flock on `state/daemon.lock`, which the kernel drops when the
process dies — a SIGKILL leaves no stale lock, so "is it running" is "is the lock held".
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from aimate_memory.errors import AimateError
from aimate_memory.watch.paths import DaemonPaths
from aimate_memory.watch.private_socket import ensure_socket_folder
from aimate_memory.watch.transport import daemon_exchange, daemon_request

log = logging.getLogger(__name__)

ALREADY_RUNNING_EXIT = 3  # the daemon's exit code when another one holds the lock
UNSAFE_SOCKET_EXIT = 4  # … when its socket folder is not the person's own (private_socket)
# Run with `python -m`: the daemon with the hook op of the layer above (`integrations.daemon`). A name, not an
# import: this module stays light and below the faces.
DAEMON_MODULE = "aimate_memory.integrations.daemon"
M_ARENA_MAX = -8  # mallopt's parameter number (glibc malloc.h)
MALLOC_ARENAS = 2  # the daemon's glibc heaps (`limit_malloc_arenas`)


def hold_instance_lock(paths: DaemonPaths) -> int | None:
    """Take the single-instance lock; its file descriptor (keep it open while running), or None when
    another daemon holds it."""
    paths.state.mkdir(parents=True, exist_ok=True)
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def running_pid(home: Path) -> int | None:
    """The daemon's pid when one holds the lock, else None (-1: locked, pid not written yet)."""
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
    """Start the daemon in the background (its own session, output to the log); returns its pid once the
    process it started answers on its socket — never on the word of whatever else listens there. Already
    running → that pid. Raises UnsafeSocketFolder, before starting anything, when the socket's folder is
    not the person's own."""
    pid = running_pid(home)
    if pid is not None and pid > 0:
        return pid
    ensure_socket_folder(home)
    paths = DaemonPaths.of(home)
    proc = spawn_daemon(home, env)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        code = proc.poll()
        if code is not None:
            pid = running_pid(home)
            if code == ALREADY_RUNNING_EXIT and pid:
                return pid  # another start won the race
            said = _last_line(paths.log)
            raise AimateError(
                f"the daemon exited at start (code {code}){': ' + said if said else ''}", f"see {paths.log}"
            )
        exchange = daemon_exchange(home, {"op": "ping"}, timeout=1.0)
        if exchange is not None and _answered_by(exchange.reply, exchange.peer_pid, proc.pid):
            return proc.pid
        time.sleep(0.05)
    raise AimateError("the daemon did not answer in time", f"see {paths.log}")


def _answered_by(reply: dict[str, object], peer_pid: int | None, pid: int) -> bool:
    """The ping was answered by process `pid` (by the kernel's word where it has one, else by the reply's)."""
    return bool(reply.get("ok")) and reply.get("pid") == pid and peer_pid in (None, pid)


def _last_line(path: Path) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    return lines[-1].strip()[:300] if lines else ""


def spawn_daemon(home: Path, env: dict[str, str] | None = None, autostarted: bool = False) -> subprocess.Popen[bytes]:
    """Start a daemon process in its own session, output to its log, without waiting for it. A second one
    started meanwhile finds the instance lock held and exits (ALREADY_RUNNING_EXIT). `autostarted`: it
    leaves after `daemon.idle_exit_minutes` without a request (watch/leaving.py)."""
    paths = DaemonPaths.of(home)
    paths.state.mkdir(parents=True, exist_ok=True)
    full_env = {**os.environ, **(env or {}), "AIMATE_HOME": str(home)}
    with open(paths.log, "ab") as log_file:
        return subprocess.Popen(
            daemon_command(home) + (["--autostarted"] if autostarted else []),
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            env=full_env,
            start_new_session=True,
            close_fds=True,
        )


def daemon_command(home: Path) -> list[str]:
    """The daemon in the foreground, as this Python runs it (a service manager runs the same)."""
    return [sys.executable, "-m", DAEMON_MODULE, "--home", str(home)]


def autostart(home: Path) -> bool:
    """With `daemon.autostart` on (the global config), start the daemon in the background when none runs;
    True when one was started. Called by a command that found no daemon to ask: it does its own work this
    time, the next one is answered warm. Never raises: a caller inside an assistant must not fail for it."""
    try:
        from aimate_memory.config import load_config

        if not load_config(home, None).get("daemon.autostart") or running_pid(home) is not None:
            return False
        spawn_daemon(home, autostarted=True)
        return True
    except Exception as exc:  # a broken config or an unwritable state folder: no daemon, nothing else
        log.warning("daemon autostart failed: %s", exc)
        return False


def stop_daemon(home: Path, timeout: float = 30.0) -> int | None:
    """Ask the daemon to stop after its current task; SIGTERM if the socket does not answer. Returns the
    pid that was stopped once the process is gone — not merely its lock released: the daemon lets go of
    its lock while shutting down, and a loaded machine took ~1 s more to end the process — or None when
    none was running."""
    pid = running_pid(home)
    if pid is None:
        return None
    reply = daemon_request(home, {"op": "stop"}, timeout=5.0)
    if reply is None and pid > 0:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if running_pid(home) is None and not process_alive(pid):
            return pid
        time.sleep(0.05)
    raise AimateError(f"the daemon (pid {pid}) did not stop within {timeout:.0f} s", f"kill {pid}")


def process_alive(pid: int) -> bool:
    """True while process `pid` runs; an exited one its parent has not reaped yet (a zombie) has ended."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process under that pid
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True  # no /proc (macOS): alive by kill's word
    return state not in ("Z", "X")


def release_free_memory() -> None:
    """Give the heap's free pages back to the system (glibc's `malloc_trim`; nothing elsewhere). A sync that
    embedded thousands of chunks leaves its batches' buffers freed but resident: the daemon's RSS stayed at
    the peak of its biggest task (issue 38). A few milliseconds, after a task that allocated much."""
    trim = _glibc("malloc_trim")
    if trim is not None:
        trim(0)


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """At most `arenas` glibc heaps for the threads this process starts from now on (`mallopt(M_ARENA_MAX)`,
    what `MALLOC_ARENA_MAX` sets): glibc gives each thread that allocates while the others hold their heaps a
    heap of its own, up to eight per core, and each keeps its free space — the daemon's socket threads (one a
    connection) and embedding workers. At 10k memories after two rounds of the mixed workload: 301 MB with
    two against 312 with glibc's default, the same CPU (docs/benchmarks.md, "The daemon's memory, fifth
    round"). Called by the daemon before it starts a thread; False where there is no glibc."""
    mallopt = _glibc("mallopt")
    return mallopt is not None and mallopt(M_ARENA_MAX, arenas) == 1


@functools.cache
def _glibc(name: str) -> Callable[..., int] | None:
    """A function of glibc's allocator, looked up once: `find_library` runs `ldconfig -p` in a child process,
    and the daemon trims after every burst of requests."""
    import ctypes
    import ctypes.util

    library = ctypes.util.find_library("c")
    if library is None:
        return None
    try:
        function: Callable[..., int] = getattr(ctypes.CDLL(library), name)
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to tune or trim with
        return None
    return function


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
