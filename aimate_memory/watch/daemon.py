"""The per-user background daemon: keeps every watched vault's index in sync with its files, runs
maintenance on a schedule, answers warm searches on its socket. This module wires the parts together
and holds the operations the socket serves; it reaches vaults, search, sync and maintenance only
through `MemorySystem`. Run in the foreground with `python -m aimate_memory.watch.daemon --home HOME`
(`process.start_daemon` does that in the background).

Threads: the main thread runs every index/vault operation from one task queue, in order (`tasks`). The
watcher thread debounces file events and queues syncs (`watcher`, `pending`); one thread accepts socket
connections and one short thread serves each (`server`); a timer thread queues maintenance runs
(`schedule`). When idle every thread is blocked (queue get, accept, condition wait, event wait): no polling.

`stop` (or SIGTERM) lets the current task finish, then exits; anything still queued is redone by the
full sync every start begins with — which is also how a crash (even SIGKILL mid-sync) is repaired.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import logging.handlers
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from aimate_memory.clock import SystemClock
from aimate_memory.system.client import LocalClient
from aimate_memory.system.masking import MaskingFormatter
from aimate_memory.system.records import where_from_dict
from aimate_memory.vault.layout import Scope
from aimate_memory.watch import schedule
from aimate_memory.watch.autosync import AutoSync
from aimate_memory.watch.commits import DueCommits
from aimate_memory.watch.learned import LearnedWatch
from aimate_memory.watch.leaving import HomeMark, reason_to_leave
from aimate_memory.watch.paths import DaemonPaths
from aimate_memory.watch.pending import PendingRefreshes
from aimate_memory.watch.private_socket import UnsafeSocketFolder, ensure_socket_folder
from aimate_memory.watch.process import (
    ALREADY_RUNNING_EXIT,
    UNSAFE_SOCKET_EXIT,
    hold_instance_lock,
    limit_malloc_arenas,
    release_free_memory,
    rss_bytes,
)
from aimate_memory.watch.registry import ownership_problem, register_project, registered_projects
from aimate_memory.watch.server import (
    BUDGET_SETTING,
    CONFIDENCE,
    FLAG,
    FOLDER,
    LIMIT,
    OPTIONAL_TEXT,
    SECONDS,
    STRING,
    TEXT,
    TOKENS,
    Field,
    Handler,
    Operation,
    Reply,
    Request,
    RequestError,
    SocketServer,
)
from aimate_memory.watch.tasks import STOPPING, Result, TaskQueue
from aimate_memory.watch.vaults import PROJECT_DIR, WatchedVaults
from aimate_memory.watch.watcher import DEBOUNCE_SECONDS, Watcher

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.vault.roots import Roots

log = logging.getLogger("aimate.daemon")

DEFAULT_TIMEOUT = 120.0  # seconds a queued request waits for its task unless it sends `timeout`
IDLE_SETTLE_SECONDS = 1.0  # no task for this long after some ran: give memory back (`_release_memory`)
# … and between two requests once they have come closer than that for this long: a steady stream (an assistant's
# calls, a bench) otherwise held whatever it freed until it stopped (docs/benchmarks.md, "Remember and the
# daemon's memory at 10,000").
BUSY_RELEASE_SECONDS = 15.0
LONG_IDLE_SECONDS = 300.0  # no request for this long: give back what makes bulk work fast too (`_schedule_leaving`)
WARM_BATCH = 8  # texts embedded a task while the daemon warms its searches: a request waits for one batch at most


def _valid_where(value: object) -> bool:
    if not isinstance(value, dict):
        return False
    try:
        where_from_dict(value)
    except (ValueError, TypeError, KeyError, AttributeError):
        return False
    return True


# The fields each op's request may carry (`server.Field`); any other is refused.
QUEUED_FIELDS = {"timeout": SECONDS}
PROJECT_FIELDS = {**QUEUED_FIELDS, "cwd": FOLDER, "project": FOLDER, "global_only": FLAG, "no_refresh": FLAG}
WHERE = Field("a MemoryFilter as JSON: an object of its fields", _valid_where)
SEARCH_FIELDS = {**PROJECT_FIELDS, "query": TEXT, "limit": LIMIT, "where": WHERE}
CONTEXT_FIELDS = {**PROJECT_FIELDS, "query": OPTIONAL_TEXT, "budget": TOKENS, "budget_setting": BUDGET_SETTING}
REMEMBER_FIELDS = {
    **PROJECT_FIELDS,
    "text": TEXT,
    "source": STRING,
    "thread": OPTIONAL_TEXT,
    "status": OPTIONAL_TEXT,  # "pending": the hooks' consent (docs/agents.md, "Consent")
    "status_setting": OPTIONAL_TEXT,  # or the config key to read it from (hooks.capture_status)
    "force": FLAG,  # keep what capture would drop: the person said "remember:" in so many words
    "confidence": CONFIDENCE,  # an agent's (MCP's) own: routes the capture (capture/routing.py)
    "scope": OPTIONAL_TEXT,
    "kind": OPTIONAL_TEXT,
    "keep_both": FLAG,  # the person chose already: written beside what it may contradict
    "replaces": OPTIONAL_TEXT,  # the id of the active memory it replaces (a conflict resolved)
}
# A command's answer by name (`system.views`): the ops list, show, stale, timeline and review, each taking its
# arguments as one JSON object (the view reads what it needs and ignores the rest).
ARGS = Field("an object: the command's arguments", lambda value: isinstance(value, dict))
VIEW_FIELDS = {**PROJECT_FIELDS, "args": ARGS}
VIEW_OPS = ("list", "show", "stale", "timeline", "review")
SESSION_FIELDS = {**PROJECT_FIELDS, "session": OPTIONAL_TEXT}  # a client's session id: its own session
CONVERSE_FIELDS = {**SESSION_FIELDS, "role": TEXT, "content": TEXT}


class MaintenanceRun(Protocol):
    """What the daemon logs of a `system.upkeep.maintain` run (watch/ never imports lifecycle/ itself)."""

    changeset: Any
    warnings: list[str]
    duplicates: list[Any]


class Daemon:
    def __init__(
        self,
        home: Path,
        debounce: float = DEBOUNCE_SECONDS,
        echo: bool = False,
        more_operations: Callable[[Daemon], Mapping[str, Operation]] | None = None,
        autostarted: bool = False,
    ) -> None:
        """`autostarted`: started by a command (`process.autostart`), so it leaves when idle (`watch.leaving`);
        `echo`: the log on stdout too (`aimate mem watch`, the daemon in the foreground);
        `more_operations`: the ops of the layers above watch/ (the hooks', `integrations.daemon`), made with
        this daemon's `queued` and `client_for`."""
        self.home = Path(home).resolve()
        self.echo = echo
        self.autostarted = autostarted
        self.last_request = time.monotonic()
        self.paths = DaemonPaths.of(self.home)
        self.tasks = TaskQueue()
        self.pending = PendingRefreshes()
        self.watcher = Watcher(self._on_dirty, debounce=debounce)
        self.commits = DueCommits(self.tasks)  # the commits of writes answered already (`watch.commits`)
        self.vaults = WatchedVaults(self.home, self.watcher.add, on_open=self._on_open)
        # The socket protocol (documented in `server`): op name → handler and the fields it takes.
        self.operations: dict[str, Operation] = {
            "ping": Operation(lambda request: {"ok": True, "pid": os.getpid()}),
            "status": Operation(lambda request: self.status()),
            "stop": Operation(self._stop),
            "search": Operation(self.queued("search", self._search, project=True), SEARCH_FIELDS),
            # The facade calls a hook makes (integrations.hooks runs the hook logic on the client side).
            "context": Operation(self.queued("context", self._context, project=True), CONTEXT_FIELDS),
            "remember": Operation(self.queued("remember", self._remember, project=True), REMEMBER_FIELDS),
            "converse": Operation(self.queued("converse", self._converse, project=True), CONVERSE_FIELDS),
            "end_session": Operation(self.queued("end session", self._end_session, project=True), SESSION_FIELDS),
            "refresh": Operation(self.queued("refresh", self._refresh, project=True), PROJECT_FIELDS),
            "maintain": Operation(self.queued("maintenance", lambda request: self._maintain()), QUEUED_FIELDS),
            "sync": Operation(self.queued("sync all", lambda request: self._refresh_all()), QUEUED_FIELDS),
            "reload": Operation(
                self.queued("reload", lambda request: self._reload(), background=True),
                {**QUEUED_FIELDS, "wait": FLAG},
            ),
        }
        for name in VIEW_OPS:
            self.operations[name] = Operation(self.queued(name, self._view, project=True), VIEW_FIELDS)
        if more_operations is not None:
            self.operations.update(more_operations(self))
        self.server = SocketServer(self.home, self.operations)
        self.autosync = AutoSync(self.tasks, lambda: self.vaults.system(None))
        self.learned = LearnedWatch(self.tasks, self.vaults)
        self.started = time.time()
        self.last_refresh: dict[str, str] = {}
        self.last_maintenance: str | None = None
        self.last_maintenance_summary: dict[str, str] = {}
        self.served = 0
        self.hooks_served = 0  # counted by the hook op (`integrations.daemon`)
        self._lock_fd: int | None = None
        self._bulk_memory_held = True  # the start-up sync embeds: given back after LONG_IDLE_SECONDS

    # -- lifecycle ---------------------------------------------------------------------------------

    def run(self) -> int:
        self._lock_fd = hold_instance_lock(self.paths)
        if self._lock_fd is None:
            print("aimate daemon: already running", file=sys.stderr)
            return ALREADY_RUNNING_EXIT
        try:
            ensure_socket_folder(self.home)  # before anything is opened: a refusal leaves nothing behind
        except UnsafeSocketFolder as exc:
            # Its stderr is the log, whose last line `process.start_daemon` shows the person.
            print(f"aimate daemon: error: {exc.message}; {exc.hint}", file=sys.stderr)
            os.close(self._lock_fd)
            return UNSAFE_SOCKET_EXIT
        limit_malloc_arenas()  # before any thread of the daemon's starts
        _setup_logging(self.paths.log, self.echo)
        self.paths.pid.write_text(f"{os.getpid()}\n")
        log.info("daemon starting (pid %d, home %s)", os.getpid(), self.home)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._on_signal)
        try:
            self.vaults.open_registered()
            self.watcher.start()  # before the first sync: nothing written meanwhile is missed
            for key in self.vaults.keys:
                log.info("initial sync of %s", key)
                self._queue_refresh(key, None)
            self.tasks.put("warm", self._warm)
            self.server.start()  # after: a client's request is queued behind the start-up sync, never before it
            self._schedule_maintenance()
            self.autosync.start()
            self.learned.start()  # after the start-up syncs: an import is queued behind them
            self._schedule_leaving()
            self.tasks.run_until_stopped(
                on_idle=self._release_memory, settle=IDLE_SETTLE_SECONDS, busy_limit=BUSY_RELEASE_SECONDS
            )
        finally:
            self._shutdown()
        log.info("daemon stopped")
        return 0

    def _on_signal(self, signum: int, frame: Any) -> None:
        # Never block in a signal handler: hand the request to a thread.
        threading.Thread(target=self.tasks.stop, daemon=True).start()

    def _on_open(self, system: MemorySystem) -> None:
        system.store.defer_commit = self.commits.add  # answer a write first, commit it next (`watch.commits`)
        system.store.after_answer = self._after_answer  # then what it leaves for the next request, ahead

    def _after_answer(self, work: Callable[[], object]) -> None:
        """A task behind the answer for what a write leaves the next request (`Store.after_answer`)."""

        def run() -> Result:
            work()
            return {"ok": True}

        self.tasks.put("after answer", run)

    def _shutdown(self) -> None:
        self.commits.run_all()  # owed for writes already answered: before the vaults close
        with contextlib.suppress(Exception):
            self.watcher.stop()
        self.server.close()
        self.vaults.close()
        with contextlib.suppress(FileNotFoundError):
            self.paths.pid.unlink()
        if self._lock_fd is not None:
            os.close(self._lock_fd)

    def _schedule_maintenance(self) -> None:
        interval = float(self.vaults.system(None).config.get("maintenance.interval_minutes")) * 60
        last = schedule.read_last_run(self.paths.last_maintenance)
        if last is not None:
            self.last_maintenance = last.isoformat()
        first = schedule.first_delay(interval, last, SystemClock().now())
        queue_run = lambda: self.tasks.put("maintenance", self._maintain)  # noqa: E731
        schedule.start_timer(self.tasks.stopping, first, interval, queue_run)

    def _schedule_leaving(self) -> None:
        """Look every `daemon.leave_check_seconds` whether the daemon has anything left to serve — and, after
        `LONG_IDLE_SECONDS` without a request, drop what it keeps only to be fast at bulk work (USE's tokenizer
        dict, 28 MB: `_release_for_long_idle`), once per idle spell."""
        config = self.vaults.system(None).config
        every = float(config.get("daemon.leave_check_seconds"))
        idle_limit = float(config.get("daemon.idle_exit_minutes")) * 60
        mark = HomeMark.of(self.home)

        def look() -> None:
            idle = time.monotonic() - self.last_request
            reason = reason_to_leave(mark.still_there(self.home), self.autostarted, idle, idle_limit)
            if reason is not None:
                log.info("daemon leaving: %s", reason)
                self.tasks.stop()
            elif idle >= LONG_IDLE_SECONDS and self._bulk_memory_held:
                self._bulk_memory_held = False
                self.tasks.put("give back memory", self._release_for_long_idle)

        schedule.start_timer(self.tasks.stopping, every, every, look)

    # -- operations (socket) ---------------------------------------------------------------------------

    def queued(
        self, name: str, run: Callable[[Request], Result], background: bool = False, project: bool = False
    ) -> Handler:
        """A handler that runs `run(request)` as a task on the main thread and replies with its result;
        `background`: reply {"ok": true} at once unless the request says `"wait": true`; `project`: the
        request's project is admitted first, on the connection's thread (`_admitted_roots`)."""

        def handler(request: Request) -> Reply:
            self.last_request = time.monotonic()  # served something: not idle (`_schedule_leaving`)
            self._bulk_memory_held = True  # it may have built what a long idle time gives back
            timeout = float(request.get("timeout", DEFAULT_TIMEOUT))
            if project:
                self._admitted_roots(request)  # a refusal is the reply; nothing is queued
            task = self.tasks.submit(name, lambda: run(request))
            if task is None:
                return dict(STOPPING)
            if background and not request.get("wait"):
                return {"ok": True}
            result = task.wait(timeout)
            return result if result is not None else {"ok": False, "error": f"{request.get('op')} timed out"}

        return handler

    def _stop(self, request: Request) -> Reply:
        self.tasks.stop()
        return {"ok": True, "pid": os.getpid(), "stopping": True}

    def _search(self, request: Request) -> Result:
        where = where_from_dict(request.get("where") or {})
        found = self.client_for(request).search(
            str(request.get("query", "")),
            int(request.get("limit", 10)),
            where,
            no_refresh=bool(request.get("no_refresh")),
        )
        self.served += 1
        reply = found.to_dict(explain=True)
        reply.pop("via")  # the client knows it asked the daemon
        return {"ok": True, **reply}

    def _context(self, request: Request) -> Result:
        budget = request.get("budget")
        setting = request.get("budget_setting")
        context = self.client_for(request).build_context(
            request.get("query"), int(budget) if budget is not None else None, budget_setting=setting or None
        )
        return {"ok": True, **context.to_dict()}

    def _remember(self, request: Request) -> Result:
        # Synced first, as for a search: capture looks for a memory that already says it.
        confidence = request.get("confidence")
        result = self.client_for(request).remember(
            str(request["text"]),
            source=str(request.get("source", "cli")),
            thread=_text_or_none(request.get("thread")),
            status=_text_or_none(request.get("status")),
            status_setting=_text_or_none(request.get("status_setting")),  # the hooks' consent setting
            force=bool(request.get("force")),
            confidence=float(confidence) if confidence is not None else None,
            scope=_text_or_none(request.get("scope")),
            kind=_text_or_none(request.get("kind")),
            keep_both=bool(request.get("keep_both")),
            replaces=_text_or_none(request.get("replaces")),
        )
        return {"ok": True, "result": result.to_dict()}

    def _view(self, request: Request) -> Result:
        result = self.client_for(request).view(str(request["op"]), request.get("args") or {})
        return {"ok": True, "result": result}

    def _converse(self, request: Request) -> Result:
        appended = self.client_for(request).add_conversation(
            str(request["role"]), str(request["content"]), session=_text_or_none(request.get("session"))
        )
        return {"ok": True, "result": appended.to_dict()}

    def _end_session(self, request: Request) -> Result:
        ended = self.client_for(request).end_session(session=_text_or_none(request.get("session")))
        return {"ok": True, "ended": ended}

    def _refresh(self, request: Request) -> Result:
        self.client_for(request).refresh()
        return {"ok": True}

    def client_for(self, request: Request) -> LocalClient:
        """The verbs on the request's system, kept fresh the daemon's way: a read syncs only the vaults
        never refreshed or with changes still settling (`_refresh_stale`); the watcher queues the rest."""
        system = self._system_for(request)
        return LocalClient(lambda: system, _StaleVaults(self), borrowed=True)

    def _system_for(self, request: Request) -> MemorySystem:
        """The system for the request's project (`project`, else found from `cwd`); a project used for the
        first time is registered and watched from now on (when `_admitted_roots` lets it in)."""
        roots = self._admitted_roots(request)
        project_dir = roots.project.parent if roots.project is not None else None
        if project_dir is not None and (project_dir / PROJECT_DIR / "memory").is_dir():
            if not self.vaults.is_watched(str(project_dir)):
                register_project(self.home, project_dir, notify_daemon=False)
            if self.vaults.add_project(project_dir):
                self._refresh_key(str(project_dir), full=True)
        return self.vaults.system(roots.project)

    def _admitted_roots(self, request: Request) -> Roots:
        """The request's vaults, found as the CLI finds them. A project vault is served when the person
        registered the project (`init`, or any command run in it) or when it is theirs — the folder,
        `.aimate` and `.aimate/memory` owned by the daemon's user, none a symbolic link (a clone of a team
        repository). Anyone else's (another user's folder, readable to all) is refused: RequestError, and the
        client does the work itself (docs/reliability.md, "Security")."""
        from aimate_memory.vault.roots import detect_roots

        project, cwd = request.get("project"), request.get("cwd")
        roots = detect_roots(
            cwd=Path(cwd) if cwd and Path(cwd).is_dir() else None,
            project=Path(project) if project else None,
            global_only=bool(request.get("global_only")),
        )
        project_dir = roots.project.parent if roots.project is not None else None
        if (
            project_dir is not None
            and (project_dir / PROJECT_DIR / "memory").is_dir()
            and not self.vaults.is_watched(str(project_dir))
            and project_dir not in registered_projects(self.home)
        ):
            problem = ownership_problem(project_dir)
            if problem is not None:
                raise RequestError(f"project {project_dir} is not registered and {problem}")
        return roots

    def _refresh_stale(self, system: MemorySystem) -> None:
        """Before a read: sync each of its vaults never refreshed yet or with changes not synced yet."""
        for vault in system.vaults:
            key = self.vaults.key_for(vault)
            if key is None:
                continue
            seen_all = self.watcher.barrier(key)  # a write made a moment ago is among the pending events
            # `pending.has`: the watcher handed the events over already and their sync waits behind this read
            # (a write answered a moment ago, its commit run since: `watch.commits`).
            settling = self.watcher.has_pending(key) or self.pending.has(key)
            if key not in self.last_refresh or not seen_all or settling:
                self._refresh_key(key, full=not seen_all)

    def _maintain(self) -> Result:
        summaries: dict[str, str] = {}
        for key, (system, vault) in self.vaults.items():
            if not vault.exists or not system.config.get("maintenance.enabled"):
                continue
            for run in system.upkeep.maintain(vaults=[vault]):
                summaries[key] = run.to_dict()["summary"]
                _log_maintenance(key, run)
        now = SystemClock().now()
        self.last_maintenance = now.isoformat()
        self.last_maintenance_summary = summaries
        schedule.record_run(self.paths.last_maintenance, now)
        return {"ok": True, "summary": summaries}

    def _refresh_all(self) -> Result:
        return {"ok": True, "reports": {key: self._refresh_key(key).get("report") for key in self.vaults.keys}}

    def _reload(self) -> Result:
        """Re-read the project registry; watch and sync the projects added to it."""
        added = self.vaults.open_registered()
        for key in added:
            self._refresh_key(key, full=True)
        return {"ok": True, "added": added}

    def status(self) -> Reply:
        vaults = [
            {
                "key": key,
                "scope": vault.scope.value,
                "root": str(vault.root),
                "last_refresh": self.last_refresh.get(key),
            }
            for key, (_, vault) in self.vaults.items()
        ]
        return {
            "ok": True,
            "running": True,
            "pid": os.getpid(),
            "uptime_seconds": round(time.time() - self.started, 1),
            "started_at": datetime.fromtimestamp(self.started).astimezone().isoformat(timespec="seconds"),
            "vaults": vaults,
            "last_refresh": max(self.last_refresh.values()) if self.last_refresh else None,
            "last_maintenance": self.last_maintenance,
            "last_maintenance_summary": self.last_maintenance_summary,
            "queue": len(self.tasks) + self.watcher.pending(),
            "current": self.tasks.current,
            "errors": list(self.tasks.errors) + list(self.watcher.errors),
            "recent_tasks": [timing.to_dict() for timing in self.tasks.timings],  # oldest first
            "rss_bytes": rss_bytes(),
            "model_loaded": self.vaults.model_loaded,
            "searches_served": self.served,
            "hooks_served": self.hooks_served,
            "socket": str(self.paths.socket),
            "log": str(self.paths.log),
        }

    # -- syncing ---------------------------------------------------------------------------------------

    def _on_dirty(self, key: str, paths: set[str], full: bool) -> None:
        """Watcher thread: queue a sync of the paths that changed (one queued sync per vault at a time)."""
        self._queue_refresh(key, None if full else paths)
        if self.vaults[key][1].scope is Scope.GLOBAL:
            self.autosync.changed()  # and, debounced, with the remote

    def _queue_refresh(self, key: str, paths: set[str] | None) -> None:
        """Queue a sync of `paths` in vault `key` (None: the whole vault), merged into one already queued."""
        if self.pending.add(key, paths):
            self.tasks.put(f"sync {key}", lambda: self._run_queued_refresh(key))

    def _run_queued_refresh(self, key: str) -> Result:
        self.pending.started(key)
        return self._refresh_key(key)

    def _refresh_key(self, key: str, full: bool = False) -> Result:
        """Sync vault `key` for the paths recorded for it (plus those still settling in the watcher)."""
        system, vault = self.vaults[key]
        if not vault.exists:
            return {"ok": True}
        paths = self.pending.take(key)
        still_settling, overflowed = self.watcher.take(key)  # covered by this sync as well
        if full or overflowed:
            paths = None
        elif paths is not None:
            paths |= still_settling
        report = system.store.refresh_vault(vault, paths)
        self.last_refresh[key] = SystemClock().now().isoformat()
        if report.changed:
            release_free_memory()  # its embedding batches' buffers (`process.release_free_memory`)
        if report.changed or report.errors:
            log.info(
                "refreshed %s: +%d ~%d >%d -%d, %d errors (%.0f ms)",
                key,
                report.added,
                report.updated,
                report.moved,
                report.deleted,
                report.errors,
                report.seconds * 1000,
            )
        return {"ok": True, "report": report.as_dict()}

    def _release_memory(self) -> None:
        """When a burst of requests is over, what only the burst needed goes back: the USE table's resident
        pages (`LazyEmbedder.release_memory`: a `remember` reads the rows of tens of memories' bodies) and the
        heap's free pages (`malloc_trim`: glibc kept the freed buffers of their embedding in each thread's
        arena). 10k memories, both models, a round of the mixed workload: 375 → ~290–300 MB, the file-backed part
        107 → 51 (docs/benchmarks.md, "The daemon's memory, fourth round"). A few milliseconds, once per burst."""
        self.vaults.system(None).store.embedder.release_memory()  # one model, shared by every vault's system
        release_free_memory()

    def _release_for_long_idle(self) -> Result:
        """No request for `LONG_IDLE_SECONDS`: what an embedder keeps only for bulk work goes too
        (`release_memory(lookups=True)`). USE's tokenizer dict (28 MB) now goes at every pause already, as a
        burst of requests never builds it (`embedding/prefixes.py`; docs/benchmarks.md, "The daemon's memory,
        sixth round"). The heap is trimmed right after, as after any task (`_release_memory`)."""
        self.vaults.system(None).store.embedder.release_memory(lookups=True)
        return {"ok": True}

    def _warm(self) -> Result:
        """Load the search code and the embedding model now, so the first query does not pay for them."""
        system = self.vaults.system(None)
        loaded = system.store.warm_up()
        release_free_memory()  # what loading the models left freed
        if system.store.vectors_enabled:
            log.info("embedding model %s", "loaded" if loaded else "unavailable")
        if loaded:  # what a first remember and the first searches would wait for (docs/design.md §12)
            self.tasks.put("warm capture", lambda: self._warm_capture(system))
            self.tasks.put("warm searches", lambda: self._warm_searches(system, None))
        return {"ok": True}

    def _warm_capture(self, system: MemorySystem) -> Result:
        system.warm_capture()
        return {"ok": True}

    def _warm_searches(self, system: MemorySystem, left: list[str] | None) -> Result:
        """Embed what searches read of memories in the other script, `WARM_BATCH` texts a task: each next batch
        is queued behind whatever request came meanwhile, which never waits for more than one batch."""
        left = system.said_to_warm() if left is None else left
        system.warm_said(left[:WARM_BATCH])
        if left[WARM_BATCH:]:
            self.tasks.put("warm searches", lambda: self._warm_searches(system, left[WARM_BATCH:]))
        return {"ok": True}


