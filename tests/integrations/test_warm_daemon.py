"""A warm daemon with `aimate mem install`: chosen by what the machine offers, set up once for every
assistant installed, taken away with the last one, and opted out of in one word. The CLI runs as a
subprocess with a temp HOME and AIMATE_HOME; the daemon is a real one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aimate_memory.integrations.warm_daemon import AUTOSTART, SERVICE, choose_mechanism, manager_answers
from aimate_memory.watch.private_socket import socket_path
from aimate_memory.watch.process import running_pid

REDIS = ("选用 Redis 做会话缓存", "我们决定用 Redis 缓存会话：延迟低，支持过期。")
DEPLOY = ("Deploy on Fridays", "Deploys go out on Friday mornings after the freeze.")


def test_the_mechanism_is_a_user_service_where_its_manager_answers_else_autostart() -> None:
    assert choose_mechanism("linux", manager_answers=True) == SERVICE
    assert choose_mechanism("darwin", manager_answers=True) == SERVICE
    assert choose_mechanism("linux", manager_answers=False) == AUTOSTART  # a container, CI: no user bus
    assert choose_mechanism("win32", manager_answers=True) == AUTOSTART  # no user service known there


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    path = tmp_path / "user-home"
    path.mkdir()
    return path


@pytest.fixture
def run(cli, initialized: Path, home: Path, user_home: Path, tmp_path: Path):
    """`aimate ARGS` with a temp HOME, the daemon allowed (no AIMATE_NO_DAEMON), on the copied `initialized`
    home (these tests are about `install`, not `init`: each ran one, ~1.2 s of its setup); stops any daemon
    after."""
    env = {"HOME": str(user_home), "CODEX_HOME": "", "KIMI_CODE_HOME": "", "AIMATE_NO_DAEMON": ""}
    outside = tmp_path / "outside"
    outside.mkdir()

    def invoke(*args: str, input: str | None = None):
        return cli(*args, cwd=outside, input=input, env=env)

    yield invoke
    invoke("mem", "daemon", "stop")


def wait_for(condition, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return False


def test_no_daemon_and_the_config_key_opt_out(run, home: Path) -> None:
    no_daemon = run("mem", "install", "claude", "--user", "--no-daemon")
    assert no_daemon.code == 0 and "warm daemon: not set up (--no-daemon)" in no_daemon.out
    assert run("mem", "config", "set", "daemon.with_assistants", "false").code == 0
    by_config = run("mem", "install", "codex", "--user")
    assert by_config.code == 0 and "not set up (daemon.with_assistants is false)" in by_config.out
    assert running_pid(home) is None and not (home / "state" / "assistants_daemon.json").exists()
    assert "autostart" not in (home / "config.yaml").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.skipif(
    manager_answers(sys.platform), reason="a user service manager answers here: the test would install a real service"
)
def test_install_sets_up_autostart_once_hooks_start_the_daemon_and_the_last_uninstall_takes_it_away(
    run, home: Path, user_home: Path
) -> None:
    # The vault's own config (a daemon started by a hook gets no test environment): keyword search, no model.
    assert run("mem", "config", "set", "embedding.enabled", "false").code == 0
    for title, body in (REDIS, DEPLOY):
        assert run("mem", "add", title, "--body", body).code == 0
    installed = run("mem", "install", "claude", "--user")
    assert installed.code == 0
    assert (
        "warm daemon: autostart (`daemon.autostart: true`" in installed.out
        and "opt out: `--no-daemon`" in installed.out
    )
    assert run("mem", "config", "get", "daemon.autostart").out.strip() in ("true", "True")
    assert wait_for(lambda: (running_pid(home) or 0) > 0), "install starts the daemon at once"
    record = json.loads((home / "state" / "assistants_daemon.json").read_text(encoding="utf-8"))
    assert record["mechanism"] == "autostart" and record["installs"] == ["claude"]

    again = run("mem", "install", "codex", "--user")
    assert again.code == 0 and "warm daemon: set up already" in again.out

    # The daemon dies (a reboot, a kill): the next hook answers cold and starts one for the next.
    assert run("mem", "daemon", "stop").code == 0 and running_pid(home) is None
    settings = json.loads((user_home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    payload = {"session_id": "s1", "cwd": str(user_home), "hook_event_name": "UserPromptSubmit", "prompt": "会话缓存"}
    env = {"HOME": str(user_home), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    cold = subprocess.run(["sh", "-c", command], input=json.dumps(payload), env=env, capture_output=True, text=True)
    assert cold.returncode == 0 and REDIS[0] in json.loads(cold.stdout)["hookSpecificOutput"]["additionalContext"]
    assert wait_for(lambda: (running_pid(home) or 0) > 0), "the hook started a daemon"
    english = {**payload, "prompt": "when do we deploy"}
    warm = subprocess.run(["sh", "-c", command], input=json.dumps(english), env=env, capture_output=True, text=True)
    assert warm.returncode == 0 and DEPLOY[0] in warm.stdout

    kept = run("mem", "uninstall", "claude", "--user")
    assert kept.code == 0 and "warm daemon kept: still set up for codex" in kept.out
    assert (running_pid(home) or 0) > 0
    gone = run("mem", "uninstall", "codex", "--user")
    assert gone.code == 0 and "warm daemon taken away: `daemon.autostart` removed" in gone.out
    assert running_pid(home) is None and not (home / "state" / "assistants_daemon.json").exists()
    config = home / "config.yaml"
    assert not config.exists() or "autostart" not in config.read_text(encoding="utf-8")


def test_a_persons_own_autostart_is_theirs(run, home: Path) -> None:
    assert run("mem", "config", "set", "daemon.autostart", "true").code == 0
    installed = run("mem", "install", "kimi", "--user")
    assert installed.code == 0 and "your `daemon.autostart` starts it" in installed.out
    assert not (home / "state" / "assistants_daemon.json").exists()
    assert run("mem", "uninstall", "kimi", "--user").code == 0
    assert run("mem", "config", "get", "daemon.autostart").out.strip() in ("true", "True")


FAKE_SYSTEMCTL = """#!/bin/sh
# systemd's user manager as seen from a desktop session: answers, and enables units unless told to fail.
echo "$*" >> "$SYSTEMCTL_LOG"
case "$*" in
  *enable*) [ -n "$SYSTEMCTL_FAIL_ENABLE" ] && { echo "Failed to enable unit: access denied" >&2; exit 1; } ;;
