"""The fast faces: `aimate mem hook …`, `aimate mem mcp`, `aimate --version` and the commands a running daemon
answers (`cli.served`: list, show, stale, context, review, timeline, remember) without typer, rich or the
whole command app. The assistants start these as a fresh process on every prompt and every session, and the
full app's imports (typer and rich, then every command module) cost more than the hook's own work — see
docs/agents.md, "Latency". `aimate_memory.cli.main` tries `fast_command(argv)` first and falls back to the
typer app for everything else: `--help`, an option it does not know, a usage error. The typer commands stay
the documented face (their help text) and call the same functions here.

This module imports only the standard library at import time; each command imports what it needs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from aimate_memory.cli.served import NO_FASTPATH_ENV, SHAPES, parse_served, run_served, served_name

if TYPE_CHECKING:
    from aimate_memory.system.client import RoutedClient

HOOK_KINDS = ("session-start", "prompt", "session-end")
HOOK_CLIENTS = ("claude", "codex", "kimi")
# `aimate mem [--project PATH | --global] [--debug] COMMAND`: the `mem` group's options (cli/app.py).
GROUP_FLAGS = {"--global": "global_only", "--debug": "debug"}
# A write the daemon has not answered within this is done in-process instead (remember then finds its own
# words already saved: "exists"); a hook must answer long before a client's own hook timeout (60 s).
DAEMON_TIMEOUT_S = 10.0
DETACH_ENV = "AIMATE_HOOK_DETACH"  # "0": a session-end hook without a daemon runs in the hook's own process


class FastArgs(NamedTuple):
    """What the fast path parsed: the `mem` group's options and the command's own. A NamedTuple, not a
    dataclass: `dataclasses` imports `inspect`, ~12 ms of a forwarded hook's ~50 ms of imports."""

    command: str = ""
    kind: str = ""
    client: str = "claude"
    project: Path | None = None
    global_only: bool = False
    debug: bool = False
    fields: dict[str, Any] | None = None  # a served command's own options (`cli.served.parse_served`)


def fast_command(argv: list[str]) -> Callable[[], int | None] | None:
    """The command for `argv` (without the program name) when the fast path serves it, else None. A served
    command's callable may itself return None: the daemon did not answer, the typer app runs it."""
    if os.environ.get(NO_FASTPATH_ENV) == "1":
        return None
    if argv == ["--version"]:
        return print_version
    args = parse(argv)
    if args is None:
        return None
    if args.fields is not None:
        fields = args.fields
        return lambda: run_served(args.command, fields, args.project, args.global_only)
    if args.command == "hook":
        return lambda: run_hook_command(args.kind, args.client, args.project, args.global_only)
    return lambda: run_mcp_command(args.project, args.global_only)


def parse(argv: list[str]) -> FastArgs | None:
    """`mem [group options] hook KIND [--client C]`, `mem [group options] mcp [--project P]` or a served
    command in one of its shapes (`cli.served.SHAPES`); None for anything else (help, an unknown option, a
    missing or extra argument): the typer app answers those."""
    if not argv or argv[0] != "mem":
        return None
    args: dict[str, Any] = {}
    words = list(argv[1:])
    while words and words[0].startswith("-"):
        if not _take_option(words, args, GROUP_FLAGS):
            return None
    if words[:1] == ["hook"] and len(words) >= 2 and words[1] in HOOK_KINDS:
        args["command"], args["kind"] = "hook", words[1]
        rest = words[2:]
    elif words[:1] == ["mcp"]:
        args["command"] = "mcp"
        rest = words[1:]
    elif words and served_name(words) in SHAPES:
        name = served_name(words)
        fields = parse_served(name, words[len(name.split()) :])
        if fields is None:
            return None
        return FastArgs(**args, command=name, fields=fields)
    else:
        return None
    while rest:
        if not _take_option(rest, args, {}, command=args["command"]):
            return None
    return FastArgs(**args)


def _take_option(words: list[str], args: dict[str, Any], flags: dict[str, str], command: str = "") -> bool:
    """Consume one option from the front of `words` into `args` (FastArgs' fields); False when it is not one
    we serve."""
    word = words.pop(0)
    name, has_value, value = word.partition("=")
    if name in flags and not has_value:
        args[flags[name]] = True
        return True
    valued = {"--project"} if command in ("", "mcp") else {"--client"}
    if name not in valued:
        return False
    if not has_value:
        if not words:
            return False
        value = words.pop(0)
    if name == "--client":
        if value not in HOOK_CLIENTS:
            return False
        args["client"] = value
    else:
        args["project"] = Path(value)
    return True


def print_version() -> int:
    from aimate_memory import __version__

    sys.stdout.write(f"aimate {__version__}\n")
    return 0


# -- hooks -------------------------------------------------------------------------------------------


def run_hook_command(kind: str, client: str, project: Path | None, global_only: bool) -> int:
    """`aimate mem hook KIND`: the client's payload on stdin, what the hook says on stdout, exit 0 always."""
    try:
        stdin_text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    except Exception:
        stdin_text = ""
    output = forwarded_hook(kind, client, project, global_only, stdin_text)
    if output is None and kind == "session-end" and detached_hook(kind, client, project, global_only, stdin_text):
        output = ""
    if output is None:
        from aimate_memory.integrations.hook_events import Client as Assistant
        from aimate_memory.integrations.hook_events import HookKind
        from aimate_memory.integrations.hooks import run_hook

        output = run_hook(
            HookKind(kind), stdin_text, lambda cwd: connect_hook(cwd, project, global_only), client=Assistant(client)
        )
    sys.stdout.write(output)
    sys.stdout.flush()
    return 0