class _StaleVaults:
    """`system.client.Freshness` inside the daemon (its systems stay open: closing is the daemon's)."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon

    def refresh(self, system: MemorySystem) -> None:
        self.daemon._refresh_stale(system)

    def close(self) -> None:
        pass


def _log_maintenance(key: str, run: MaintenanceRun) -> None:
    if run.changeset:
        log.info("maintenance %s: %s", key, run.changeset.subject)
    for warning in run.warnings:
        log.warning("maintenance %s: %s", key, warning)
    if run.duplicates:
        log.info("maintenance %s: %d near-duplicate group(s)", key, len(run.duplicates))


def _text_or_none(value: Any) -> str | None:
    return str(value) if value else None


def _setup_logging(path: Path, echo: bool = False) -> None:
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=2, encoding="utf-8")
    # Masked: a request's error or a maintenance warning can quote a memory (docs/reliability.md "Security").
    handler.setFormatter(MaskingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    if echo:
        terminal = logging.StreamHandler(sys.stdout)
        terminal.setFormatter(MaskingFormatter("%(asctime)s %(message)s", datefmt="%H:%M:%S"))
        root.addHandler(terminal)
    root.setLevel(logging.INFO)
    logging.getLogger("watchdog").setLevel(logging.WARNING)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)


def main(
    argv: list[str] | None = None, more_operations: Callable[[Daemon], Mapping[str, Operation]] | None = None
) -> int:
    """The daemon in the foreground; the installed one is `integrations.daemon` (with the hook op)."""
    import warnings

    parser = argparse.ArgumentParser(prog="aimate-daemon", description="AIMate memory daemon (foreground)")
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--autostarted", action="store_true", help="started by a command: leave when idle")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", category=RuntimeWarning, module="watchdog")
    if args.home is not None:
        os.environ["AIMATE_HOME"] = str(args.home)
    from aimate_memory.vault.roots import aimate_home

    return Daemon(aimate_home(), more_operations=more_operations, autostarted=args.autostarted).run()


if __name__ == "__main__":
    sys.exit(main())
