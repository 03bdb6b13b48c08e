"""`MemorySystem`: the one facade the CLI, the daemon, the MCP server, hooks and agents call (seed 002 核心组件).

It is one class holding collaborators, the way sqlite-utils' `Database` hands out `Table`s: each group of
actions is a small class with its own documented surface, built here with exactly what it needs (the shared
`Store`, the perf log, the collaborators it calls) — never the facade itself. The everyday verbs (search,
remember, add, get, read, list, update, remove, build_context, the session verbs, refresh) are also methods of
the facade, each handing the call to its collaborator unchanged; groups with a name of their own are reached
through it: `system.git.accept(...)`, `system.transfer.import_lines(...)`, `system.upkeep.maintain()`
(docs/architecture.md, "The facade")."""

from __future__ import annotations

import builtins
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar, overload

from aimate_memory.clock import Clock
from aimate_memory.config import Config
from aimate_memory.system.perf import PerfLog
from aimate_memory.system.store import ChangeListener, Progress, Store
from aimate_memory.vault.roots import Roots, detect_roots
from aimate_memory.vault.store import Vault

if TYPE_CHECKING:
    from typing_extensions import Self

    from aimate_memory.embedding.lazy import LazyEmbedder
    from aimate_memory.index.memory_index import RefreshReport
    from aimate_memory.system.anchoring import Anchoring
    from aimate_memory.system.capture import Capture
    from aimate_memory.system.conflicts import Conflicts
    from aimate_memory.system.context import ContextBuilder
    from aimate_memory.system.history import GitActions
    from aimate_memory.system.memories import Memories
    from aimate_memory.system.memory_page import MemoryPage
    from aimate_memory.system.reading import SentenceReader
    from aimate_memory.system.search import Retrieval
    from aimate_memory.system.sessions import Sessions
    from aimate_memory.system.transfer import Transfer
    from aimate_memory.system.trust import ProjectTrust
    from aimate_memory.system.upkeep import Upkeep
    from aimate_memory.vault.changes import FileChange

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class Part(Generic[T]):
    """A collaborator built on first use, then kept: `functools.cached_property` with one lock per facade, so
    that two daemon threads asking at once build it once on every Python (3.12 dropped cached_property's
    lock). Building one part builds the parts it needs (`capture` builds `conflicts`) on the same thread, hence
    a re-entrant lock. Each builder imports its collaborator's module itself: a cold `aimate mem list` then
    never imports capture's rules, numpy or the sessions (docs/design.md, "What a cold command loads")."""

    def __init__(self, build: Callable[[MemorySystem], T]) -> None:
        self.build = build
        self.name = build.__name__
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, owner: None, kind: type[Any]) -> Part[T]: ...

    @overload
    def __get__(self, owner: MemorySystem, kind: type[Any] | None = None) -> T: ...

    def __get__(self, owner: MemorySystem | None, kind: type[Any] | None = None) -> Part[T] | T:
        if owner is None:
            return self
        with owner._building:  # not a data descriptor: once built, the instance's own attribute answers
            if self.name not in owner.__dict__:
                owner.__dict__[self.name] = self.build(owner)
        built: T = owner.__dict__[self.name]
        return built


class Delegate(Generic[P, R]):
    """A facade method that is a collaborator's method: `search = Delegate(lambda s: s.retrieval.search)` makes
    `system.search(...)` call `system.retrieval.search(...)` — the same signature and types, written once (in
    the collaborator), and the collaborator built only when a verb of its own is called."""

    def __init__(self, method: Callable[[MemorySystem], Callable[P, R]]) -> None:
        self.method = method

    @overload
    def __get__(self, owner: None, kind: type[Any]) -> Delegate[P, R]: ...

    @overload
    def __get__(self, owner: MemorySystem, kind: type[Any] | None = None) -> Callable[P, R]: ...

    def __get__(self, owner: MemorySystem | None, kind: type[Any] | None = None) -> Delegate[P, R] | Callable[P, R]:
        if owner is None:
            return self
        return self.method(owner)


