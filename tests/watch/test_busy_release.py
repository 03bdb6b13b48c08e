"""The daemon gives memory back during a steady stream of requests too (watch/tasks.py `busy_limit`,
watch/daemon.py `BUSY_RELEASE_SECONDS`): requests a little closer together than the idle step's settle time
left it no pause, so what they freed stayed resident for as long as they kept coming (docs/benchmarks.md,
"Remember and the daemon's memory at 10,000")."""

from __future__ import annotations

import itertools
import threading
import time

from aimate_memory.watch.tasks import TaskQueue


def stream(tasks: TaskQueue, seconds: float, gap: float) -> None:
    """One task every `gap` seconds for `seconds`, each waited for, as a client's requests are."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert tasks.put("request", lambda: None).wait(5) == {"ok": True}
        time.sleep(gap)


def run_stream(busy_limit: float | None) -> list[float]:
    """The times the idle step ran during 1.5 s of requests 0.05 s apart (settle 0.2 s: never reached)."""
    tasks, idle = TaskQueue(), []
    worker = threading.Thread(
        target=tasks.run_until_stopped,
        kwargs={"on_idle": lambda: idle.append(time.monotonic()), "settle": 0.2, "busy_limit": busy_limit},
    )
    worker.start()
    try:
        stream(tasks, 1.5, 0.05)
        during = list(idle)
    finally:
        tasks.stop()
        worker.join(5)
    assert not worker.is_alive()
    return during


def test_a_steady_stream_gets_the_idle_step_every_busy_limit_and_never_without_one() -> None:
    assert run_stream(None) == []  # before: no pause, no idle step for as long as the stream lasted
    during = run_stream(0.3)
    assert 2 <= len(during) <= 5  # ~every 0.3 s of the 1.5 s stream (a loaded machine stretches the gaps)
    assert all(later - earlier >= 0.29 for earlier, later in itertools.pairwise(during))


def test_the_busy_limit_never_runs_the_idle_step_while_tasks_wait() -> None:
    """Between two tasks only when the queue is empty: a burst queued at once is run through first."""
    tasks, release = TaskQueue(), threading.Event()
    order: list[str] = []
    worker = threading.Thread(
        target=tasks.run_until_stopped,
        kwargs={"on_idle": lambda: order.append("idle"), "settle": 5.0, "busy_limit": 0.0},
    )
    worker.start()
    try:
        burst = [tasks.put("first", lambda: (release.wait(5), None)[-1])]
        burst += [tasks.put(f"task {n}", lambda n=n: (order.append(f"task {n}"), None)[-1]) for n in range(5)]
        release.set()
        assert all(task.wait(5) == {"ok": True} for task in burst)
        deadline = time.monotonic() + 5
        while "idle" not in order and time.monotonic() < deadline:
            time.sleep(0.01)
        idle = [n for n, step in enumerate(order) if step == "idle"]
    finally:
        tasks.stop()
        worker.join(5)
    assert order[:5] == [f"task {n}" for n in range(5)]  # the whole burst, then the idle step
    assert idle == [5]
