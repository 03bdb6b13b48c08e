"""The tests' `aimate` processes forked from a warmed interpreter (docs/reliability.md, "The zygote").

Each xdist worker starts one zygote on its first CLI call: a clean interpreter that ran this file as a script,
imported the modules the common commands import (`PRELOAD`), and forks a child per call. The child takes the
call's stdin/stdout/stderr (passed as file descriptors over a Unix socket), argv, whole environment and cwd,
runs the real `aimate_memory.cli.main()` and exits with its code, as the installed script would — minus the
~0.2 s of CPU each process spent importing the app. `run_aimate` is the one door: what `subprocess.run` of the
script gives (a `CompletedProcess`, `subprocess.TimeoutExpired` on a timeout), exec'ing the script where a
zygote could not be honest (an interpreter variable differs) or under `AIMATE_TEST_EXEC=1`.

The server half runs in the zygote and uses the standard library alone: nothing of the test process (pytest,
its imports, its threads) is in the interpreter the children are forked from.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import locale
import os
import random
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

AIMATE = Path(sys.executable).with_name("aimate")
# Every call through the real exec, as before the zygote (docs/reliability.md, "The zygote").
EXEC_ONLY = os.environ.get("AIMATE_TEST_EXEC", "") not in ("", "0")
# What an interpreter decides at its start from the environment (stdio's encoding and buffering, UTF-8 mode,
# hash seed, sys.path, …): a call whose values differ from the zygote's is exec'd.
_START_VARIABLES = ("LC_ALL", "LC_CTYPE", "LANG")
# The app's modules `mem list`, `add`, `search`, `context`, `init`, `review` and `hook session-start` import
# (`python -X importtime`, 2026-11-29: 135 of the package's modules, reached from these 27), with their
# dependencies: ruamel.yaml, sqlite, and numpy, single-threaded in the zygote (`_blas_as_exec`). Left out:
# onnxruntime (importing it starts two threads, and a fork copies none of them), and typer, rich and
# `cli.render` (the commands of the typer app, which these do not reach), which read the environment and the
# terminal once at import (TYPER_USE_RICH, TERMINAL_WIDTH, FORCE_COLOR, COLUMNS, NO_COLOR: a module-level rich
# console) — a zygote would freeze what it saw then. A module missing here is imported by the child: slower,
# never wrong.
PRELOAD = (
    "aimate_memory.cli.answers",
    "aimate_memory.cli.fast",
    "aimate_memory.cli.progress",
    "aimate_memory.embedding.minilm",
    "aimate_memory.embedding.prepare",
    "aimate_memory.embedding.use_cache",
    "aimate_memory.embedding.use_provider",
    "aimate_memory.git.committer",
    "aimate_memory.git.repo",
    "aimate_memory.git.setup",
    "aimate_memory.index.keyword_search",
    "aimate_memory.index.memory_index",
    "aimate_memory.integrations.hooks",
    "aimate_memory.lifecycle.journal",
    "aimate_memory.retrieval.hybrid",
    "aimate_memory.system.anchoring",
    "aimate_memory.system.context",
    "aimate_memory.system.facade",
    "aimate_memory.system.history",
    "aimate_memory.system.memories",
    "aimate_memory.system.models",
    "aimate_memory.system.opening",
    "aimate_memory.system.reembed",
    "aimate_memory.system.sessions",
    "aimate_memory.system.views",
    "aimate_memory.vault.privacy",
    "aimate_memory.watch.client",
)
NOT_PRELOADED = ("onnxruntime", "typer", "rich", "aimate_memory.cli.render")
# Variables a preloaded module reads once at import (ruamel.yaml's debug switch): a call that sets one is exec'd.
_READ_AT_IMPORT = ("RUAMEL_DEBUG",)
# OpenBLAS's own variables, in the order it reads them (its default: the cores this process may run on).
_BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
_FROZEN = (*_START_VARIABLES, *_READ_AT_IMPORT)
_HEADER = struct.Struct("!I")


def _abstract(name: str) -> str:
    """A socket address in Linux's abstract namespace: no file to create or remove."""
    return f"\0{name}"


# --- the test process's side ---------------------------------------------------------------------------------


def run_aimate(
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    input: str | None,
    timeout: float,
    real_exec: bool = EXEC_ONLY,
) -> subprocess.CompletedProcess[str]:
    """`subprocess.run([AIMATE, *args], …, capture_output=True, text=True)` with stdin from `input` (or
    /dev/null): through the worker's zygote, or the real exec (`real_exec`, or where the zygote would not be
    the same)."""
    argv = [str(AIMATE), *args]
    # A missing cwd: subprocess.run's own error (FileNotFoundError) in the caller, not a child's.
    if real_exec or not worker_zygote().forks_like(env) or not Path(cwd).is_dir():
        return subprocess.run(
            argv,
            cwd=cwd,
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=dict(env),
            timeout=timeout,
        )
    return worker_zygote().run(argv, cwd=cwd, env=env, input=input, timeout=timeout)


