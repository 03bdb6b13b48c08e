"""The one client every face uses — the CLI, the MCP server, the hooks and the daemon itself — for the
facade's public verbs: search, build_context, remember, add_conversation, end_session, refresh, close, and
the commands' answers by name (`view`: list, show, stale, timeline, review — `system.views`).

It owns three rules that each face used to implement its own way (docs/architecture.md, "One client"):

- **Routing**: ask the daemon (a `MemoryClient` that raises `Unavailable` when none answers), else do the
  work in this process on the facade, opened on first need. A daemon that did not answer is not asked
  again for `RETRY_SECONDS`: a hook makes one wait at most, a long-lived MCP server uses a daemon that
  started meanwhile.
- **Freshness**: the index is brought up to date before a read (`Freshness`): a short-lived face
  hash-syncs every vault (milliseconds when nothing changed, a stat of every file); a long-lived one plugs
  in a file watcher (`watch.freshness`) and syncs only what changed.
- **Registration**: a client made for a project with a vault registers it, so the daemon watches it too.

The records crossing the boundary are `system.records`; the daemon proxy is `watch.client.DaemonClient`,
and `watch.client.connect` wires the three together (the watcher and the registry live in `watch/`, above
this layer). Only the standard library at import time, `records` when a verb runs here: a hook the daemon
answers never imports the facade, and a command the daemon answers imports the records while the daemon works
(`cli.served.import_printers`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from aimate_memory.errors import NotFoundError

if TYPE_CHECKING:
    from aimate_memory.system.facade import MemorySystem
    from aimate_memory.system.records import AppendRecord, CaptureRecord, ContextRecord, SearchRecord
    from aimate_memory.vault.filters import MemoryFilter
    from aimate_memory.vault.roots import Roots

log = logging.getLogger(__name__)

RETRY_SECONDS = 30.0  # a daemon that did not answer is not asked again for this long
T = TypeVar("T")


class Unavailable(Exception):
    """No daemon answered this call (none running, it failed, or it timed out): do the work here."""


class MemoryClient(Protocol):
    """The facade's public verbs, as every face calls them; implemented in process (`LocalClient`) and by
    the daemon proxy (`watch.client.DaemonClient`)."""

    def search(
        self, query: str, limit: int = 10, where: MemoryFilter | None = None, *, no_refresh: bool = False
    ) -> SearchRecord: ...

    def build_context(
        self, query: str | None = None, budget: int | None = None, *, budget_setting: str | None = None
    ) -> ContextRecord: ...

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
    ) -> CaptureRecord: ...

    def add_conversation(self, role: str, content: str, *, session: str | None = None) -> AppendRecord: ...

    def end_session(self, *, session: str | None = None) -> bool: ...

    def refresh(self) -> None: ...

    def view(self, name: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """A command's answer by name (`system.views.VIEWS`), as a JSON object."""
        ...

    def close(self) -> None: ...


class Freshness(Protocol):
    """How a local client brings the index up to date before a read."""

    def refresh(self, system: MemorySystem) -> None: ...

    def close(self) -> None: ...


class RefreshEveryRead:
    """Hash-sync every vault before each read: right for a process that lives for one command."""

    def refresh(self, system: MemorySystem) -> None:
        system.refresh()

    def close(self) -> None:
        pass


class LocalClient:
    """The verbs on a facade in this process, opened on first use (`open_system`) and kept fresh by
    `freshness` before every read (and before `remember`, which looks for a memory already saying it).
    `borrowed`: the facade belongs to someone else (the daemon's, shared by its requests), so `close` leaves
    it open."""

    def __init__(
        self, open_system: Callable[[], MemorySystem], freshness: Freshness | None = None, *, borrowed: bool = False
    ) -> None:
        self._open_system = open_system
        self._freshness: Freshness = freshness or RefreshEveryRead()
        self._borrowed = borrowed
        self._system: MemorySystem | None = None

    @property
    def is_open(self) -> bool:
        return self._system is not None

    @property
    def system(self) -> MemorySystem:
        """The facade (opened on first use), as it is: for the verbs the daemon does not serve."""
        if self._system is None:
            self._system = self._open_system()
        return self._system

    def fresh(self) -> MemorySystem:
        """The facade with its indexes in step with the files."""
        system = self.system
        self._freshness.refresh(system)
        return system

    def search(
        self, query: str, limit: int = 10, where: MemoryFilter | None = None, *, no_refresh: bool = False
    ) -> SearchRecord:
        system = self.system if no_refresh else self.fresh()
        if no_refresh and not system.store.has_index:
            # Reading would create an empty index.db and fail on its missing tables.
            raise NotFoundError("there is no index yet", "run `aimate mem index`, or drop --no-refresh")
        from aimate_memory.system.records import SearchRecord

        return SearchRecord.of(system.search(query, limit, where), system.vaults, via="in-process")

    def build_context(
        self, query: str | None = None, budget: int | None = None, *, budget_setting: str | None = None
    ) -> ContextRecord:
        system = self.fresh()
        if budget is None and budget_setting:
            budget = int(system.config.get(budget_setting))
        from aimate_memory.system.records import ContextRecord

        return ContextRecord.of(system.build_context(query, budget))

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
        system = self.fresh()
        if status is None and status_setting:  # the person's consent setting (hooks.capture_status)
            status = str(system.config.get(status_setting))
        # Every `Freshness` syncs each change made before it returns (a hash-sync, or a watcher's barrier): the
        # index is as fresh as capture's own folder walks would make it, so they are skipped (`Store.synced`).
        with system.store.synced():
            result = system.remember(
                text,
                source=source,
                thread=thread,
                status=status,
                force=force,
                confidence=confidence,
                scope=scope,
                kind=kind,
                keep_both=keep_both,
                replaces=replaces,
            )
        from aimate_memory.system.records import CaptureRecord

        return CaptureRecord.of(result)

    def add_conversation(self, role: str, content: str, *, session: str | None = None) -> AppendRecord:
        from aimate_memory.system.records import AppendRecord

        return AppendRecord.of(self.system.add_conversation(role, content, session=session))

    def end_session(self, *, session: str | None = None) -> bool:
        return self.system.end_session(session=session) is not None

    def refresh(self) -> None:
        self.fresh()

    def view(self, name: str, args: Mapping[str, Any]) -> dict[str, Any]:
        from aimate_memory.system.views import view_named

        view = view_named(name)
        if not view.reads_index(args):
            system = self.system
        elif args.get("no_refresh"):
            system = self.system
            if not system.store.has_index:  # reading would create an empty index.db and fail on it
                raise NotFoundError("there is no index yet", "run `aimate mem index`, or drop --no-refresh")
        else:
            system = self.fresh()
        return view.run(system, args)

    def close(self) -> None:
        self._freshness.close()
        if self._system is not None and not self._borrowed:
            self._system.close()
        self._system = None


