"""A warm daemon with the install: `aimate mem install ASSISTANT` sets one up, `uninstall` takes it away again
once no assistant installed for this vault is left (docs/agents.md, "A warm daemon with the install").

Which way is decided once, by what the machine offers (`choose_mechanism`, pure):
- a **user service** (systemd --user on Linux, launchd on macOS: watch/service.py), when its manager
  answers — from login on, restarted when it dies;
- else **autostart** (`daemon.autostart: true` in the global config): containers, CI and machines without
  a user session bus have no service manager to ask, so the first hook that finds no daemon starts one in
  the background (watch/client.daemon_call → watch/process.autostart) and answers cold this once. The
  install starts one at once, so the first session is warm too.
Neither is set up when the person already has one (their own service file, their own `daemon.autostart`),
with `--no-daemon`, `daemon.with_assistants: false`, or `AIMATE_NO_DAEMON=1`; then nothing is recorded as
ours and uninstall leaves it all alone. What install set up is kept in `state/assistants_daemon.json`
(0600) with the installs that want it (`codex`, `claude:/path/to/project`, …)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from aimate_memory.config.loader import config_path, load_config, set_config_value, unset_config_value
from aimate_memory.vault.atomic import atomic_write_text
from aimate_memory.vault.roots import STATE_DIR
from aimate_memory.watch import service
from aimate_memory.watch.process import daemon_command, running_pid, spawn_daemon, stop_daemon

RECORD = "assistants_daemon.json"
SERVICE = "service"
AUTOSTART = "autostart"
OPT_OUT = "opt out: `--no-daemon`, or `aimate mem config set daemon.with_assistants false`"


@dataclass(frozen=True)
class DaemonSetup:
    """What install set up for the assistants, and for which installs."""

    mechanism: str  # SERVICE or AUTOSTART
    service_file: str | None = None  # the unit or plist install wrote
    config_created: bool = False  # install created config.yaml to set `daemon.autostart`
    installs: list[str] = field(default_factory=list)


def choose_mechanism(platform: str, manager_answers: bool) -> str:
    """A user service where the platform has one and its manager answers; autostart everywhere else."""
    has_service = platform == "darwin" or platform.startswith("linux")
    return SERVICE if has_service and manager_answers else AUTOSTART


def manager_answers(platform: str) -> bool:
    """systemd's user manager is reachable (not in a container or CI without a user session bus); launchd
    always is on macOS."""
    if platform == "darwin":
        return shutil.which("launchctl") is not None
    if shutil.which("systemctl") is None:
        return False
    try:
        done = subprocess.run(["systemctl", "--user", "show-environment"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def opted_out(home: Path, no_daemon: bool) -> str | None:
    """Why no daemon is set up now (None: one is)."""
    if no_daemon:
        return "--no-daemon"
    if os.environ.get("AIMATE_NO_DAEMON") == "1":
        return "AIMATE_NO_DAEMON=1"
    if not load_config(home, None).get("daemon.with_assistants"):
        return "daemon.with_assistants is false"
    return None


def set_up(home: Path, user_home: Path, install: str, *, no_daemon: bool = False, dry_run: bool = False) -> list[str]:
    """Make sure a warm daemon is there for `install`; the lines to print (the last one says how to opt out)."""
    reason = opted_out(home, no_daemon)
    if reason is not None:
        return [f"warm daemon: not set up ({reason}); hooks answer cold. `aimate mem daemon start` starts one."]
    record = load(home)
    if record is not None:
        if not dry_run:
            save(home, replace(record, installs=sorted({*record.installs, install})))
            _ensure_running(home, record)
        return [f"warm daemon: set up already ({_describe(record)}); {OPT_OUT}"]
    plan = _plan(home, user_home)
    if plan is not None and plan.path.exists():
        return [f"warm daemon: your {plan.manager} service runs it ({plan.path}); {OPT_OUT}"]
    if _autostart_on(home):
        return [f"warm daemon: your `daemon.autostart` starts it; {OPT_OUT}"]
    mechanism = choose_mechanism(sys.platform, plan is not None and manager_answers(sys.platform))
    if dry_run:
        how = f"a {plan.manager} user service ({plan.path})" if mechanism == SERVICE and plan else "autostart"
        return [f"warm daemon: would be set up: {how}; {OPT_OUT}"]
    if mechanism == SERVICE and plan is not None:
        stop_daemon(home)  # one started by hand: the service's takes over
        report = service.install(plan, start=True)
        if report.failed is None:
            record = DaemonSetup(SERVICE, str(plan.path), installs=[install])
            save(home, record)
            return [f"warm daemon: {_describe(record)}, started; {OPT_OUT}"]
        service.uninstall(plan)  # the manager would not start it: autostart instead
    created = not config_path(home).exists()
    set_config_value(config_path(home), "daemon.autostart", "true")
    record = DaemonSetup(AUTOSTART, config_created=created, installs=[install])
    save(home, record)
    _ensure_running(home, record)
    return [f"warm daemon: {_describe(record)}, started now; {OPT_OUT}"]


def tear_down(home: Path, user_home: Path, install: str, *, dry_run: bool = False) -> list[str]:
    """Undo `set_up` for `install`: what it set up goes once no other install wants it."""
    record = load(home)
    if record is None or install not in record.installs:
        return []
    others = [name for name in record.installs if name != install]
    if others:
        if not dry_run:
            save(home, replace(record, installs=others))
        return [f"warm daemon kept: still set up for {', '.join(others)}"]
    if dry_run:
        return [f"warm daemon: would be taken away ({_describe(record)})"]
    if record.mechanism == SERVICE and record.service_file:
        plan = _plan(home, user_home)
        if plan is not None and str(plan.path) == record.service_file:
            service.uninstall(plan)
    else:
        path = config_path(home)
        unset_config_value(path, "daemon.autostart")
        if record.config_created and path.exists() and not path.read_text(encoding="utf-8").strip():
            path.unlink()
        stop_daemon(home)
    with contextlib.suppress(FileNotFoundError):
        _record_path(home).unlink()
    if record.mechanism == SERVICE:
        return [f"warm daemon taken away: user service {record.service_file} stopped and removed"]
    return ["warm daemon taken away: `daemon.autostart` removed, the daemon stopped"]


def load(home: Path) -> DaemonSetup | None:
    try:
        data = json.loads(_record_path(home).read_text(encoding="utf-8"))
        return DaemonSetup(**data)
    except (OSError, ValueError, TypeError):
        return None


def save(home: Path, record: DaemonSetup) -> None:
    path = _record_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(asdict(record), indent=2) + "\n")
    os.chmod(path, 0o600)


def _record_path(home: Path) -> Path:
    return home / STATE_DIR / RECORD


def _plan(home: Path, user_home: Path) -> service.ServicePlan | None:
    try:
        return service.service_plan(sys.platform, user_home, daemon_command(home), home)
    except ValueError:  # no user service manager known for this platform
        return None


def _autostart_on(home: Path) -> bool:
    return bool(load_config(home, None).get("daemon.autostart"))


def _ensure_running(home: Path, record: DaemonSetup) -> None:
    if record.mechanism == AUTOSTART and running_pid(home) is None:
        spawn_daemon(home)


def _describe(record: DaemonSetup) -> str:
    if record.mechanism == SERVICE:
        return f"user service {record.service_file}"
    return "autostart (`daemon.autostart: true`: a hook that finds no daemon starts one)"
