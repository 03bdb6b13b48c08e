"""`aimate mem daemon install`: a user service that runs the daemon from login and restarts it if it dies
(systemd on Linux, launchd on macOS), so every hook, search and MCP start is answered warm
(docs/agents.md, "Keeping it warm"). What to write and run is a pure plan; writing it and running the
service manager happen at the edge (`install`, `uninstall`), which report what they did.
"""

from __future__ import annotations

import plistlib
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from aimate_memory.vault.roots import Roots
from aimate_memory.watch.process import ALREADY_RUNNING_EXIT

SYSTEMD_UNIT = "aimate-memory.service"
LAUNCHD_LABEL = "dev.aimate.memory"


@dataclass(frozen=True)
class ServicePlan:
    manager: str  # "systemd" or "launchd"
    path: Path  # the unit or plist file
    text: str  # its content
    start: list[list[str]] = field(default_factory=list)  # commands that enable and start it
    stop: list[list[str]] = field(default_factory=list)  # commands that stop and disable it


@dataclass
class ServiceReport:
    plan: ServicePlan
    written: bool = False
    removed: bool = False
    ran: list[str] = field(default_factory=list)
    failed: str | None = None  # the command that failed and why

    def to_dict(self) -> dict[str, object]:
        return {
            "manager": self.plan.manager,
            "path": str(self.plan.path),
            "written": self.written,
            "removed": self.removed,
            "ran": self.ran,
            "failed": self.failed,
        }


def service_plan(platform: str, user_home: Path, command: list[str], aimate_home: Path) -> ServicePlan:
    """The service that runs `command` (the daemon in the foreground) for this user."""
    if platform == "darwin":
        path = user_home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
        return ServicePlan(
            "launchd",
            path,
            launchd_plist(command, aimate_home),
            start=[["launchctl", "load", "-w", str(path)]],
            stop=[["launchctl", "unload", "-w", str(path)]],
        )
    if platform.startswith("linux"):
        path = user_home / ".config" / "systemd" / "user" / SYSTEMD_UNIT
        return ServicePlan(
            "systemd",
            path,
            systemd_unit(command, aimate_home),
            start=[["systemctl", "--user", "daemon-reload"], ["systemctl", "--user", "enable", "--now", SYSTEMD_UNIT]],
            stop=[["systemctl", "--user", "disable", "--now", SYSTEMD_UNIT]],
        )
    raise ValueError(f"no user service manager known for {platform}")


def systemd_unit(command: list[str], aimate_home: Path) -> str:
    # systemd expands `%` specifiers, so a literal one is `%%`; it splits ExecStart like a shell (quotes kept).
    exec_start = shlex.join(command).replace("%", "%%")
    environment = shlex.quote(f"AIMATE_HOME={aimate_home}").replace("%", "%%")
    return (
        "[Unit]\n"
        "Description=AIMate memory daemon (watching the vaults, maintenance, warm search)\n"
        "\n"
        "[Service]\n"
        "Type=simple\n"
        f"ExecStart={exec_start}\n"
        f"Environment={environment}\n"
        "Restart=on-failure\n"
        "RestartSec=5\n"
        # Another daemon already holds the instance lock (one started by hand): not a failure to retry.
        f"RestartPreventExitStatus={ALREADY_RUNNING_EXIT}\n"
        "\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def launchd_plist(command: list[str], aimate_home: Path) -> str:
    log = str(Roots.state_dir(aimate_home) / "daemon.launchd.log")
    plist = {
        "Label": LAUNCHD_LABEL,
        "ProgramArguments": command,
        "EnvironmentVariables": {"AIMATE_HOME": str(aimate_home)},
        "RunAtLoad": True,
        # Restart when it dies, not when it exits cleanly (`daemon stop`, or another one already running).
        "KeepAlive": {"SuccessfulExit": False},
        "StandardOutPath": log,
        "StandardErrorPath": log,
    }
    return plistlib.dumps(plist).decode("utf-8")


def install(plan: ServicePlan, start: bool) -> ServiceReport:
    """Write the service file (atomically) and, with `start`, enable and start it."""
    from aimate_memory.vault.atomic import atomic_write_text

    report = ServiceReport(plan)
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(plan.path, plan.text)
    report.written = True
    if start:
        _run(plan.start, report)
    return report


def uninstall(plan: ServicePlan) -> ServiceReport:
    """Stop and disable the service, then remove its file (even when the service manager cannot be reached:
    then it is not started at the next login either); nothing to do when it is not installed."""
    report = ServiceReport(plan)
    if not plan.path.exists():
        return report
    _run(plan.stop, report)
    plan.path.unlink()
    report.removed = True
    return report


def _run(commands: list[list[str]], report: ServiceReport) -> None:
    for command in commands:
        shown = shlex.join(command)
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as exc:
            report.failed = f"{shown}: {exc}"
            return
        if done.returncode != 0:
            reason = (done.stderr or done.stdout).strip().splitlines()
            report.failed = f"{shown}: {reason[-1] if reason else f'exit {done.returncode}'}"
            return
        report.ran.append(shown)