class Zygote:
    """The client of one worker's zygote: started on the first call, stopped (and waited for, so its
    children's CPU is counted in the worker's) by `stop`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._name = f"aimate-zygote-{os.getpid()}-{time.monotonic_ns()}"
        self._address = _abstract(self._name)
        self._start_env: dict[str, str] = {}
        self.forked = 0  # calls answered by a fork, for the test that compares both ways

    def forks_like(self, env: Mapping[str, str]) -> bool:
        """Whether a child forked with `env` starts as an exec'd interpreter would: the variables it decides
        at start are the zygote's."""
        start_env = self._start_env or dict(os.environ)
        names = {name for name in (*env, *start_env) if name.startswith("PYTHON") or name in _FROZEN}
        return all(env.get(name) == start_env.get(name) for name in names)

    def _started(self) -> str:
        with self._lock:
            if self._process is None:
                self._start_env = dict(os.environ)
                self._process = subprocess.Popen(
                    [sys.executable, str(Path(__file__).resolve()), self._name],
                    stdin=subprocess.PIPE,  # its end (this worker's) ends the zygote
                    stdout=subprocess.PIPE,
                    env=self._start_env,
                )
                assert self._process.stdout is not None
                ready = self._process.stdout.readline()
                assert ready == b"ready\n", f"the zygote did not start: {ready!r}"
            return self._address

    def run(
        self, argv: list[str], *, cwd: Path, env: Mapping[str, str], input: str | None, timeout: float
    ) -> subprocess.CompletedProcess[str]:
        address = self._started()
        self.forked += 1
        # As `subprocess.run(text=True)` decodes: the locale's encoding (UTF-8 mode: UTF-8), newlines made "\n".
        encoding = "utf-8" if sys.flags.utf8_mode else locale.getencoding()
        stdin_read, stdin_write = os.pipe() if input is not None else (os.open(os.devnull, os.O_RDONLY), -1)
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        request = json.dumps({"argv": argv, "cwd": str(cwd), "env": dict(env)}).encode()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(address)
            socket.send_fds(conn, [_HEADER.pack(len(request)) + request], [stdin_read, out_write, err_write])
            for fd in (stdin_read, out_write, err_write):
                os.close(fd)
            data = b"" if input is None else input.encode(encoding)
            outputs, status = _collect(conn, stdin_write, data, (out_read, err_read), time.monotonic() + timeout)
        out, err = (
            outputs[fd].decode(encoding).replace("\r\n", "\n").replace("\r", "\n") for fd in (out_read, err_read)
        )
        if status is None:
            raise subprocess.TimeoutExpired(argv, timeout, output=out, stderr=err)
        return subprocess.CompletedProcess(argv, os.waitstatus_to_exitcode(status), out, err)

    def stop(self) -> None:
        with self._lock:
            if self._process is None:
                return
            assert self._process.stdin is not None and self._process.stdout is not None
            self._process.stdin.close()  # the zygote's stop: it leaves once its last child has exited
            self._process.wait(timeout=60)
            self._process.stdout.close()
            self._process = None


def _collect(
    conn: socket.socket, stdin: int, data: bytes, outputs: tuple[int, int], deadline: float
) -> tuple[dict[int, bytes], int | None]:
    """Feed the child's stdin, read its stdout/stderr to their end and its wait status (None: it was killed
    at `deadline`, as `subprocess.run` kills a child at its timeout). Closes the descriptors it reads."""
    chunks: dict[int, list[bytes]] = {fd: [] for fd in outputs}
    reply = b""
    killed = False
    with selectors.DefaultSelector() as selector:
        for fd in outputs:
            selector.register(fd, selectors.EVENT_READ)
        selector.register(conn, selectors.EVENT_READ)
        if stdin >= 0:
            os.set_blocking(stdin, False)
            selector.register(stdin, selectors.EVENT_WRITE)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0 and not killed:
                killed = True
                if reply.endswith(b"\n"):  # the child has exited: a process it started holds its output
                    break
                with contextlib.suppress(OSError):  # the zygote kills the child; its status still arrives
                    conn.sendall(b"k")
            for key, _ in selector.select(None if killed else left):
                fd = key.fd
                if fd == stdin:
                    data = _feed(stdin, data)
                    if not data:
                        selector.unregister(stdin)
                        os.close(stdin)
                        stdin = -1
                elif key.fileobj is conn:
                    piece = conn.recv(64)
                    reply += piece
                    if not piece:
                        selector.unregister(conn)
                else:
                    piece = os.read(fd, 65536)
                    chunks[fd].append(piece)
                    if not piece:
                        selector.unregister(fd)
                        os.close(fd)
        for key in list(selector.get_map().values()):  # left open only by a timeout
            if key.fileobj is not conn:
                os.close(key.fd)
    if killed:
        return {fd: b"".join(parts) for fd, parts in chunks.items()}, None
    if not reply.endswith(b"\n"):
        raise RuntimeError("the zygote ended before its child did (its stderr is the worker's)")
    return {fd: b"".join(parts) for fd, parts in chunks.items()}, int(reply.split()[-1])