esac
exit 0
"""


@pytest.fixture
def systemctl(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A `systemctl` on PATH standing in for a user manager this machine lacks (the service branch is the
    default on a desktop); the calls it got are in the log."""
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    script = folder / "systemctl"
    script.write_text(FAKE_SYSTEMCTL, encoding="utf-8")
    script.chmod(0o755)
    log = tmp_path / "systemctl.log"
    env = {"PATH": f"{folder}:{Path(sys.executable).parent}:/usr/bin:/bin", "SYSTEMCTL_LOG": str(log)}
    return env, log


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the systemd branch")
def test_a_user_service_where_the_manager_answers_and_its_removal_with_the_last_uninstall(
    cli, home: Path, user_home: Path, systemctl: tuple[dict[str, str], Path], tmp_path: Path
) -> None:
    env, log = systemctl
    env = {**env, "HOME": str(user_home), "CODEX_HOME": "", "AIMATE_NO_DAEMON": ""}
    assert cli("mem", "init", cwd=tmp_path, env=env).code == 0
    installed = cli("mem", "install", "codex", "--user", cwd=tmp_path, env=env)
    unit = user_home / ".config" / "systemd" / "user" / "aimate-memory.service"
    assert installed.code == 0 and f"warm daemon: user service {unit}, started" in installed.out
    assert f"--home {home}" in unit.read_text(encoding="utf-8")
    assert "--user enable --now aimate-memory.service" in log.read_text(encoding="utf-8")
    assert json.loads((home / "state" / "assistants_daemon.json").read_text(encoding="utf-8"))["mechanism"] == "service"

    removed = cli("mem", "uninstall", "codex", "--user", cwd=tmp_path, env=env)
    assert removed.code == 0 and "user service" in removed.out and "stopped and removed" in removed.out
    assert not unit.exists() and "--user disable --now aimate-memory.service" in log.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the systemd branch")
def test_a_manager_that_will_not_start_the_unit_leaves_no_unit_and_autostart_instead(
    cli, home: Path, user_home: Path, systemctl: tuple[dict[str, str], Path], tmp_path: Path
) -> None:
    env, _log = systemctl
    env = {**env, "HOME": str(user_home), "CODEX_HOME": "", "AIMATE_NO_DAEMON": "", "SYSTEMCTL_FAIL_ENABLE": "1"}
    assert cli("mem", "init", cwd=tmp_path, env=env).code == 0
    try:
        installed = cli("mem", "install", "codex", "--user", cwd=tmp_path, env=env)
        assert installed.code == 0 and "warm daemon: autostart" in installed.out
        assert not (user_home / ".config" / "systemd" / "user" / "aimate-memory.service").exists()
        assert wait_for(lambda: (running_pid(home) or 0) > 0)
        assert cli("mem", "uninstall", "codex", "--user", cwd=tmp_path, env=env).code == 0
        assert running_pid(home) is None
    finally:
        cli("mem", "daemon", "stop", cwd=tmp_path, env=env)


@pytest.mark.slow
@pytest.mark.skipif(
    manager_answers(sys.platform), reason="a user service manager answers here: the test would install a real service"
)
def test_a_killed_daemon_is_started_again_by_the_next_hook_despite_its_stale_socket(
    run, home: Path, user_home: Path
) -> None:
    """Before: a SIGKILLed daemon left `state/daemon.sock`; hooks found the file, got no answer, and never
    started another — every hook stayed cold until someone ran `daemon start`."""
    assert run("mem", "config", "set", "embedding.enabled", "false").code == 0
    assert run("mem", "add", REDIS[0], "--body", REDIS[1]).code == 0
    assert run("mem", "install", "claude", "--user").code == 0
    assert wait_for(lambda: (running_pid(home) or 0) > 0 and socket_path(home).exists())  # listening
    killed = running_pid(home)
    assert killed is not None and killed > 0
    os.kill(killed, signal.SIGKILL)
    assert wait_for(lambda: running_pid(home) is None) and socket_path(home).exists()  # left behind

    settings = json.loads((user_home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    payload = {"session_id": "s2", "cwd": str(user_home), "hook_event_name": "UserPromptSubmit", "prompt": "会话缓存"}
    env = {"HOME": str(user_home), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    answered = subprocess.run(["sh", "-c", command], input=json.dumps(payload), env=env, capture_output=True, text=True)
    assert answered.returncode == 0 and REDIS[0] in answered.stdout  # cold, this once
    assert wait_for(lambda: (running_pid(home) or 0) > 0 and running_pid(home) != killed), "started again"
