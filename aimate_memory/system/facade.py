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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from aimate_memory.clock import Clock
from aimate_memory.config import Config
from aimate_memory.system.anchoring import Anchoring
from aimate_memory.system.capture import Capture
from aimate_memory.system.conflicts import Conflicts
from aimate_memory.system.context import ContextBuilder
from aimate_memory.system.history import GitActions
from aimate_memory.system.memories import Memories
from aimate_memory.system.memory_page import MemoryPage
from aimate_memory.system.perf import PerfLog
from aimate_memory.system.reading import SentenceReader
from aimate_memory.system.search import Retrieval
from aimate_memory.system.sessions import Sessions
from aimate_memory.system.store import ChangeListener, Progress, Store
from aimate_memory.system.transfer import Transfer
from aimate_memory.system.trust import ProjectTrust
from aimate_memory.system.upkeep import Upkeep
from aimate_memory.vault.roots import Roots, detect_roots
from aimate_memory.vault.store import Vault

if TYPE_CHECKING:
    from typing_extensions import Self

    from aimate_memory.embedding.lazy import LazyEmbedder
    from aimate_memory.index.memory_index import RefreshReport
    from aimate_memory.vault.changes import FileChange

P = ParamSpec("P")
R = TypeVar("R")


class Delegate(Generic[P, R]):
    """A facade method that is a collaborator's method: `search = Delegate("retrieval", Retrieval.search)`
    makes `system.search(...)` call `system.retrieval.search(...)` — the same signature, types and docstring,
    written once (in the collaborator)."""

    def __init__(self, collaborator: str, method: Callable[Concatenate[Any, P], R]) -> None:
        self.collaborator = collaborator
        self.name = method.__name__
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, owner: None, kind: type[Any]) -> Delegate[P, R]: ...

    @overload
    def __get__(self, owner: MemorySystem, kind: type[Any] | None = None) -> Callable[P, R]: ...

    def __get__(self, owner: MemorySystem | None, kind: type[Any] | None = None) -> Delegate[P, R] | Callable[P, R]:
        if owner is None:
            return self
        method: Callable[P, R] = getattr(getattr(owner, self.collaborator), self.name)
        return method


class MemorySystem:
    """The global vault plus, inside a project, the project vault (project first on ties).

    Collaborators: `store` (vaults, indexes, model, journals, the commit-and-notify `record`), `perf` (the
    perf log), `retrieval`, `memories`, `conflicts`, `capture`, `sessions`, `context`, `git`, `memory_page`,
    `transfer`, `upkeep`, `anchoring`, `trust` (which project memories the person trusts)."""

    def __init__(
        self,
        roots: Roots,
        config: Config | None = None,
        clock: Clock | None = None,
        embedder: LazyEmbedder | None = None,
    ) -> None:
        """`embedder`: one the caller made from the same config (e.g. already loading on a thread)."""
        self.store = Store(roots, config, clock, embedder)
        self.perf = PerfLog(self.store)
        self.retrieval = Retrieval(self.store, self.perf)
        self.memories = Memories(self.store, self.retrieval)
        reader = SentenceReader(self.store)  # USE, loaded once: the kind model's input and the conflicts' space
        self.conflicts = Conflicts(self.store, self.retrieval, self.memories, reader)
        self.capture = Capture(self.store, self.perf, self.retrieval, self.memories, reader, self.conflicts)
        self.sessions = Sessions(self.store, self.perf, self.memories, self.capture)
        self.context = ContextBuilder(self.store, self.perf, self.retrieval, self.sessions)
        self.trust = ProjectTrust(self.store)
        self.git = GitActions(self.store, self.memories, self.conflicts, self.trust)
        self.memory_page = MemoryPage(self.store, self.memories, self.git)
        self.transfer = Transfer(self.store, self.memories, self.capture)
        self.upkeep = Upkeep(self.store, self.sessions)
        self.anchoring = Anchoring(self.store, self.memories)

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

    search = Delegate("retrieval", Retrieval.search)
    query = Delegate("retrieval", Retrieval.query)
    count = Delegate("retrieval", Retrieval.count)
    broken_warning = Delegate("retrieval", Retrieval.broken_warning)
    broken_files = Delegate("retrieval", Retrieval.broken_files)

    add = Delegate("memories", Memories.add)
    get = Delegate("memories", Memories.get)
    read = Delegate("memories", Memories.read)
    list = Delegate("memories", Memories.list)
    update = Delegate("memories", Memories.update)
    set_fields = Delegate("memories", Memories.set_fields)
    remove = Delegate("memories", Memories.remove)
    complete = Delegate("memories", Memories.complete)

    remember = Delegate("capture", Capture.remember)

    timeline = Delegate("git", GitActions.timeline)
    details = Delegate("memory_page", MemoryPage.details)

    staleness = Delegate("anchoring", Anchoring.staleness)
    stale = Delegate("anchoring", Anchoring.stale)
    verify = Delegate("anchoring", Anchoring.verify)

    build_context = Delegate("context", ContextBuilder.build_context)
    core_markdown = Delegate("context", ContextBuilder.core_markdown)

    start_session = Delegate("sessions", Sessions.start)
    add_conversation = Delegate("sessions", Sessions.append)
    end_session = Delegate("sessions", Sessions.end)
