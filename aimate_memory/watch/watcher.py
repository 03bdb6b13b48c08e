"""File-system watching for vaults (docs/design.md §6): watchdog (inotify here) → per-path debounce → sync callback.

What editors really do (measured with watchdog/inotify on this machine):

- a plain write: `modified` (often several) on the file;
- an atomic save: `moved tmp → file` and no event on the file itself → the *destination* counts;
- vim: `moved file → file~`, then `created file` → both sides are looked at; `file~` is ignored;
- a folder rename: one moved event for the folder and one per child, with `dest_path`;
- a move into the tree arrives as `created`/`moved`-to, a move out as `deleted`/`moved`-from.

Every event names at most two paths; each path that can hold a memory (a `.md` file, or a folder,
which may hold some) gets a deadline `debounce` seconds after its last event. When the earliest
deadline passes, the vault's callback runs once with every path that is due (the index's hash-sync
finds out what actually changed). Ignored: `.git/`, `state/`, `index.db*`, temp and swap files.

No polling: the worker thread blocks on a condition variable with no timeout while nothing is pending,
and with the time to the next deadline otherwise. A watchdog queue overflow (logged by watchdog, no
event) or a dead observer thread → a full sync of that vault (`full=True`).
"""

from __future__ import annotations

import contextlib
import fnmatch
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import ObservedWatch

from aimate_memory.vault.roots import STATE_DIR

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.3
# watchdog holds an IN_MOVED_FROM for 0.5 s to pair it with its IN_MOVED_TO, and its reader sleeps that delay out
# even when the pair arrived meanwhile (`DelayedQueue.get`): every event behind a git commit's `index.lock` rename
# waited up to 0.5 s — a barrier's among them. A remember through the daemon right after another's commit waited
# 137–175 ms in its barrier, in 7 of 20 runs (2026-11-29, docs/design.md, "What a barrier waited for"). A rename's
# two events reach the inotify queue together, read in one batch: 50 ms still pairs them.
MOVE_PAIRING_SECONDS = 0.05
BARRIER_TIMEOUT = 0.5  # seconds; its event took ~0.1 ms idle (inotify, this machine)
IGNORED_DIRS = frozenset({".git", STATE_DIR, "__pycache__", ".obsidian", ".trash"})
IGNORED_NAMES = ("*.swp", "*.swx", "*.swo", "*~", ".#*", "*.tmp", "4913", "index.db*", "#*#", ".DS_Store")

# (vault key, paths due relative to the vault root, full sync wanted)
DirtyCallback = Callable[[str, set[str], bool], None]


def _pair_moves_sooner() -> None:
    """Set watchdog's move-pairing delay (`MOVE_PAIRING_SECONDS`) where this watchdog has one (inotify)."""
    with contextlib.suppress(ImportError):
        from watchdog.observers.inotify_move_event_grouper import InotifyMoveEventGrouper

        InotifyMoveEventGrouper.delay = MOVE_PAIRING_SECONDS


_pair_moves_sooner()


def is_ignored(rel_path: str) -> bool:
    """True for paths that never hold a memory: repository and state folders, swap/temp files."""
    parts = [part for part in rel_path.replace(os.sep, "/").split("/") if part]
    if not parts:
        return True
    if any(part in IGNORED_DIRS for part in parts[:-1]) or parts[-1] in IGNORED_DIRS:
        return True
    name = parts[-1]
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in IGNORED_NAMES)


def is_relevant(rel_path: str, is_directory: bool) -> bool:
    if is_ignored(rel_path):
        return False
    return is_directory or rel_path.endswith(".md")


@dataclass
class _Target:
    key: str
    root: Path
    watch: ObservedWatch | None = None
    deadlines: dict[str, float] = field(default_factory=dict)
    full: bool = False


