"""The MCP server's writes and context through a running daemon (issue 38: the daemon answers every read and
write a face makes): `memory_remember` and `memory_context` become the daemon's tasks — the real daemon, the
real server over stdio, the SDK's client; the daemon's own record of its tasks (`status`) says who answered."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from aimate_memory.watch.transport import daemon_request
from tests.mcp.test_server import error_text
from tests.watch.test_daemon_process import daemon  # noqa: F401  (the fixture)


def _tasks_since(home: Path, started: float) -> list[str]:
    """The faces' requests the daemon finished since `started`. A remember's git commit and what it leaves for the
    next request follow its answer as the daemon's own `commit` and `after answer` tasks (docs/design.md §12),
    finishing whenever a loaded machine lets them: not a face's."""
    status = daemon_request(home, {"op": "status"}, 10)
    assert status is not None, "the daemon did not answer"
    own = ("commit", "after answer")
    return [task["name"] for task in status["recent_tasks"] if task["finished"] >= started and task["name"] not in own]


@pytest.mark.slow
def test_remember_and_context_are_the_daemons_work_in_both_languages(daemon, spawn, home: Path) -> None:  # noqa: F811
    daemon()
    server = spawn(env={"AIMATE_NO_DAEMON": "0"})
    for text in ("We decided to deploy with Helm charts", "我们决定用 Redis 做会话缓存"):
        started = time.time()
        written = server.ok("memory_remember", text=text)
        assert written["action"] == "written", written
        assert "remember" in _tasks_since(home, started)
    started = time.time()
    server.ok("memory_context", query="Redis 会话缓存")
    assert _tasks_since(home, started) == ["context"]
    # A pasted document is refused as a rule by the daemon too, its hint kept across the socket.
    started = time.time()
    refused = error_text(server.call("memory_remember", text="合并前一律先变基。" * 250, kind="rule"))
    assert "over capture.max_chars (2,000)" in refused and "--file" in refused, refused
    assert _tasks_since(home, started) == ["remember"]