def _feed(fd: int, data: bytes) -> bytes:
    """Write what the pipe takes of `data`; what is left (empty: all written, or the child closed its end)."""
    try:
        return data[os.write(fd, data[:65536]) :]
    except BrokenPipeError:
        return b""


_worker_zygote: Zygote | None = None


def worker_zygote() -> Zygote:
    global _worker_zygote
    if _worker_zygote is None:
        _worker_zygote = Zygote()
    return _worker_zygote


def stop_zygote() -> None:
    """Stop this worker's zygote, if it started, once its children have ended (the session's end)."""
    if _worker_zygote is not None:
        _worker_zygote.stop()


# --- the zygote's side ---------------------------------------------------------------------------------------


def serve(name: str) -> None:
    """Preload, then fork a child per request until the worker's stop; the stop waits for every child."""
    before = dict(os.environ)
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # numpy's import starts no BLAS thread (`_blas_as_exec`)
    for module in PRELOAD:
        __import__(module)
    del os.environ["OPENBLAS_NUM_THREADS"]
    preloaded = sorted(set(NOT_PRELOADED) & set(sys.modules))
    assert not preloaded, f"the preload imported {preloaded}: see NOT_PRELOADED"
    # What the interpreter's start (PEP 538's LC_CTYPE) and the imports (threadpoolctl's KMP_DUPLICATE_LIB_OK)
    # added to the environment: an exec'd process that imports them has it too; the call's own values win.
    _ADDED_AT_START.update(_added_at_start())
    _ADDED_AT_START.update({name: value for name, value in os.environ.items() if name not in before})
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(_abstract(name))
    listener.listen(64)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    _Server(listener).serve()


class _Server:
    """The zygote's one thread: a loop over the listening socket, each child's pidfd and caller's connection,
    and stdin (a pipe from the worker: its end means the worker is gone, and the zygote leaves too)."""

    def __init__(self, listener: socket.socket) -> None:
        self.listener = listener
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ, self._accept)
        self.selector.register(0, selectors.EVENT_READ, self._worker_gone)
        self.children: dict[int, tuple[int, socket.socket]] = {}  # pidfd: (pid, its caller's connection)
        self.stopping = False

    def serve(self) -> None:
        """Until stdin's end (the worker's `stop`, or the worker gone) and the last child's exit."""
        while not self.stopping or self.children:
            for key, _ in self.selector.select():
                key.data(key)

    def _worker_gone(self, key: selectors.SelectorKey) -> None:
        if not os.read(0, 64):
            self.stopping = True
            self.selector.unregister(self.listener)
            self.selector.unregister(0)

    def _accept(self, key: selectors.SelectorKey) -> None:
        conn, _ = self.listener.accept()
        request, fds = _receive(conn)
        pid = _fork(request, fds)
        pidfd = os.pidfd_open(pid)
        self.children[pidfd] = (pid, conn)
        self.selector.register(pidfd, selectors.EVENT_READ, self._reap)
        self.selector.register(conn, selectors.EVENT_READ, self._kill)

    def _kill(self, key: selectors.SelectorKey) -> None:
        """The caller's timeout (or the caller gone): the child is killed; `_reap` still answers."""
        conn = key.fileobj
        assert isinstance(conn, socket.socket)
        conn.recv(16)  # read, so that closing it later is no reset
        pid = next(pid for pid, caller in self.children.values() if caller is conn)
        os.kill(pid, signal.SIGKILL)
        self.selector.unregister(conn)

    def _reap(self, key: selectors.SelectorKey) -> None:
        pid, conn = self.children.pop(key.fd)
        _, status = os.waitpid(pid, 0)
        self.selector.unregister(key.fd)
        os.close(key.fd)
        if conn.fileno() in self.selector.get_map():
            self.selector.unregister(conn)
        with contextlib.suppress(OSError):  # the caller left first (it was interrupted)
            conn.sendall(f"status {status}\n".encode())
        conn.close()


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """One request: its JSON and its three descriptors (stdin, stdout, stderr)."""
    message, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while len(message) < _HEADER.size:
        message += conn.recv(1 << 16)
    (size,) = _HEADER.unpack_from(message)
    while len(message) < _HEADER.size + size:
        message += conn.recv(1 << 16)
    return json.loads(message[_HEADER.size :]), fds