BARRIER_PREFIX = ".aimate-barrier-"  # a file `barrier` creates and removes at once (ignored: *.tmp)


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher, key: str, root: Path) -> None:
        self.watcher = watcher
        self.key = key
        self.root = root

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return  # reads are not changes
        name = os.path.basename(os.fsdecode(event.src_path))
        if name.startswith(BARRIER_PREFIX):
            self.watcher.passed(name)
            return
        if event.is_directory and event.event_type in ("modified", "closed"):
            return  # a folder's mtime moves with every file in it: the file's own event says what changed
        paths = [event.src_path, getattr(event, "dest_path", "") or ""]
        for raw in paths:
            if not raw:
                continue
            path = os.fsdecode(raw)
            try:
                rel = os.path.relpath(path, self.root)
            except ValueError:
                continue
            if rel.startswith(".."):
                continue  # the other end of a move out of (or into) the tree
            if is_relevant(rel, event.is_directory):
                self.watcher.touch(self.key, rel.replace(os.sep, "/"))


class _OverflowLog(logging.Handler):
    """watchdog reports a kernel queue overflow only in its log: lost events → full sync everywhere."""

    def __init__(self, watcher: Watcher) -> None:
        super().__init__(logging.WARNING)
        self.watcher = watcher

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage().lower()
        if "overflow" in message or "unable to rebuild" in message:
            self.watcher.request_full_refresh()


