"""The daemon's one task queue: every index and vault operation (a sync, a maintenance run, a search) runs
from it, in order, on the thread that calls `run_until_stopped` — SQLite connections stay in one thread
and no two operations interleave. Other threads (watcher, socket, timer) only queue work; a socket
request waits for its task's reply. Idle = blocked on the queue: no polling."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aimate_memory.clock import SystemClock

log = logging.getLogger("aimate.daemon")

Result = dict[str, Any]
STOPPING: Result = {"ok": False, "error": "the daemon is stopping"}
KEPT_ERRORS = 20  # the last failures, for `daemon status`
KEPT_TIMINGS = 50  # the last tasks' timings, for `daemon status` (`TaskTiming`)


@dataclass(frozen=True)
class TaskTiming:
    """Where one task's time went (`daemon status --json`'s `recent_tasks`; scripts/bench_waits.py splits a
    wait into the client, the daemon's queue and the daemon's work with it): ms waiting in the queue, ms
    running, ms of the daemon's main thread's CPU while running (a git child's CPU is not in it)."""

    name: str
    finished: float  # time.time() when it finished
    queued_ms: float
    wall_ms: float
    cpu_ms: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "finished": round(self.finished, 3),
            "queued_ms": round(self.queued_ms, 1),
            "wall_ms": round(self.wall_ms, 1),
            "cpu_ms": round(self.cpu_ms, 1),
        }


@dataclass
class Task:
    name: str
    run: Callable[[], Result | None]
    done: threading.Event = field(default_factory=threading.Event)
    result: Result | None = None
    queued_at: float = field(default_factory=time.perf_counter)

    def finish(self, result: Result) -> None:
        self.result = result
        self.done.set()

    def wait(self, timeout: float) -> Result | None:
        """The task's result, or None when it did not finish within `timeout` seconds."""
        return (self.result or {"ok": True}) if self.done.wait(timeout) else None


class TaskQueue:
    def __init__(self) -> None:
        self._queue: queue.Queue[Task | None] = queue.Queue()  # None: stop
        self.stopping = threading.Event()
        self.current: str | None = None
        self.errors: deque[str] = deque(maxlen=KEPT_ERRORS)
        self.timings: deque[TaskTiming] = deque(maxlen=KEPT_TIMINGS)

    def put(self, name: str, run: Callable[[], Result | None]) -> Task:
        """Queue `run` (even while stopping: it is then answered "stopping", never run)."""
        task = Task(name, run)
        self._queue.put(task)
        return task

    def submit(self, name: str, run: Callable[[], Result | None]) -> Task | None:
        """Queue `run` for a client; None when the daemon is stopping (nothing queued)."""
        return None if self.stopping.is_set() else self.put(name, run)

    def stop(self) -> None:
        """Let the current task finish, then return from `run_until_stopped`; tasks still queued are
        answered "stopping" (the full sync every start begins with redoes their work)."""
        if not self.stopping.is_set():
            log.info("stop requested; finishing the current task")
            self.stopping.set()
            self._queue.put(None)

    def __len__(self) -> int:
        return self._queue.qsize()

    def run_until_stopped(
        self, on_idle: Callable[[], None] | None = None, settle: float = 1.0, busy_limit: float | None = None
    ) -> None:
        """Run the queued tasks in order until `stop`. `on_idle`: called once when the queue has stayed empty
        for `settle` seconds after a task ran — after a burst of requests, not between two of them, and not
        again until another task runs (idle is still blocked on the queue: no polling). `busy_limit`: also
        called between two tasks when the queue is empty and tasks have run for that many seconds without it —
        requests a little less than `settle` apart, for minutes, never left a pause."""
        ran, busy_since = False, 0.0
        while not self.stopping.is_set():
            if ran and busy_limit is not None and self._queue.empty() and time.monotonic() - busy_since >= busy_limit:
                ran = False
                self._idle(on_idle)
                continue
            try:
                task = self._queue.get(timeout=settle if ran and on_idle is not None else None)
            except queue.Empty:
                ran = False
                self._idle(on_idle)
                continue
            if not ran:
                busy_since = time.monotonic()  # a burst begins (or the first task after the idle step)
            if task is None or self.stopping.is_set():
                if task is not None:
                    task.finish(dict(STOPPING))
                break
            task.finish(self._run(task))
            # Not held while blocked on the queue: its result (a `list` of 10k memories: ~15 MB of objects) lived
            # on until the next task came (docs/benchmarks.md, "The daemon's memory, fourth round").
            task = None
            ran = True
        self._answer_the_rest()

    def _idle(self, on_idle: Callable[[], None] | None) -> None:
        if on_idle is None:
            return
        try:
            on_idle()
        except Exception:  # giving memory back is a courtesy: it never stops the queue
            log.exception("idle step failed")

    def _run(self, task: Task) -> Result:
        self.current = task.name
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return task.run() or {"ok": True}
        except Exception as exc:
            log.exception("task %s failed", task.name)
            self.errors.append(f"{SystemClock().now().isoformat()} {task.name}: {type(exc).__name__}: {exc}")
            return error_reply(exc)
        finally:
            self.current = None
            ended = time.perf_counter()
            self.timings.append(
                TaskTiming(
                    task.name,
                    time.time(),
                    (started - task.queued_at) * 1000,
                    (ended - started) * 1000,
                    (time.thread_time() - cpu) * 1000,
                )
            )

    def _answer_the_rest(self) -> None:
        while True:
            try:
                task = self._queue.get_nowait()
            except queue.Empty:
                return
            if task is not None:
                task.finish(dict(STOPPING))


def error_reply(exc: Exception) -> Result:
    """An exception as a reply: an AimateError keeps its message and hint for the client to print."""
    from aimate_memory.errors import AimateError

    if isinstance(exc, AimateError):
        return {"ok": False, "kind": "AimateError", "error": exc.message, "hint": exc.hint}
    return {"ok": False, "kind": type(exc).__name__, "error": str(exc)}