def _fork(request: dict[str, Any], fds: list[int]) -> int:
    # No thread in the zygote, Python's or a native library's: a fork copies only the calling thread, and a
    # lock another one held would stay locked in the child forever.
    assert threading.active_count() == 1 and len(os.listdir("/proc/self/task")) == 1, "a thread in the zygote"
    pid = os.fork()
    if pid == 0:
        try:
            _become(request, fds)
        except BaseException:  # before the app ran: say why on the caller's stderr
            sys.excepthook(*sys.exc_info())
        finally:
            os._exit(70)
    for fd in fds:
        os.close(fd)
    return pid


def _added_at_start() -> dict[str, str]:
    """What the interpreter added to its environment at start (PEP 538's LC_CTYPE), as an exec'd one adds it."""
    with open("/proc/self/environ", "rb") as given:
        names = {entry.split(b"=", 1)[0].decode() for entry in given.read().split(b"\0") if entry}
    return {name: value for name, value in os.environ.items() if name not in names}


_ADDED_AT_START: dict[str, str] = {}
# PYTHONUNBUFFERED or -u, as the zygote's interpreter applied it (sys.flags does not say it).
_UNBUFFERED = bool(getattr(sys.__stderr__, "write_through", False))


def _become(request: dict[str, Any], fds: list[int]) -> None:
    """Turn this fork into the process `subprocess.run` would have started, run the app, and exit."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 4096)  # close_fds
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update({**_ADDED_AT_START, **request["env"]})
    sys.argv = list(request["argv"])
    sys.stdin = sys.__stdin__ = _std_stream(0, sys.__stdin__)
    sys.stdout = sys.__stdout__ = _std_stream(1, sys.__stdout__)
    sys.stderr = sys.__stderr__ = _std_stream(2, sys.__stderr__)
    random.seed()
    _blas_as_exec()
    os._exit(_run_app())


def _std_stream(fd: int, template: Any) -> io.TextIOWrapper:
    """A standard stream on `fd` as the interpreter makes one at start (CPython's `create_stdio`): its
    encoding and errors are the zygote's (the same start variables), its buffering follows the descriptor."""
    write = fd != 0
    buffered = not _UNBUFFERED
    binary: Any = open(fd, "wb" if write else "rb", 0 if write and not buffered else -1, closefd=False)  # noqa: SIM115  # the process's stream, open until it exits
    raw = binary.raw if isinstance(binary, io.BufferedIOBase) else binary
    line_buffering = buffered and (raw.isatty() or fd == 2)
    return io.TextIOWrapper(
        binary,
        encoding=template.encoding,
        errors=template.errors,
        newline="\n",
        line_buffering=line_buffering,
        write_through=not buffered,
    )


def _blas_as_exec() -> None:
    """The BLAS thread count an exec'd process would have: its variables — set as `main` sets them before numpy
    loads (`one_thread_unless_set`) — else every core it may use."""
    if "numpy" not in sys.modules:
        return
    from aimate_memory.blas import one_thread_unless_set

    one_thread_unless_set()
    counts = [os.environ.get(name, "") for name in _BLAS_VARIABLES]
    chosen = next((int(count) for count in counts if count.isdigit() and int(count) > 0), 0)
    limit = chosen or len(os.sched_getaffinity(0))
    if limit != 1:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=limit, user_api="blas")


def _run_app() -> int:
    """The installed script's `sys.exit(main())`, ended as the interpreter ends: non-daemon threads joined,
    atexit handlers run, the standard streams flushed. Its exit code."""
    try:
        from aimate_memory.cli import main

        sys.exit(main())  # type: ignore[func-returns-value]  # as the script does: main returns None
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    threading._shutdown()  # type: ignore[attr-defined]  # what Py_FinalizeEx calls first
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = 120  # as the interpreter exits when its final flush fails
    return code


def _exit_code(code: object) -> int:
    """SystemExit's code as the interpreter turns it into an exit status."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.path[0] = str(AIMATE.parent)  # the installed script's sys.path, not this folder's
    serve(sys.argv[1])