class Watcher:
    """Watch vault folders; call `on_dirty(key, paths, full)` after each burst of changes settles.

    `on_dirty` runs on the watcher's worker thread; it may block (e.g. sync the index) — events keep
    being collected meanwhile and are delivered in the next call.
    """

    def __init__(self, on_dirty: DirtyCallback, debounce: float = DEBOUNCE_SECONDS) -> None:
        self.on_dirty = on_dirty
        self.debounce = debounce
        self._targets: dict[str, _Target] = {}
        self._cond = threading.Condition()
        self._observer = Observer()
        self._worker: threading.Thread | None = None
        self._stopping = False
        self._busy = False
        self._overflow_handler = _OverflowLog(self)
        self._observer_failed = False
        self._previous_excepthook = threading.excepthook
        self._barriers: dict[str, threading.Event] = {}
        self.errors: list[str] = []

    # -- setup ---------------------------------------------------------------------------------

    def add(self, key: str, root: Path) -> None:
        """Watch `root` (recursively) under the name `key`. Safe before or after `start()`."""
        root = Path(root).resolve()
        with self._cond:
            if key in self._targets:
                return
            target = _Target(key, root)
            self._targets[key] = target
        target.watch = self._observer.schedule(_Handler(self, key, root), str(root), recursive=True)

    def remove(self, key: str) -> None:
        with self._cond:
            target = self._targets.pop(key, None)
        if target is not None and target.watch is not None:
            self._observer.unschedule(target.watch)

    @property
    def keys(self) -> list[str]:
        with self._cond:
            return list(self._targets)

    def start(self) -> None:
        for name in ("watchdog.observers.inotify", "watchdog.observers.inotify_c"):
            logging.getLogger(name).addHandler(self._overflow_handler)
        threading.excepthook = self._excepthook
        self._observer.daemon = True
        self._observer.start()
        self._worker = threading.Thread(target=self._run, name="aimate-watch", daemon=True)
        self._worker.start()

    def stop(self, timeout: float = 5.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        for name in ("watchdog.observers.inotify", "watchdog.observers.inotify_c"):
            logging.getLogger(name).removeHandler(self._overflow_handler)
        if threading.excepthook == self._excepthook:
            threading.excepthook = self._previous_excepthook
        try:
            self._observer.stop()
            self._observer.join(timeout)
        except RuntimeError:
            pass  # never started
        if self._worker is not None:
            self._worker.join(timeout)

    def __enter__(self) -> Watcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- events --------------------------------------------------------------------------------

    def touch(self, key: str, rel_path: str) -> None:
        """Record a change to `rel_path`; its deadline moves to now + debounce."""
        with self._cond:
            target = self._targets.get(key)
            if target is None:
                return
            target.deadlines[rel_path] = time.monotonic() + self.debounce
            self._cond.notify_all()

    def request_full_refresh(self, key: str | None = None) -> None:
        with self._cond:
            for target in self._targets.values():
                if key is None or target.key == key:
                    target.full = True
            self._cond.notify_all()

    def pending(self) -> int:
        """Paths waiting for their debounce (the daemon's `queue` in status)."""
        with self._cond:
            return sum(len(t.deadlines) + int(t.full) for t in self._targets.values())

    def has_pending(self, key: str) -> bool:
        with self._cond:
            target = self._targets.get(key)
            return target is not None and (bool(target.deadlines) or target.full)

    def barrier(self, key: str, timeout: float = BARRIER_TIMEOUT) -> bool:
        """Wait until every event that happened in vault `key` before this call has been recorded (so
        `take` returns it): a file written by hand a moment ago is seen by the read that follows. How: a
        file created and removed at once in the vault's root, whose own event arrives behind every earlier
        one (one inotify queue per watch, read in order). False when it cannot be written (a read-only
        vault) or its event did not come within `timeout`: the caller then syncs the whole vault. An
        unpaired move out of the vault is held back 0.5 s by watchdog and may arrive after it."""
        with self._cond:
            target = self._targets.get(key)
        if target is None:
            return False
        name = f"{BARRIER_PREFIX}{os.getpid()}-{threading.get_ident()}-{time.monotonic_ns()}.tmp"
        passed = self._barriers[name] = threading.Event()
        path = target.root / name
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            os.close(fd)
            os.unlink(path)
        except OSError:
            self._barriers.pop(name, None)
            return False
        try:
            return passed.wait(timeout)
        finally:
            self._barriers.pop(name, None)

    def passed(self, name: str) -> None:
        """A barrier's file was seen: the events before it have all been recorded."""
        passed = self._barriers.get(name)
        if passed is not None:
            passed.set()

    def take(self, key: str) -> tuple[set[str], bool]:
        """Everything pending for `key`, due or not (a search that must see the latest writes)."""
        with self._cond:
            target = self._targets.get(key)
            if target is None:
                return set(), False
            paths, full = set(target.deadlines), target.full
            target.deadlines.clear()
            target.full = False
            return paths, full

    # -- worker --------------------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._cond:
                batch = self._due()
                while not batch and not self._stopping and not self._observer_failed:
                    self._cond.wait(self._wait_time())
                    batch = self._due()
                if self._stopping:
                    return
                failed, self._observer_failed = self._observer_failed, False
            if failed:
                self._restart_observer()
                continue
            for key, (paths, full) in batch.items():
                try:
                    self.on_dirty(key, paths, full)
                except Exception as exc:  # keep watching; the next event (or restart) syncs again
                    log.exception("sync after changes in %s failed", key)
                    self.errors.append(f"{key}: {type(exc).__name__}: {exc}")
                    del self.errors[:-20]

    def _due(self) -> dict[str, tuple[set[str], bool]]:
        now = time.monotonic()
        batch: dict[str, tuple[set[str], bool]] = {}
        for target in self._targets.values():
            if target.full:  # events were lost: sync the whole vault now, with whatever is pending
                batch[target.key] = (set(target.deadlines), True)
                target.deadlines.clear()
                target.full = False
                continue
            due = {path for path, deadline in target.deadlines.items() if deadline <= now}
            if due:
                for path in due:
                    del target.deadlines[path]
                batch[target.key] = (due, False)
        return batch

    def _wait_time(self) -> float | None:
        """None (sleep until notified) when nothing is pending: idle costs no CPU."""
        deadlines = [d for t in self._targets.values() for d in t.deadlines.values()]
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - time.monotonic())

    def _excepthook(self, args: threading.ExceptHookArgs) -> None:
        """An exception that kills a watchdog thread (observer or emitter) → restart + full sync."""
        self._previous_excepthook(args)
        module = type(args.thread).__module__ if args.thread is not None else ""
        if module.startswith("watchdog") and not self._stopping:
            log.error("the file watcher failed (%s); restarting it and syncing everything", args.exc_value)
            with self._cond:
                self.errors.append(f"watcher failed: {args.exc_type.__name__}: {args.exc_value}")
                self._observer_failed = True
                self._cond.notify_all()

    def _restart_observer(self) -> None:
        with contextlib.suppress(Exception):
            self._observer.stop()
        with self._cond:
            targets = list(self._targets.values())
        self._observer = Observer()
        for target in targets:
            target.watch = self._observer.schedule(
                _Handler(self, target.key, target.root), str(target.root), recursive=True
            )
        self._observer.daemon = True
        self._observer.start()
        self.request_full_refresh()
