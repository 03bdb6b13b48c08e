"""Where the daemon keeps its files: `$AIMATE_HOME/state/` (and the socket, see `private_socket.socket_path`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aimate_memory.vault.roots import Roots
from aimate_memory.watch.private_socket import socket_path

LOCK_FILE = "daemon.lock"  # single instance: an flock the kernel drops when the process dies
PID_FILE = "daemon.pid"
LOG_FILE = "daemon.log"
REGISTRY_FILE = "projects.json"  # the project folders to watch
LAST_MAINTENANCE_FILE = "maintenance.last"  # when the last scheduled maintenance ran (ISO 8601)


@dataclass(frozen=True)
class DaemonPaths:
    state: Path
    lock: Path
    pid: Path
    socket: Path
    log: Path
    registry: Path
    last_maintenance: Path

    @classmethod
    def of(cls, home: Path) -> DaemonPaths:
        state = Roots.state_dir(Path(home))
        return cls(
            state=state,
            lock=state / LOCK_FILE,
            pid=state / PID_FILE,
            socket=socket_path(home),
            log=state / LOG_FILE,
            registry=state / REGISTRY_FILE,
            last_maintenance=state / LAST_MAINTENANCE_FILE,
        )
