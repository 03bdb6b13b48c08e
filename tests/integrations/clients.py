"""Hook tests' way to a client: a daemon's replies scripted per op (or none), and a local facade opener."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from aimate_memory.system.client import LocalClient, RoutedClient
from aimate_memory.vault.roots import Roots
from aimate_memory.watch.client import DaemonClient

Daemon = Callable[[str, dict[str, Any], Path | None], dict[str, Any] | None]


def connect_with(
    open_system: Callable[[Path | None], Any], daemon: Daemon | None = None
) -> Callable[..., RoutedClient]:
    """`run_hook`'s `connect`: the payload's cwd reaches both the scripted daemon and the opener."""

    def connect(cwd: Path | None) -> RoutedClient:
        remote = DaemonClient(lambda op, fields: daemon(op, fields, cwd)) if daemon is not None else None
        return RoutedClient(
            Roots(Path("/nonexistent/aimate-home"), None), LocalClient(lambda: open_system(cwd)), remote
        )

    return connect
