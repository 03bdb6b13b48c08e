"""Sync that runs itself: two homes, a bare remote and a daemon on each; a memory added on one is found by a
search on the other within seconds, nobody running `sync` (docs/agents.md, "Sync that runs itself"). And a
failed sync is recorded, shown by `sync --status` and at the next session start."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import make_runner
from tests.watch.test_daemon_process import wait_for

pytestmark = pytest.mark.slow

TITLE_ZH = "选用 Redis 做会话缓存"
TITLE_EN = "Deploys go out on Tuesdays"


@pytest.fixture
def homes(tmp_path: Path, workdir: Path, isolated_git: None) -> Iterator[Callable[[str], Callable[..., object]]]:
    """`homes(name)`: a CLI runner on its own AIMATE_HOME (keyword-only); every daemon is stopped after."""
    made = []

    def make(name: str):
        runner = make_runner(tmp_path / name, workdir, vectors=False)
        made.append(runner)
        return runner

    yield make
    for runner in made:
        runner("mem", "daemon", "stop")


def found(cli, query: str, title: str) -> bool:
    result = cli("mem", "search", query, "--json")
    return result.code == 0 and any(hit["title"] == title for hit in json.loads(result.out))


def test_a_change_on_one_home_reaches_the_other_without_anyone_syncing(tmp_path: Path, homes) -> None:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    a, b = homes("home-a"), homes("home-b")
    for cli in (a, b):
        for key, value in (("git.remote", str(remote)), ("sync.poll", "0.2"), ("sync.debounce", "0.1")):
            assert cli("mem", "config", "set", key, value).code == 0
    assert a("mem", "init").code == 0
    assert a("mem", "sync").code == 0
    assert b("mem", "sync").code == 0  # clones A's vault
    for cli in (a, b):
        assert cli("mem", "daemon", "start").code == 0

    assert a("mem", "add", TITLE_ZH, "--body", "延迟低，支持过期时间。", "--category", "decision").code == 0
    waited = wait_for(lambda: found(b, "会话缓存", TITLE_ZH), timeout=60)
    assert b("mem", "add", TITLE_EN, "--body", "Never on Fridays.", "--category", "decision").code == 0
    back = wait_for(lambda: found(a, "deploys Tuesdays", TITLE_EN), timeout=60)
    print(f"\nA → B: {waited:.1f} s; B → A: {back:.1f} s (poll 0.2 s, debounce 0.1 s)")

    status = json.loads(a("mem", "sync", "--status", "--json").out)
    assert status["last"]["ok"] and status["last"]["by"] == "daemon"
    assert status["state"]["ahead"] == 0 and status["state"]["left_out"] == []
    shown = a("mem", "sync", "--status")
    assert "last sync:" in shown.out and "by daemon" in shown.out and "0 commit(s) to send" in shown.out


def test_a_failed_sync_is_recorded_and_shown_at_the_next_session_start(tmp_path: Path, homes) -> None:
    cli = homes("home")
    assert cli("mem", "init").code == 0
    missing = tmp_path / "no-such-remote.git"
    assert cli("mem", "config", "set", "git.remote", str(missing)).code == 0
    assert cli("mem", "sync").code != 0
    status = json.loads(cli("mem", "sync", "--status", "--json").out)
    assert status["last"]["ok"] is False and status["last"]["by"] == "cli" and status["last"]["error"]
    assert "failed" in cli("mem", "sync", "--status").out
    started = cli("mem", "hook", "session-start", input=json.dumps({"session_id": "s1", "cwd": str(tmp_path)}))
    message = json.loads(started.out)["systemMessage"]
    assert "sync of your memory with git.remote failed" in message

    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(missing)], check=True)
    assert cli("mem", "sync").code == 0  # fixed: the next session start says nothing of it
    started = cli("mem", "hook", "session-start", input=json.dumps({"session_id": "s2", "cwd": str(tmp_path)}))
    assert "sync of your memory" not in started.out
    assert (tmp_path / "home" / "state" / "sync.json").stat().st_mode & 0o777 == 0o600
