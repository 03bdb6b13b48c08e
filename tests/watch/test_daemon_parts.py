"""The daemon's parts in process: sync coalescing, the maintenance schedule, the socket server and its op
table, the task queue, the project registry, and the facade's live actions (no daemon process)."""

from __future__ import annotations

import gc
import os
import stat
import threading
import time
import weakref
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from aimate_memory.errors import InvalidInputError
from aimate_memory.system import MemorySystem
from aimate_memory.watch.pending import PendingRefreshes
from aimate_memory.watch.private_socket import socket_path
from aimate_memory.watch.registry import register_project, registered_projects, unregister_missing
from aimate_memory.watch.schedule import MIN_FIRST_DELAY, first_delay, read_last_run, record_run
from aimate_memory.watch.server import TEXT, Operation, SocketServer
from aimate_memory.watch.tasks import KEPT_TIMINGS, STOPPING, TaskQueue
from aimate_memory.watch.transport import daemon_request

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=timezone.utc)


def test_pending_syncs_queue_one_sync_per_vault_and_merge_later_changes() -> None:
    pending = PendingRefreshes()
    assert pending.add("global", {"a.md"}) is True  # queue a sync
    assert pending.add("global", {"笔记/b.md"}) is False  # merged into the queued one
    assert pending.add("/proj", {"c.md"}) is True  # another vault: its own sync
    assert pending.has("global") and not pending.has("elsewhere")  # a read before the queued sync syncs first
    pending.started("global")
    assert pending.take("global") == {"a.md", "笔记/b.md"}
    assert pending.take("global") is None  # nothing recorded: the next sync walks the whole vault
    assert not pending.has("global")
    assert pending.add("global", {"d.md"}) is True  # the earlier sync started: a new one is needed
    assert pending.add("global", None) is False  # lost events: the whole vault…
    assert pending.add("global", {"e.md"}) is False
    assert pending.take("global") is None  # …absorbs every path list


def test_first_maintenance_counts_from_the_last_run() -> None:
    hour = 3600.0
    assert first_delay(hour, None, NOW) == hour
    assert first_delay(hour, NOW - timedelta(minutes=45), NOW) == pytest.approx(15 * 60)
    assert first_delay(hour, NOW - timedelta(days=3), NOW) == MIN_FIRST_DELAY  # overdue: soon, not at once


def test_last_run_is_remembered_timezone_aware(tmp_path: Path) -> None:
    path = tmp_path / "maintenance.last"
    assert read_last_run(path) is None
    record_run(path, NOW)
    assert read_last_run(path) == NOW
    path.write_text("2026-11-24T12:00:00\n")  # no offset (hand-written): local time, still comparable
    last = read_last_run(path)
    assert last is not None and last.tzinfo is not None
    path.write_text("not a time\n")
    assert read_last_run(path) is None


def test_socket_server_dispatches_through_its_op_table(home: Path) -> None:
    operations = {"echo": Operation(lambda request: {"ok": True, "text": request["text"]}, {"text": TEXT})}
    server = SocketServer(home, operations)
    server.start()
    try:
        assert stat.S_IMODE(os.stat(socket_path(home)).st_mode) == 0o600
        for text in ("长期记忆 上下文", "long-term memory"):
            assert daemon_request(home, {"op": "echo", "text": text}) == {"ok": True, "text": text}
        operations["ping"] = Operation(lambda request: {"ok": True, "pid": 1})  # adding an op is one entry
        assert daemon_request(home, {"op": "ping"}) == {"ok": True, "pid": 1}
        refused = {"ok": False, "kind": "BadRequest"}
        unknown = {**refused, "error": "bad request: unknown op (the ops: echo, ping)"}
        assert daemon_request(home, {"op": "nope"}) == unknown and daemon_request(home, {}) == unknown
        import socket

        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
            raw.connect(str(socket_path(home)))
            raw.sendall(b"{not json\n")
            assert b"bad request: not JSON" in raw.recv(65536)
    finally:
        server.close()
    assert not socket_path(home).exists()
    assert daemon_request(home, {"op": "echo", "text": "x"}) is None  # nobody listening


