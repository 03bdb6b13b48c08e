"""Real inotify events through the watcher into the index: what editors do, and what must be ignored."""

from __future__ import annotations

import os
import queue
import time
from pathlib import Path

import pytest

from aimate_memory.system import MemorySystem
from aimate_memory.watch.watcher import Watcher, is_ignored, is_relevant


@pytest.fixture
def live(home: Path, monkeypatch: pytest.MonkeyPatch):
    """A global vault, its index, and a watcher whose syncs run on this (the test's) thread."""
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    system = MemorySystem.open(global_only=True)
    system.init()
    vault = system.global_vault
    index = system.store.index_for(vault)
    index.refresh()
    calls: queue.Queue = queue.Queue()
    watcher = Watcher(lambda key, paths, full: calls.put((key, paths, full)), debounce=0.15)
    watcher.add("global", vault.root)
    watcher.start()

    def settle(timeout: float = 3.0) -> set[str]:
        """Wait for the next debounced batch, sync, return its paths."""
        key, paths, _full = calls.get(timeout=timeout)
        assert key == "global"
        index.refresh()
        return paths

    def titles() -> dict[str, str]:
        return dict(index.conn.execute("SELECT path, title FROM memories").fetchall())

    yield vault.root, settle, titles, calls
    watcher.stop()
    system.close()


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_plain_write_atomic_save_vim_save_rename_delete(live) -> None:
    root, settle, titles, _calls = live
    note = root / "long_term/knowledge/hand.md"
    write(note, "# 手写笔记 first\n\nbody\n")
    assert "long_term/knowledge/hand.md" in settle()
    assert titles()["long_term/knowledge/hand.md"] == "手写笔记 first"

    # Atomic save: write a temp file, rename over the target; no event on the target itself.
    tmp = note.with_name(".hand.md.tmp")
    write(tmp, "# Atomic save 原子保存\n")
    os.replace(tmp, note)
    settle()
    assert titles()["long_term/knowledge/hand.md"] == "Atomic save 原子保存"

    # vim: file → file~, write a new file, remove the backup; a swap file appears too.
    backup = note.with_name("hand.md~")
    os.rename(note, backup)
    write(note.with_name(".hand.md.swp"), "swap")
    write(note, "# Vim save 维姆\n")
    os.unlink(backup)
    settle()
    assert titles()["long_term/knowledge/hand.md"] == "Vim save 维姆"

    # Folder rename: one event per child, handled through dest_path.
    os.rename(root / "long_term/knowledge", root / "long_term/知识")
    settle()
    assert titles() == {**{p: t for p, t in titles().items() if "knowledge" not in p}}
    assert titles()["long_term/知识/hand.md"] == "Vim save 维姆"

    # Delete.
    os.unlink(root / "long_term/知识/hand.md")
    settle()
    assert "long_term/知识/hand.md" not in titles()


def test_moves_into_and_out_of_the_tree(live, tmp_path: Path) -> None:
    root, settle, titles, _calls = live
    outside = tmp_path / "outside"
    write(outside / "moved-in.md", "# Moved in 移入\n")
    os.rename(outside, root / "long_term/imported")
    settle()
    assert titles()["long_term/imported/moved-in.md"] == "Moved in 移入"
    os.rename(root / "long_term/imported", tmp_path / "gone")
    deadline = time.monotonic() + 3
    while "long_term/imported/moved-in.md" in titles() and time.monotonic() < deadline:
        settle()
    assert "long_term/imported/moved-in.md" not in titles()


def test_ignored_files_cause_no_sync(live) -> None:
    root, _settle, _titles, calls = live
    for name in (".note.md.swp", "note.md~", ".#note.md", "x.tmp", "4913", "image.png"):
        write(root / "short_term/notes" / name, "x")
    write(root / ".git/objects/zz", "x")  # not hex: never one of git's own object folders
    time.sleep(0.5)
    assert list(calls.queue) == []


def test_burst_of_writes_is_debounced_into_one_batch(live) -> None:
    root, settle, titles, _calls = live
    for i in range(20):
        write(root / f"short_term/notes/n{i}.md", f"# 笔记 {i}\n")
    expected = {f"short_term/notes/n{i}.md" for i in range(20)}
    paths = settle()
    deadline = time.monotonic() + 10
    while not expected <= paths and time.monotonic() < deadline:
        paths |= settle()  # on a loaded machine the burst can arrive in more than one batch
    assert expected <= paths
    assert len([p for p in titles() if p.startswith("short_term/notes/")]) == 20


def test_overflow_or_observer_failure_requests_full_sync(live) -> None:
    _root, _settle, _titles, calls = live
    import logging

    logging.getLogger("watchdog.observers.inotify_c").warning("Inotify queue overflowed; filesystem events were lost")
    key, _paths, full = calls.get(timeout=2)
    assert full and key == "global"


@pytest.mark.parametrize(
    ("path", "ignored"),
    [
        ("long_term/a.md", False),
        (".git/HEAD", True),
        ("state/access.jsonl", True),
        ("index.db-wal", True),
        ("long_term/.a.md.swp", True),
        ("long_term/a.md~", True),
        ("long_term/.#a.md", True),
        ("long_term/4913", True),
        ("long_term/a.md.tmp", True),
    ],
)
def test_ignore_rules(path: str, ignored: bool) -> None:
    assert is_ignored(path) is ignored
    assert is_relevant(path, False) is (not ignored)


def test_watch_command_indexes_edits_and_stops_on_sigterm(cli, home: Path, workdir: Path) -> None:
    """`aimate mem watch` is the daemon in the foreground (its loop, not a copy of it), its log on stdout;
    a second one finds it running and says so."""
    import signal
    import subprocess
    import sys

    assert cli("mem", "init").code == 0
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_EMBEDDING__ENABLED": "false"}
    aimate = Path(sys.executable).with_name("aimate")
    proc = subprocess.Popen(
        [str(aimate), "mem", "watch"], cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert proc.stdout is not None
        said = [proc.stdout.readline() for _ in range(3)]
        assert any("initial sync of global" in line for line in said), said
        (home / "memory/long_term/knowledge/w.md").write_text("# 前台监视 foreground watch\n", encoding="utf-8")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            found = cli("mem", "search", "前台监视", "--no-refresh", "--json")
            if found.code == 0 and found.json():
                break
            time.sleep(0.1)
        assert [hit["path"] for hit in found.json()] == ["long_term/knowledge/w.md"]
        second = cli("mem", "watch")
        assert second.code == 1 and "the daemon is already running" in second.err, second
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
