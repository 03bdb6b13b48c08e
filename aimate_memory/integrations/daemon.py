"""The daemon process as installed: `watch.daemon.Daemon` with the operation of the layer above it, `hook` —
a whole hook answered in the daemon, so a hook process with a daemon up only forwards its stdin.

Why (docs/agents.md, "Hooks with a daemon"): a hook process that made its facade calls through the daemon one
by one still imported the client, the records and the hook logic (0.10–0.25 s a hook on 2 loaded cores, three
hooks on every Claude Code session's path). Forwarded, the hook process imports the socket code only, and the
hook logic (`integrations.hooks.run_hook`) runs here on the daemon's warm, hybrid client.

    op     request fields                                     reply fields
    hook   kind (session-start|prompt|session-end),           output (what the hook prints; "" for nothing);
           client (claude|codex|kimi), stdin (the payload),   a session-end is answered at once and done
           cwd, project, global_only, timeout                 after, unless `wait` is true

The payload's `cwd` picks the vaults (as a hook in process does), else the request's — the hook process's own
folder; a project the daemon may not serve (another user's) is refused before anything runs, and the hook
process then does the work itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from aimate_memory.integrations.hook_events import Client, HookKind, parse_event
from aimate_memory.integrations.hooks import run_hook
from aimate_memory.system.client import MemoryClient
from aimate_memory.watch.daemon import QUEUED_FIELDS, Daemon
from aimate_memory.watch.daemon import main as daemon_main
from aimate_memory.watch.server import FLAG, FOLDER, Field, Operation, Reply, Request
from aimate_memory.watch.tasks import Result

KINDS = {kind.value for kind in HookKind}
CLIENTS = {client.value for client in Client}
HOOK_FIELDS = {
    **QUEUED_FIELDS,
    "kind": Field(f"one of {', '.join(sorted(KINDS))}", lambda value: isinstance(value, str) and value in KINDS, True),
    "client": Field(
        f"one of {', '.join(sorted(CLIENTS))}", lambda value: isinstance(value, str) and value in CLIENTS, True
    ),
    "stdin": Field("a string", lambda value: isinstance(value, str), True),
    "cwd": FOLDER,  # the hook process's own folder: the vaults of a payload that names none
    "project": FOLDER,
    "global_only": FLAG,
    "wait": FLAG,
}


def operations(daemon: Daemon) -> Mapping[str, Operation]:
    """The ops this layer adds to `daemon` (`Daemon(more_operations=operations)`)."""
    return {"hook": Operation(_hook_handler(daemon), HOOK_FIELDS)}


def _hook_handler(daemon: Daemon) -> Callable[[Request], Reply]:
    queued_in_order = daemon.queued("hook", lambda request: _run(daemon, request), project=True)
    # Nobody reads a session-end's answer (the session is over) and `claude -p` waits for it before exiting:
    # answered at once, run after, in order with the next session's requests (one queue).
    queued_after = daemon.queued("hook", lambda request: _run(daemon, request), project=True, background=True)

    def handler(request: Request) -> Reply:
        kind = HookKind(request["kind"])
        # Admitted as the payload's project, else the hook process's folder (as a hook in process would be).
        routed = {**request, "cwd": _payload_cwd(kind, str(request["stdin"])) or request.get("cwd")}
        if kind is HookKind.SESSION_END:
            reply = queued_after(routed)
            return {**reply, "output": reply.get("output", "")} if reply.get("ok") else reply
        return queued_in_order(routed)

    return handler


def _run(daemon: Daemon, request: Request) -> Result:
    def connect(cwd: Path | None) -> MemoryClient:
        return daemon.client_for(
            {
                "cwd": str(cwd) if cwd else request.get("cwd"),
                "project": request.get("project"),
                "global_only": request.get("global_only"),
            }
        )

    output = run_hook(
        HookKind(request["kind"]), str(request["stdin"]), connect, client=Client(request["client"]), home=daemon.home
    )
    daemon.hooks_served += 1
    return {"ok": True, "output": output}


def _payload_cwd(kind: HookKind, stdin: str) -> str | None:
    """The folder the client ran in, when the payload says one (absolute and there); else None — the hook's
    own error path then answers (`run_hook` logs an unreadable payload and prints nothing)."""
    try:
        cwd = parse_event(kind, stdin).cwd
    except Exception:
        return None
    return str(cwd) if cwd is not None and cwd.is_absolute() and cwd.is_dir() else None


def main(argv: list[str] | None = None) -> int:
    """`python -m aimate_memory.integrations.daemon --home H`: the daemon in the foreground, as installed."""
    return daemon_main(argv, more_operations=operations)


if __name__ == "__main__":
    sys.exit(main())