class MemorySystem:
    """The global vault plus, inside a project, the project vault (project first on ties).

    Collaborators: `store` (vaults, indexes, model, journals, the commit-and-notify `record`), `perf` (the
    perf log), `retrieval`, `memories`, `conflicts`, `capture`, `sessions`, `context`, `git`, `memory_page`,
    `transfer`, `upkeep`, `anchoring`, `trust` (which project memories the person trusts). The store and the
    perf log are made at once; every other part on first use (`Part`)."""

    def __init__(
        self,
        roots: Roots,
        config: Config | None = None,
        clock: Clock | None = None,
        embedder: LazyEmbedder | None = None,
    ) -> None:
        """`embedder`: one the caller made from the same config (e.g. already loading on a thread)."""
        self._building = threading.RLock()
        self.store = Store(roots, config, clock, embedder)
        self.perf = PerfLog(self.store)

    # -- the collaborators, each built on first use with exactly what it needs ---------------------

    @Part
    def retrieval(self) -> Retrieval:
        from aimate_memory.system.search import Retrieval

        return Retrieval(self.store, self.perf)

    @Part
    def memories(self) -> Memories:
        from aimate_memory.system.memories import Memories

        return Memories(self.store, self.retrieval)

    @Part
    def _reader(self) -> SentenceReader:
        """USE, loaded once: the kind model's input and the conflicts' space (shared by capture and conflicts)."""
        from aimate_memory.system.reading import SentenceReader

        return SentenceReader(self.store)

    @Part
    def conflicts(self) -> Conflicts:
        from aimate_memory.system.conflicts import Conflicts

        return Conflicts(self.store, self.retrieval, self.memories, self._reader)

    @Part
    def capture(self) -> Capture:
        from aimate_memory.system.capture import Capture

        return Capture(self.store, self.perf, self.retrieval, self.memories, self._reader, self.conflicts)

    @Part
    def sessions(self) -> Sessions:
        from aimate_memory.system.sessions import Sessions

        return Sessions(self.store, self.perf, self.memories, lambda: self.capture)

    @Part
    def context(self) -> ContextBuilder:
        from aimate_memory.system.context import ContextBuilder

        return ContextBuilder(self.store, self.perf, self.retrieval, self.sessions)

    @Part
    def trust(self) -> ProjectTrust:
        from aimate_memory.system.trust import ProjectTrust

        return ProjectTrust(self.store)

    @Part
    def git(self) -> GitActions:
        from aimate_memory.system.history import GitActions

        return GitActions(self.store, self.memories, lambda: self.conflicts, self.trust)

    @Part
    def memory_page(self) -> MemoryPage:
        from aimate_memory.system.memory_page import MemoryPage

        return MemoryPage(self.store, self.memories, self.git)

    @Part
    def transfer(self) -> Transfer:
        from aimate_memory.system.transfer import Transfer

        return Transfer(self.store, self.memories, self.capture)

    @Part
    def upkeep(self) -> Upkeep:
        from aimate_memory.system.upkeep import Upkeep

        return Upkeep(self.store, self.sessions)

    @Part
    def anchoring(self) -> Anchoring:
        from aimate_memory.system.anchoring import Anchoring

        return Anchoring(self.store, self.memories)

    @classmethod
    def open(
        cls,
        cwd: str | Path | None = None,
        project: str | Path | None = None,
        global_only: bool = False,
        clock: Clock | None = None,
    ) -> Self:
        """The vaults seen from `cwd` (default: the working directory), or of `project`; paths may be str."""
        return cls(
            detect_roots(
                cwd=Path(cwd) if cwd is not None else None,
                project=Path(project) if project is not None else None,
                global_only=global_only,
            ),
            clock=clock,
        )

    def close(self) -> None:
        """Close the index connections. Safe to call twice."""
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- where: read-only views of the store ------------------------------------------------------

    @property
    def roots(self) -> Roots:
        return self.store.roots

    @property
    def config(self) -> Config:
        return self.store.config

    @property
    def clock(self) -> Clock:
        return self.store.clock

    @property
    def global_vault(self) -> Vault:
        return self.store.global_vault

    @property
    def project_vault(self) -> Vault | None:
        return self.store.project_vault

    @property
    def vaults(self) -> builtins.list[Vault]:
        """Existing vaults, project first."""
        return self.store.vaults

    def init(self, local: bool = False) -> builtins.list[tuple[Vault, builtins.list[FileChange]]]:
        """Create the vaults (`Store.init`)."""
        return self.store.init(local)

    def refresh(self, progress: Progress | None = None) -> dict[str, RefreshReport]:
        """Hash-sync every vault's index with its files (milliseconds when nothing changed)."""
        return self.store.refresh(progress)

    def on_change(self, listener: ChangeListener) -> None:
        """Called after every tool action with what it changed (the git layer commits here)."""
        self.store.on_change(listener)

    # -- the everyday verbs: one door, each the collaborator's own method --------------------------

    search = Delegate(lambda s: s.retrieval.search)
    query = Delegate(lambda s: s.retrieval.query)
    count = Delegate(lambda s: s.retrieval.count)
    broken_warning = Delegate(lambda s: s.retrieval.broken_warning)
    broken_files = Delegate(lambda s: s.retrieval.broken_files)
    said_to_warm = Delegate(lambda s: s.retrieval.said_to_warm)
    warm_said = Delegate(lambda s: s.retrieval.warm_said)

    add = Delegate(lambda s: s.memories.add)
    get = Delegate(lambda s: s.memories.get)
    read = Delegate(lambda s: s.memories.read)
    list = Delegate(lambda s: s.memories.list)
    update = Delegate(lambda s: s.memories.update)
    set_fields = Delegate(lambda s: s.memories.set_fields)
    remove = Delegate(lambda s: s.memories.remove)
    complete = Delegate(lambda s: s.memories.complete)

    remember = Delegate(lambda s: s.capture.remember)
    warm_capture = Delegate(lambda s: s.capture.warm)

    timeline = Delegate(lambda s: s.git.timeline)
    details = Delegate(lambda s: s.memory_page.details)

    staleness = Delegate(lambda s: s.anchoring.staleness)
    stale = Delegate(lambda s: s.anchoring.stale)
    verify = Delegate(lambda s: s.anchoring.verify)

    build_context = Delegate(lambda s: s.context.build_context)
    core_markdown = Delegate(lambda s: s.context.core_markdown)

    start_session = Delegate(lambda s: s.sessions.start)
    add_conversation = Delegate(lambda s: s.sessions.append)
    end_session = Delegate(lambda s: s.sessions.end)