def forwarded_hook(kind: str, client: str, project: Path | None, global_only: bool, stdin_text: str) -> str | None:
    """The whole hook answered by the running daemon (`integrations.daemon`'s `hook` op): one round trip, and
    nothing of the client, the records or the hook logic imported in this process (docs/agents.md, "Hooks with
    a daemon"). None when no daemon answered it — none runs, an older one without the op, a project it may not
    serve, a payload over the socket's limit — and the hook then runs here."""
    from aimate_memory.watch.transport import NO_DAEMON_ENV, daemon_request

    if os.environ.get(NO_DAEMON_ENV) == "1":
        return None
    from aimate_memory.vault.roots import aimate_home

    payload = {
        "op": "hook",
        "kind": kind,
        "client": client,
        "stdin": stdin_text,
        "cwd": os.getcwd(),  # for a payload that names no folder: the vaults this process would open
        "project": str(project.expanduser().resolve()) if project else None,
        "global_only": global_only,
        "timeout": DAEMON_TIMEOUT_S,
    }
    reply = daemon_request(aimate_home(), payload, timeout=DAEMON_TIMEOUT_S + 1)
    if reply is None or reply.get("ok") is not True:
        return None
    output = reply.get("output")
    return output if isinstance(output, str) else None


def detached_hook(kind: str, client: str, project: Path | None, global_only: bool, stdin_text: str) -> bool:
    """Run this hook in a process of its own that outlives this one, and return at once; False when it could
    not be started (it then runs here). For session-end without a daemon: Claude Code waits for SessionEnd
    hooks before it exits and cancels one still running after ~1.5 s — a cold session-end (the facade opened,
    the transcript's turns appended) took 1.6 s at load 7 and was cancelled, its turns lost until the next
    session-end (docs/agents.md, "Inside the real assistants"). The child is told not to detach again;
    `AIMATE_HOOK_DETACH=0` keeps the work in the hook's own process (a script reading the session after it)."""
    if os.environ.get(DETACH_ENV) == "0":
        return False
    import subprocess

    command = [sys.executable, "-m", "aimate_memory", "mem"]
    command += ["--project", str(project)] if project else []
    command += ["--global"] if global_only else []
    command += ["hook", kind, "--client", client]
    try:
        child = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, DETACH_ENV: "0"},
            start_new_session=True,  # not in the client's process group: its signals at exit do not reach it
        )
        assert child.stdin is not None
        child.stdin.write(stdin_text.encode("utf-8"))
        child.stdin.close()
    except (OSError, ValueError):
        return False
    return True


def connect_hook(cwd: Path | None, project: Path | None, global_only: bool) -> RoutedClient:
    """The client for a hook's payload folder. Without a daemon, the facade opens keyword-only: loading the
    embedding models took 8 s of a cold prompt hook (2 cores under load; seconds even when idle), against a
    1.5 s goal. A running daemon answers warm and hybrid instead; chunks indexed here get their vectors at
    the next CLI or daemon sync (`embedding.enabled` is not part of the index fingerprint, so nothing is
    rebuilt)."""
    from aimate_memory.watch.client import connect

    return connect(
        cwd, project, global_only, timeout=DAEMON_TIMEOUT_S, config_env={"AIMATE_EMBEDDING__ENABLED": "false"}
    )


# -- MCP ---------------------------------------------------------------------------------------------


def run_mcp_command(project: Path | None, global_only: bool) -> int:
    """`aimate mem mcp`: the stdio server; the SDK is imported behind a front that answers the client's first
    messages (`mcp.front`), the client made on the server's worker thread at first need. A long-lived face:
    its local index is kept fresh from file events, not by stat-walking the vaults on every call."""
    from aimate_memory.mcp.front import serve

    serve(lambda: connect_long_lived(project, global_only), project=project, global_only=global_only)
    return 0  # `cli.main` leaves without the interpreter's teardown


def leave_without_teardown(code: int = 0) -> None:
    """End a process whose work is done without the interpreter's teardown of its heap (docs/design.md, "Leaving
    without the teardown"): for an MCP server (the SDK, its pydantic models, the loaded models) that teardown
    took ~0.5 s of CPU after the client closed stdin, every session; for a command 15-40 ms of its 0.2-0.5 s. What an
    exit still owes is done first — the exit handlers (logging's flush, weakref finalizers) and stdio's flush.
    A thread still alive that is not a daemon (an embedding the process waits for) keeps the ordinary exit:
    this returns, and the caller exits as before."""
    import atexit
    import contextlib
    import threading

    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(ValueError, OSError):  # closed by the SDK's stdio transport, or a closed pipe
            stream.flush()
    os._exit(code)


def connect_long_lived(project: Path | None, global_only: bool) -> RoutedClient:
    """The client of a face that serves many calls (the MCP server): fresh from a file watcher."""
    from aimate_memory.watch.client import connect
    from aimate_memory.watch.freshness import WatchedFreshness

    return connect(None, project, global_only, freshness=WatchedFreshness())
