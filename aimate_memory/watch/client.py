"""The daemon proxy: the facade's verbs over the daemon's socket (`DaemonClient`, one implementation of
`system.client.MemoryClient`), and `connect`, which gives every face its `system.client.RoutedClient` — routing to
the daemon, the local facade as fallback, the project registered, the freshness the face needs.

Light at import (the stdlib, `errors`, `transport`; `records` when a reply is read, `process` only to start a
daemon): a hook the daemon answers imports no more.
The request/reply shapes of every op are documented in `watch.server`."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aimate_memory.errors import AimateError
from aimate_memory.system.client import Freshness, LocalClient, RoutedClient, Unavailable
from aimate_memory.watch.private_socket import socket_path
from aimate_memory.watch.registry import register_project
from aimate_memory.watch.transport import NO_DAEMON_ENV, daemon_request

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.system.records import AppendRecord, CaptureRecord, ContextRecord, SearchRecord
    from aimate_memory.vault.filters import MemoryFilter

# One op and its fields → the daemon's reply (None: no daemon answered).
DaemonCall = Callable[[str, dict[str, Any]], "dict[str, Any] | None"]


def daemon_call(
    op: str,
    fields: dict[str, Any] | None = None,
    *,
    cwd: Path | None = None,
    project: Path | None = None,
    global_only: bool = False,
    home: Path | None = None,
    timeout: float = 30.0,
    meanwhile: Callable[[], object] | None = None,
) -> dict[str, Any] | None:
    """One op on the vaults of a project (`project`, else found from `cwd`, default the working directory)
    through a running daemon: its reply, or None when there is no daemon (or `AIMATE_NO_DAEMON=1`) or it
    failed, so the caller does the work in-process (and, with `daemon.autostart`, a daemon is started for
    the next call). An error the daemon reports as an AimateError (bad query, …) is raised as the same
    error the CLI prints."""
    if home is None:
        from aimate_memory.vault.roots import aimate_home

        home = aimate_home()
    if os.environ.get(NO_DAEMON_ENV) == "1":
        return None
    if not socket_path(home).exists():
        _autostart(home)
        return None
    payload = {
        "op": op,
        **(fields or {}),
        "cwd": str(cwd) if cwd is not None else os.getcwd(),
        "project": str(Path(project).expanduser().resolve()) if project else None,
        "global_only": global_only,
    }
    reply = daemon_request(home, payload, timeout, meanwhile)
    if reply is None:
        # A socket left by a daemon that was killed (SIGKILL, power loss) answers nobody: autostart asks the
        # instance lock, which a dead daemon does not hold, so a busy one is not started twice.
        _autostart(home)
        return None
    if not reply.get("ok"):
        if reply.get("kind") == "AimateError":
            raise AimateError(str(reply.get("error")), reply.get("hint"))
        return None  # the daemon failed: do the work here
    return reply


def _autostart(home: Path) -> None:
    """`watch.process.autostart`, imported when no daemon answered: its imports (subprocess, signal, the
    daemon's paths) were ~8 ms of every command a daemon answers (issue 38)."""
    from aimate_memory.watch.process import autostart

    autostart(home)


class DaemonClient:
    """`MemoryClient` through the daemon: each verb is one op (`call`); `Unavailable` when none answers."""

    def __init__(self, call: DaemonCall) -> None:
        self._call = call

    @classmethod
    def for_project(
        cls,
        cwd: Path | None = None,
        project: Path | None = None,
        global_only: bool = False,
        timeout: float = 30.0,
        meanwhile: Callable[[], object] | None = None,
    ) -> DaemonClient:
        """`meanwhile`: what the caller does while the daemon works on each request (`transport.daemon_request`)."""

        def call(op: str, fields: dict[str, Any]) -> dict[str, Any] | None:
            return daemon_call(
                op, fields, cwd=cwd, project=project, global_only=global_only, timeout=timeout, meanwhile=meanwhile
            )

        return cls(call)

    def _ask(self, op: str, **fields: Any) -> dict[str, Any]:
        reply = self._call(op, fields)
        if reply is None:
            raise Unavailable(op)
        return reply

    def search(
        self, query: str, limit: int = 10, where: MemoryFilter | None = None, *, no_refresh: bool = False
    ) -> SearchRecord:
        from aimate_memory.system.records import SearchRecord, where_to_dict

        reply = self._ask("search", query=query, limit=limit, where=where_to_dict(where), no_refresh=no_refresh)
        return SearchRecord.from_dict({**reply, "query": query, "via": "daemon"})

    def build_context(
        self, query: str | None = None, budget: int | None = None, *, budget_setting: str | None = None
    ) -> ContextRecord:
        fields: dict[str, Any] = {"query": query} if query else {}
        fields.update({"budget": budget} if budget is not None else {"budget_setting": budget_setting})
        from aimate_memory.system.records import ContextRecord

        return ContextRecord.from_dict(self._ask("context", **{k: v for k, v in fields.items() if v is not None}))

    def remember(
        self,
        text: str,
        *,
        source: str = "cli",
        thread: str | None = None,
        status: str | None = None,
        status_setting: str | None = None,
        force: bool = False,
        confidence: float | None = None,
        scope: str | None = None,
        kind: str | None = None,
        keep_both: bool = False,
        replaces: str | None = None,
    ) -> CaptureRecord:
        optional = {
            "thread": thread,
            "status": status,
            "status_setting": status_setting,
            "confidence": confidence,
            "scope": scope,
            "kind": kind,
            "replaces": replaces,
        }
        fields = {"text": text, "source": source, **{k: v for k, v in optional.items() if v is not None}}
        chosen = {"keep_both": True} if keep_both else {}  # only when set: an older daemon refuses the field
        reply = self._ask("remember", **fields, **chosen, force=force)
        from aimate_memory.system.records import CaptureRecord

        return CaptureRecord.from_dict(reply.get("result") or {})

    def add_conversation(self, role: str, content: str, *, session: str | None = None) -> AppendRecord:
        reply = self._ask("converse", role=role, content=content, session=session)
        from aimate_memory.system.records import AppendRecord

        return AppendRecord.from_dict(reply.get("result") or {})

    def end_session(self, *, session: str | None = None) -> bool:
        return bool(self._ask("end_session", session=session).get("ended"))

    def refresh(self) -> None:
        """The daemon syncs this project's vaults that are stale (never refreshed, or with changes still
        settling); the rest its watcher keeps fresh."""
        self._ask("refresh")

    def view(self, name: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """The daemon's op of the view's name (`watch.daemon.VIEW_OPS`): the same record as in process."""
        result = self._ask(name, args=dict(args)).get("result")
        if not isinstance(result, dict):
            raise Unavailable(name)
        return result

    def close(self) -> None:
        """Nothing held: each call is one connection."""


def connect(
    cwd: Path | None = None,
    project: Path | None = None,
    global_only: bool = False,
    *,
    open_system: Callable[[], MemorySystem] | None = None,
    freshness: Freshness | None = None,
    daemon: DaemonClient | bool | None = True,
    timeout: float = 30.0,
    search_for: str | None = None,
    config_env: dict[str, str] | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> RoutedClient:
    """The client for the vaults seen from `cwd` (or of `project`, or the global one only). `daemon`: True
    asks the running daemon first, False never, or the proxy to ask; `open_system` overrides how the local
    facade is opened (default `system.opening.open_system`, with `search_for` preloading the model for that
    query, `config_env` overriding settings as environment variables do); `freshness` (default: sync every
    read) for a long-lived face; `meanwhile`: what the face does while the daemon works on a request."""
    from aimate_memory.vault.roots import detect_roots

    roots = detect_roots(cwd=cwd, project=project, global_only=global_only)
    if open_system is None:

        def open_system() -> MemorySystem:
            from aimate_memory.system.opening import open_system as open_facade

            return open_facade(project, global_only, search_for, cwd=cwd, config_env=config_env)

    remote = (
        DaemonClient.for_project(cwd, project, global_only, timeout, meanwhile) if daemon is True else daemon or None
    )
    return RoutedClient(roots, LocalClient(open_system, freshness), remote, register=register_project)