def test_task_queue_runs_in_order_reports_errors_and_answers_the_rest_when_stopping() -> None:
    tasks = TaskQueue()
    ran: list[str] = []
    release = threading.Event()
    first = tasks.put("first", lambda: (release.wait(5), ran.append("first"), None)[-1])
    second = tasks.put("second", lambda: ran.append("second") or {"ok": True, "n": 2})

    def fail() -> None:
        raise InvalidInputError("查询为空 empty query", "pass a query")

    failing = tasks.put("fail", fail)
    worker = threading.Thread(target=tasks.run_until_stopped)
    worker.start()
    assert first.wait(0.05) is None  # still running: not finished within the timeout
    release.set()
    assert second.wait(5) == {"ok": True, "n": 2} and first.wait(5) == {"ok": True}
    assert failing.wait(5) == {
        "ok": False,
        "kind": "AimateError",
        "error": "查询为空 empty query",
        "hint": "pass a query",
    }
    assert ran == ["first", "second"] and "empty query" in tasks.errors[-1]
    started, blocker = threading.Event(), threading.Event()
    busy = tasks.put("busy", lambda: (started.set(), blocker.wait(5), None)[-1])
    queued = tasks.put("queued", lambda: ran.append("never") or None)
    assert started.wait(5) and tasks.current == "busy"
    tasks.stop()
    blocker.set()
    worker.join(5)
    assert not worker.is_alive()
    assert busy.wait(1) == {"ok": True}  # the current task finishes
    assert queued.wait(1) == STOPPING and "never" not in ran  # the rest is answered, not run
    assert tasks.submit("late", lambda: None) is None


