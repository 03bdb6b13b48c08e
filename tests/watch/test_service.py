"""Keeping the daemon warm: `daemon install|uninstall` (a user service) and `daemon.autostart`."""

from __future__ import annotations

import contextlib
import os
import plistlib
import shlex
import signal
import sys
import time
from pathlib import Path

import pytest

from aimate_memory.watch.process import daemon_command, running_pid
from aimate_memory.watch.service import service_plan

HOME = Path("/home/李 雷")  # a space and Chinese in the path: quoted, not split
AIMATE_HOME = Path("/home/李 雷/.aimate 100%")


def test_the_systemd_unit_runs_the_daemon_in_the_foreground_and_restarts_it() -> None:
    plan = service_plan("linux", HOME, ["/opt/py thon/bin/python", "-m", "aimate_memory.watch.daemon"], AIMATE_HOME)
    assert plan.manager == "systemd" and plan.path == HOME / ".config/systemd/user/aimate-memory.service"
    lines = dict(line.split("=", 1) for line in plan.text.splitlines() if "=" in line)
    # systemd splits ExecStart like a shell and expands %: quoted, and % doubled
    assert shlex.split(lines["ExecStart"]) == ["/opt/py thon/bin/python", "-m", "aimate_memory.watch.daemon"]
    assert shlex.split(lines["Environment"]) == ["AIMATE_HOME=/home/李 雷/.aimate 100%%"]
    assert lines["Restart"] == "on-failure" and lines["RestartPreventExitStatus"] == "3"
    assert lines["WantedBy"] == "default.target"
    assert ["systemctl", "--user", "enable", "--now", "aimate-memory.service"] in plan.start


def test_the_launchd_plist_is_valid_and_keeps_the_daemon_alive() -> None:
    plan = service_plan("darwin", HOME, ["/usr/bin/python3", "-m", "aimate_memory.watch.daemon"], AIMATE_HOME)
    assert plan.path == HOME / "Library/LaunchAgents/dev.aimate.memory.plist"
    plist = plistlib.loads(plan.text.encode("utf-8"))
    assert plist["ProgramArguments"] == ["/usr/bin/python3", "-m", "aimate_memory.watch.daemon"]
    assert plist["EnvironmentVariables"] == {"AIMATE_HOME": str(AIMATE_HOME)}
    assert plist["RunAtLoad"] is True and plist["KeepAlive"] == {"SuccessfulExit": False}
    assert plan.start == [["launchctl", "load", "-w", str(plan.path)]]


def test_an_unknown_platform_is_refused() -> None:
    with pytest.raises(ValueError, match="win32"):
        service_plan("win32", HOME, ["python"], AIMATE_HOME)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the systemd unit is written on Linux")
def test_install_writes_the_unit_and_uninstall_removes_it(cli, home: Path, tmp_path: Path) -> None:
    user_home = tmp_path / "user"
    unit = user_home / ".config/systemd/user/aimate-memory.service"
    env = {"HOME": str(user_home)}
    shown = cli("mem", "daemon", "install", "--dry-run", env=env)
    assert shown.code == 0 and "ExecStart=" in shown.out and "systemctl --user enable --now" in shown.out
    assert not unit.exists()  # a dry run changes nothing

    written = cli("mem", "daemon", "install", "--no-start", env=env)
    assert written.code == 0, written.err
    assert f"--home {home}" in unit.read_text(encoding="utf-8")
    started = shlex.split(unit.read_text(encoding="utf-8").split("ExecStart=")[1].splitlines()[0])
    wanted = daemon_command(home)
    # The same interpreter of the same environment, by whichever name (`python` runs pytest, the `aimate`
    # script's shebang says `python3`), and the same arguments.
    assert Path(started[0]).parent == Path(wanted[0]).parent and Path(started[0]).samefile(wanted[0]), started
    assert started[1:] == wanted[1:]

    removed = cli("mem", "daemon", "uninstall", env={**env, "PATH": str(Path(sys.executable).parent)})
    assert not unit.exists()
    # no systemctl on this PATH: the file is gone all the same, and the error says what to run
    assert removed.code == 1 and "systemctl --user disable --now aimate-memory.service" in removed.err
    assert cli("mem", "daemon", "uninstall", env=env).out.startswith("no service installed")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the systemd unit is written on Linux")
def test_install_without_a_reachable_service_manager_keeps_the_file_and_says_how(cli, tmp_path: Path) -> None:
    user_home = tmp_path / "user"
    result = cli("mem", "daemon", "install", env={"HOME": str(user_home), "PATH": str(Path(sys.executable).parent)})
    assert result.code == 1
    assert "error: the service manager failed: systemctl --user daemon-reload" in result.err
    assert "hint: run it yourself: systemctl --user daemon-reload; systemctl --user enable --now" in result.err
    assert "Traceback" not in result.err
    assert (user_home / ".config/systemd/user/aimate-memory.service").exists()


def _wait_for_daemon(home: Path, seconds: float) -> int | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pid = running_pid(home)
        if pid is not None and pid > 0:
            return pid
        time.sleep(0.1)
    return None


@pytest.mark.slow
def test_autostart_starts_the_daemon_once_a_command_finds_none(cli, initialized, home: Path) -> None:
    assert cli("mem", "add", "选用 Redis 做会话缓存", "--body", "Redis for the session cache.").code == 0
    off = cli("mem", "search", "Redis", env={"AIMATE_NO_DAEMON": "0"})
    assert off.code == 0 and "Redis" in off.out
    assert _wait_for_daemon(home, 2.0) is None  # autostart is off by default

    assert cli("mem", "config", "set", "daemon.autostart", "true").code == 0
    first = cli("mem", "search", "会话缓存", env={"AIMATE_NO_DAEMON": "0"})
    assert first.code == 0 and "Redis" in first.out  # answered in-process, the daemon starting meanwhile
    pid = _wait_for_daemon(home, 20.0)
    try:
        assert pid is not None, (home / "state/daemon.log").read_text(encoding="utf-8", errors="replace")
        assert cli("mem", "search", "session cache", env={"AIMATE_NO_DAEMON": "0"}).code == 0
        assert running_pid(home) == pid  # one daemon: the later command asked it, it did not start another
    finally:
        cli("mem", "daemon", "stop")
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
