"""The server's warm-up (vaults, index, model) is skipped when a daemon runs: searches go to the daemon, and
inside Claude Code the warm-up ran exactly while the client's hooks did, taking the CPU from them on a 2-core
machine (docs/agents.md, "Inside the real assistants")."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from aimate_memory.watch.paths import DaemonPaths
from tests.mcp.conftest import server_env
from tests.mcp.measure_startup import INITIALIZE, RawClient

SKIPPED = "warm-up skipped: a daemon answers searches"


@contextmanager
def daemon_lock(home: Path) -> Iterator[None]:
    """What `watch.process.running_pid` reads as a running daemon: its lock held, its pid written."""
    paths = DaemonPaths.of(home)
    paths.lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    paths.pid.write_text(str(os.getpid()))
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        paths.pid.unlink()


def warm_up_log(home: Path, workdir: Path, no_daemon: str) -> str:
    """mcp.log once the warm-up was done or skipped, after a client listed the tools (the front answers the
    list; the SDK, once imported, replays it and queues the warm-up 50 ms later)."""
    log = home / "state" / "mcp.log"
    before = len(log.read_text(encoding="utf-8")) if log.exists() else 0
    client = RawClient({**server_env(home), "AIMATE_NO_DAEMON": no_daemon}, workdir)
    client.request("initialize", INITIALIZE)
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    client.request("tools/list")
    written = ""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and SKIPPED not in written and "warm-up done" not in written:
        time.sleep(0.1)
        written = log.read_text(encoding="utf-8")[before:] if log.exists() else ""
    client.close()
    return written


@pytest.mark.parametrize(
    ("locked", "no_daemon", "skipped"), [(True, "0", True), (False, "0", False), (True, "1", False)]
)
def test_warm_up_is_skipped_only_when_a_daemon_runs(
    seeded: tuple[Path, Path], locked: bool, no_daemon: str, skipped: bool
) -> None:
    home, workdir = seeded
    if locked:
        with daemon_lock(home):
            log = warm_up_log(home, workdir, no_daemon)
    else:
        log = warm_up_log(home, workdir, no_daemon)
    assert "mcp server starting" in log
    assert (SKIPPED in log) is skipped