class RoutedClient:
    """The client a face holds: each verb goes to the daemon while one answers, else to the local facade.
    `roots` are the vaults it serves; `register(home, project_dir)` is called once, at creation, for a
    project that has a vault (the daemon then watches it)."""

    def __init__(
        self,
        roots: Roots,
        local: LocalClient,
        remote: MemoryClient | None = None,
        register: Callable[[Path, Path], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.roots = roots
        self.local = local
        self.remote = remote
        self._clock = clock
        self._remote_down_until = 0.0
        self.via = "in-process"  # who answered the last call
        project = roots.project
        if register is not None and project is not None and (project / "memory").is_dir():
            try:
                register(roots.home, project.parent)
            except Exception as exc:  # an unwritable state folder, a held lock: the answer matters more
                log.warning("could not register %s for the daemon: %s", project.parent, exc)

    # -- routing ------------------------------------------------------------------------------------

    def _routed(self, call: Callable[[MemoryClient], T]) -> T:
        """`call` on the daemon while one answers, else on the local facade."""
        if self.remote is not None and self._clock() >= self._remote_down_until:
            try:
                answer = call(self.remote)
            except Unavailable:
                self._remote_down_until = self._clock() + RETRY_SECONDS
            else:
                self.via = "daemon"
                return answer
        self.via = "in-process"
        return call(self.local)

    @property
    def has_vault(self) -> bool:
        """A vault exists to read (checked on the folders: no facade opened)."""
        from aimate_memory.vault.roots import Roots

        folders = [Roots.vault_dir(self.roots.home)]
        if self.roots.project is not None:
            folders.append(Roots.vault_dir(self.roots.project))
        return any(folder.is_dir() for folder in folders)

    def require_vault(self) -> None:
        """A face that reads says "no vault yet" rather than "no memory about that" (the same through the
        daemon or here)."""
        if not self.has_vault:
            from aimate_memory.vault.roots import Roots

            raise NotFoundError(
                f"no memory vault yet (looked in {Roots.vault_dir(self.roots.home)})", "run `aimate mem init`"
            )

    # -- the verbs ----------------------------------------------------------------------------------

    def search(
        self, query: str, limit: int = 10, where: MemoryFilter | None = None, *, no_refresh: bool = False
    ) -> SearchRecord:
        return self._routed(lambda client: client.search(query, limit, where, no_refresh=no_refresh))

    def build_context(
        self, query: str | None = None, budget: int | None = None, *, budget_setting: str | None = None
    ) -> ContextRecord:
        return self._routed(lambda client: client.build_context(query, budget, budget_setting=budget_setting))

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
        def call(client: MemoryClient) -> CaptureRecord:
            return client.remember(
                text,
                source=source,
                thread=thread,
                status=status,
                status_setting=status_setting,
                force=force,
                confidence=confidence,
                scope=scope,
                kind=kind,
                keep_both=keep_both,
                replaces=replaces,
            )

        return self._routed(call)

    def add_conversation(self, role: str, content: str, *, session: str | None = None) -> AppendRecord:
        return self._routed(lambda client: client.add_conversation(role, content, session=session))

    def end_session(self, *, session: str | None = None) -> bool:
        return self._routed(lambda client: client.end_session(session=session))

    def refresh(self) -> None:
        self._routed(lambda client: client.refresh())

    def view(self, name: str, args: Mapping[str, Any]) -> dict[str, Any]:
        return self._routed(lambda client: client.view(name, args))

    def close(self) -> None:
        self.local.close()