def test_registry_adds_each_project_once(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "项目 project"
    (project / ".aimate").mkdir(parents=True)
    assert register_project(home, project, notify_daemon=False) is True
    assert register_project(home, project / ".aimate", notify_daemon=False) is False
    assert register_project(home, project) is False  # no daemon to tell: still fine
    assert registered_projects(home) == [project.resolve()]
    (project / ".aimate").rmdir()
    assert unregister_missing(home) == [project.resolve()] and registered_projects(home) == []


@pytest.fixture
def system(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    system = MemorySystem.open(global_only=True)
    system.init()
    yield system
    system.close()


@pytest.mark.slow
def test_sync_vault_looks_only_at_the_paths_given(system: MemorySystem) -> None:
    vault = system.global_vault
    system.store.refresh_vault(vault)
    folder = vault.root / "long_term/knowledge"
    (folder / "seen.md").write_text("# 看见的 seen note\n", encoding="utf-8")
    (folder / "unseen.md").write_text("# 没看见 unseen note\n", encoding="utf-8")
    report = system.store.refresh_vault(vault, {"long_term/knowledge/seen.md"})
    assert report.added == 1
    titles = {hit.memory.title for hit in system.search("note").results}
    assert titles == {"看见的 seen note"}
    assert system.store.refresh_vault(vault).added == 1  # None: the whole vault


def test_systems_share_one_embedding_model(home: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    project = tmp_path / "proj"
    (project / ".aimate").mkdir(parents=True)
    with MemorySystem.open(global_only=True) as first, MemorySystem.open(project=project) as second:
        assert second.store.embedder is not first.store.embedder
        assert second.store.share_embedder(first.store) is True and second.store.embedder is first.store.embedder
        assert first.store.warm_up() is False  # vectors off: nothing to load, and no error


def test_task_queue_keeps_each_tasks_wait_wall_and_cpu_for_daemon_status() -> None:
    """`daemon status`'s `recent_tasks` (scripts/bench_waits.py splits a wait with it): a task that waited
    behind another says how long, a busy one how much CPU it spent, a sleeping one little; a failed one is
    timed too; only the last `KEPT_TIMINGS` are kept."""
    tasks = TaskQueue()

    def fail() -> None:
        raise ValueError("失败 fails")

    tasks.put("睡眠 sleeps", lambda: (time.sleep(0.2), None)[-1])
    tasks.put("spins", lambda: (sum(range(3_000_000)), None)[-1])
    tasks.put("fails", fail)
    tasks.put("stop", tasks.stop)
    tasks.run_until_stopped()
    sleeps, spins, fails, _ = tasks.timings
    assert sleeps.name == "睡眠 sleeps" and sleeps.wall_ms >= 190 and sleeps.cpu_ms < sleeps.wall_ms / 2
    assert spins.queued_ms >= 190 and spins.cpu_ms > 0  # it waited for the sleeper, then spent CPU
    assert fails.name == "fails" and "失败 fails" in tasks.errors[-1]
    assert spins.to_dict().keys() == {"name", "finished", "queued_ms", "wall_ms", "cpu_ms"}
    more = TaskQueue()
    for n in range(KEPT_TIMINGS + 5):
        more.put(f"task {n}", lambda: None)
    more.put("stop", more.stop)
    more.run_until_stopped()
    assert len(more.timings) == KEPT_TIMINGS and more.timings[-1].name == "stop"


def test_the_queue_calls_its_idle_step_once_after_a_burst_and_survives_its_failure() -> None:
    """The daemon gives memory back when a burst of requests is over (watch/daemon.py `_release_memory`): once
    per burst, never between two queued tasks, never while it stays idle; a failing step stops nothing."""
    tasks = TaskQueue()
    idle: list[float] = []
    fail, all_queued = threading.Event(), threading.Event()

    def on_idle() -> None:
        idle.append(time.monotonic())
        if fail.is_set():
            raise OSError("no memory to give back")

    def wait_for_idle(count: int) -> None:
        deadline = time.monotonic() + 10
        while len(idle) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)  # three settle times more: no second call
        assert len(idle) == count

    worker = threading.Thread(target=tasks.run_until_stopped, kwargs={"on_idle": on_idle, "settle": 0.1})
    worker.start()
    time.sleep(0.3)
    assert idle == []  # nothing ran yet: nothing to give back
    burst = [tasks.put("first", lambda: (all_queued.wait(5), None)[-1])]
    burst += [tasks.put(f"task {n}", lambda: None) for n in range(20)]
    all_queued.set()
    assert all(task.wait(5) == {"ok": True} for task in burst)
    wait_for_idle(1)  # once for the burst, not once per task, and not again while idle
    fail.set()
    assert tasks.put("one more", lambda: {"ok": True, "n": 1}).wait(5) == {"ok": True, "n": 1}
    wait_for_idle(2)  # failed (logged) …
    assert tasks.put("after", lambda: {"ok": True, "n": 2}).wait(5) == {"ok": True, "n": 2}  # … the queue runs on
    tasks.stop()
    worker.join(5)
    assert not worker.is_alive()


def test_the_queue_keeps_no_answer_while_it_waits_for_the_next_task() -> None:
    """A `list` of 10k memories answered, its result (~15 MB of objects) lived on in the queue's loop until
    the next request came: the daemon's memory between requests held the biggest last answer."""

    class Answer:
        """Stands for a reply's memories (a dict cannot be weakly referenced)."""

    tasks = TaskQueue()
    worker = threading.Thread(target=tasks.run_until_stopped)
    worker.start()
    answer = Answer()
    kept = weakref.ref(answer)
    task = tasks.put("list", lambda found=answer: {"ok": True, "memories": found})
    del answer
    reply = task.wait(5)
    assert reply is not None and reply["memories"] is kept()  # answered, as the handler reads it
    del task, reply  # what the connection's thread lets go once it has sent the reply
    deadline = time.monotonic() + 5
    while kept() is not None and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    assert kept() is None and worker.is_alive()  # gone, while the queue still waits
    tasks.stop()
    worker.join(5)
