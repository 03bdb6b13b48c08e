"""`Store`: what every collaborator of the facade shares — the vaults, their indexes, the embedder, the access
journals, and `record`, the commit-and-notify step every action ends with (the git layer commits there)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from aimate_memory.clock import Clock, SystemClock
from aimate_memory.config import Config, load_config
from aimate_memory.errors import InvalidInputError, NotFoundError
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.filters import MemoryFilter, parse_scope
from aimate_memory.vault.layout import Scope
from aimate_memory.vault.roots import Roots
from aimate_memory.vault.setup import PROJECT_GITIGNORE_LINES, create_skeleton, ensure_lines
from aimate_memory.vault.store import Vault
from aimate_memory.vault.trust import TrustLedger, ledger_path, untrusted_notice, withheld

if TYPE_CHECKING:
    from aimate_memory.embedding.lazy import LazyEmbedder
    from aimate_memory.git.anchors import ProjectFiles
    from aimate_memory.git.committer import CommitReport
    from aimate_memory.index.memory_index import MemoryIndex, RefreshReport
    from aimate_memory.lifecycle.journal import AccessJournal
    from aimate_memory.vault.anchors import Staleness
    from aimate_memory.vault.model import Memory

ChangeListener = Callable[[Vault, ChangeSet], None]
Progress = Callable[[str, int, int], None]


class Store:
    """The global vault plus, inside a project, the project vault (project first on ties), and what hangs off
    them. Offers:

    - the places: `roots`, `config`, `clock`, `global_vault`, `project_vault`, `vaults`, `vault_for`, `root_of`;
    - the indexes: `index_for`, `indexes`, `readable_indexes`, `has_index`, `refresh`, `reindex`, `refresh_vault`;
    - the model: `embedder`, `share_embedder`, `warm_up`, `vectors_enabled`, `model_loaded`;
    - `journal_for` (explicit uses, read by maintenance, never written into files);
    - anchors (docs/anchors.md): `project_files` (the project's files, the project vault's `Anchorer`) and
      `staleness` (whether a memory's anchored files changed since it was verified);
    - `record` (commit what an action changed, then tell the `on_change` listeners);
    - the vaults' lifecycle: `init`, `make_private`, `close`.

    It satisfies `lifecycle.maintenance.MaintenanceHost`."""

    def __init__(
        self,
        roots: Roots,
        config: Config | None = None,
        clock: Clock | None = None,
        embedder: LazyEmbedder | None = None,
    ) -> None:
        """`embedder`: one the caller made from the same config (e.g. already loading on a thread)."""
        self.roots = roots
        self.clock = clock or SystemClock()
        self.config = config or load_config(roots.home, roots.project)
        max_bytes = self.config.get("storage.max_file_bytes")
        self.global_vault = Vault(Roots.vault_dir(roots.home), Scope.GLOBAL, max_bytes, self.clock)
        self.project_vault = (
            Vault(Roots.vault_dir(roots.project), Scope.PROJECT, max_bytes, self.clock) if roots.project else None
        )
        self._listeners: list[ChangeListener] = []
        #: Set by a process that answers before it commits (the daemon: `watch.commits`): takes the commit
        #: of a `record(..., deferrable=True)` to run once the caller has its answer.
        self.defer_commit: Callable[[Callable[[], object]], None] | None = None
        #: Set by a process that keeps serving after it answers (the daemon: a task of its own queue): takes
        #: work a write leaves for the next request — never the write's own — to run once the caller has its
        #: answer (docs/design.md §12, "What a remember leaves for after its answer").
        self.after_answer: Callable[[Callable[[], object]], None] | None = None
        self._indexes: dict[Scope, MemoryIndex] = {}
        self._embedder = embedder
        self.project_files: ProjectFiles | None = None
        if self.project_vault is not None and roots.project is not None:
            # Only project memories anchor: the global vault's are about the person, not one codebase.
            from aimate_memory.git.anchors import ProjectFiles

            self.project_files = ProjectFiles(roots.project.parent, self.clock, Roots.state_dir(roots.project))
            self.project_vault.anchorer = self.project_files
        # The person's trust in the project vault (vault/trust.py): kept in their own state, never the project's.
        self.trust_ledger: TrustLedger | None = None
        self._held: dict[str, str] | None = None  # `one_trust_check`'s answer while it runs
        if self.project_vault is not None and roots.project is not None:
            folder = roots.project.parent
            self.trust_ledger = TrustLedger(ledger_path(Roots.state_dir(roots.home), folder), folder)
            self.project_vault.ledger = self.trust_ledger

    def close(self) -> None:
        """Close the index connections. Safe to call twice."""
        for index in self._indexes.values():
            index.close()
        self._indexes.clear()

    # -- vaults --------------------------------------------------------------------------------

    @property
    def vaults(self) -> list[Vault]:
        """Existing vaults, project first."""
        found = [self.project_vault, self.global_vault]
        return [vault for vault in found if vault is not None and vault.exists]

    def vault_for(self, scope: Scope | str | None) -> Vault:
        """The vault of `scope` ("global"/"project" or the enum); None → the project's when there is one."""
        scope = parse_scope(scope) if scope is not None else None
        if scope is Scope.GLOBAL:
            return self._require(self.global_vault)
        if scope is Scope.PROJECT:
            if self.project_vault is None:
                raise InvalidInputError(
                    "not inside a project",
                    "run in a project folder, pass --project PATH, or use --scope global",
                )
            return self._require(self.project_vault)
        # Unsure → project (never pollute global, docs/design.md §5), unless there is no project.
        if self.project_vault is not None and self.project_vault.exists:
            return self.project_vault
        return self._require(self.global_vault)

    def root_of(self, vault: Vault) -> Path:
        """`~/.aimate` or `{project}/.aimate`: where the vault's index and state live."""
        root = self.roots.home if vault.scope is Scope.GLOBAL else self.roots.project
        assert root is not None
        return root

    @staticmethod
    def _require(vault: Vault) -> Vault:
        if not vault.exists:
            where = "" if vault.scope is Scope.GLOBAL else " in this project"
            raise NotFoundError(f"no {vault.scope.value} vault at {vault.root}", f"run `aimate mem init`{where}")
        return vault

    def on_change(self, listener: ChangeListener) -> None:
        """Called after every tool action with what it changed (the git layer commits here)."""
        self._listeners.append(listener)

    def _auto_commit(
        self, vault: Vault, changeset: ChangeSet, automatic: bool = False, hold: Iterable[PurePosixPath] = ()
    ) -> CommitReport | None:
        """One commit per action in the global vault when it is a git repository (docs/design.md §8); an
        `automatic` action's secret-holding files are held out and reported instead of refusing the commit.
        gitpython costs ~150 ms to import, so it is imported only when there is something to commit."""
        if vault.scope is not Scope.GLOBAL or not (vault.root / ".git").exists():
            return None
        from aimate_memory.git.committer import GitCommitter

        return GitCommitter(self.config)(vault, changeset, automatic=automatic, hold=hold)

    def record(
        self,
        vault: Vault,
        changeset: ChangeSet,
        automatic: bool = False,
        hold: Iterable[PurePosixPath] = (),
        *,
        deferrable: bool = False,
    ) -> CommitReport | None:
        """Commit what an action changed, then tell the listeners. `automatic`: maintenance, fix, dedupe
        (nobody is there to answer a refused commit); `hold`: paths a person had changed before the action
        wrote them, left out of the commit (`git/committer.py`). `deferrable`: the caller needs no report
        (its files are written and durable already), so where `defer_commit` is set the listeners are told
        now and the commit runs after the answer (docs/agents.md, "The daemon commits after it answers")."""
        if not changeset:
            return None
        if deferrable and self.defer_commit is not None and not automatic and not hold:
            for listener in self._listeners:
                listener(vault, changeset)
            self.defer_commit(lambda: self._auto_commit(vault, changeset))
            return None
        report = self._auto_commit(vault, changeset, automatic=automatic, hold=hold)
        for listener in self._listeners:
            listener(vault, changeset)
        return report

    def init(self, local: bool = False) -> list[tuple[Vault, list[FileChange]]]:
        """Create the global vault, and the project vault when inside a project. Idempotent. The project's
        `.aimate/memory/` is meant to be committed with the code (its `.gitignore` keeps the index, state and
        sessions out); `local` keeps the whole `.aimate/` out of the project's repository instead
        (`.git/info/exclude`, this clone only)."""
        if local:
            self._exclude_project_locally()
        done = []
        Roots.state_dir(self.roots.home).mkdir(parents=True, exist_ok=True)
        changes = create_skeleton(self.global_vault, self.clock, with_core_templates=True)
        done.append((self.global_vault, changes))
        if self.project_vault is not None and self.roots.project is not None:
            self.roots.project.mkdir(exist_ok=True)
            ensure_lines(self.roots.project / ".gitignore", PROJECT_GITIGNORE_LINES)
            changes = create_skeleton(self.project_vault, self.clock, with_core_templates=False)
            done.append((self.project_vault, changes))
        self._init_git()
        for vault, vault_changes in done:
            self.record(vault, ChangeSet(f"memory: initialize the {vault.scope.value} vault", vault_changes))
        return done

    def make_private(self) -> int:
        """Make the tool's own files readable by their owner only (vault/privacy.py): everything under
        AIMATE_HOME, and a project's `.aimate/` but its vault — what git checks out there is the team's
        repository's business. Returns how many files and folders changed."""
        from aimate_memory.vault.privacy import make_private

        changed = make_private(self.roots.home)
        if self.roots.project is not None:
            changed += make_private(self.roots.project, skip=[Roots.vault_dir(self.roots.project)])
        return changed

    def _exclude_project_locally(self) -> None:
        """`init --local`: refused, before anything is made, where there is no project repository to keep
        `.aimate/` out of."""
        from aimate_memory.git.setup import exclude_locally

        if self.roots.project is None:
            raise InvalidInputError("--local is for a project: this folder is in none", "run it in a project folder")
        if exclude_locally(self.roots.project.parent, self.roots.project.name) is None:
            raise InvalidInputError(
                f"{self.roots.project.parent} is not in a git repository: nothing to keep .aimate/ out of",
                "run `aimate mem init` without --local",
            )

    def _init_git(self) -> None:
        """The global vault is its own repository; a project vault lives in the project's repository
        and only gets the merge driver (the tool commits there only when asked)."""
        from aimate_memory.git.setup import init_vault_repo, install_project_attributes

        init_vault_repo(
            self.global_vault.root,
            author=self.config.get("git.author"),
            sensitive_keywords=self.config.get("privacy.sensitive_keywords"),
        ).close()
        if self.project_vault is not None and _inside_git_repo(self.project_vault.root):
            install_project_attributes(self.project_vault.root)

    # -- index ---------------------------------------------------------------------------------

    @property
    def embedder(self) -> LazyEmbedder:
        """The configured model, loaded on first need (made on first use)."""
        if self._embedder is None:
            from aimate_memory.embedding.lazy import embedder_for

            self._embedder = embedder_for(self.config, Roots.state_dir(self.roots.home))
        return self._embedder

    def share_embedder(self, other: Store) -> bool:
        """Use `other`'s embedding model when both are configured for the same one (one model in memory
        for a daemon serving many projects, not one per project); True when shared. Call it before the
        first search or sync: an index opened earlier keeps the model it was opened with."""
        if self.embedder is other.embedder:
            return True
        if self.embedder.fingerprint != other.embedder.fingerprint:
            return False
        self._embedder = other.embedder
        return True

    def warm_up(self) -> bool:
        """Load the search code and the embedding model now, so the first query does not pay for them;
        True when the model is loaded (False: vectors off, or the model is unavailable)."""
        import aimate_memory.retrieval.hybrid  # noqa: F401  (the search code, loaded before the first query)

        if self.embedder.enabled:
            self.embedder.get()
        return self.embedder.loaded

    @property
    def vectors_enabled(self) -> bool:
        """Whether vector search is configured on (`embedding.enabled`)."""
        return self.embedder.enabled

    @property
    def model_loaded(self) -> bool:
        """Whether the embedding model is in memory now (never loads it)."""
        return self._embedder is not None and self._embedder.loaded

    def index_for(self, vault: Vault) -> MemoryIndex:
        if vault.scope not in self._indexes:
            from aimate_memory.index.memory_index import MemoryIndex
            from aimate_memory.system.reembed import launch as launch_reembed

            root = self.root_of(vault)
            self._indexes[vault.scope] = MemoryIndex(
                vault,
                Roots.index_path(root),
                Roots.state_dir(root) / "index.lock",
                self.embedder,
                sensitive_keywords=self.config.get("privacy.sensitive_keywords"),
                exclude_globs=self.config.get("privacy.exclude_paths"),
                reembed_launch=lambda: launch_reembed(self.roots, vault.scope, self.embedder.fingerprint),
            )
        return self._indexes[vault.scope]

    @property
    def indexes(self) -> list[MemoryIndex]:
        return [self.index_for(vault) for vault in self.vaults]

    @property
    def has_index(self) -> bool:
        """Whether any vault's index file exists (a read with no index would create an empty one)."""
        return any(index.exists for index in self.indexes)

    @property
    def readable_indexes(self) -> list[MemoryIndex]:
        """Every vault's index, ready to read: one never built is built first, so the API's reads work before
        any `refresh()` as the CLI's do (its read commands refresh first)."""
        for index in self.indexes:
            if index.identity() is None:
                index.refresh()
        return self.indexes

    def refresh(self, progress: Progress | None = None) -> dict[str, RefreshReport]:
        """Hash-sync every vault's index with its files (milliseconds when nothing changed)."""
        return {index.vault.scope.value: self._anchored(index.vault, index.refresh(progress)) for index in self.indexes}

    def reindex(self, progress: Progress | None = None) -> dict[str, RefreshReport]:
        """Rebuild every index from the files into a temp file, swapped in atomically."""
        return {index.vault.scope.value: index.refresh(progress, force_rebuild=True) for index in self.indexes}

    @contextmanager
    def synced(self) -> Iterator[None]:
        """Within: every index was brought up to date with every change made before (a full hash-sync, or a
        watcher's barrier and the paths it saw), so the folder walks an action makes to see "a write of a moment
        ago" (capture's supersede and conflict checks: two walks of the decisions and core folders a `remember`)
        are skipped — what a `remember` through the one client does (`LocalClient.remember`)."""
        indexes = list(self.indexes)
        for index in indexes:
            index.synced = True
        try:
            yield
        finally:
            for index in indexes:
                index.synced = False

    def refresh_vault(self, vault: Vault, paths: Iterable[str] | None = None) -> RefreshReport:
        """Hash-sync one vault's index; `paths` (vault-relative, a folder stands for what is under it)
        limits the walk to what changed, None walks the whole vault."""
        return self._anchored(vault, self.index_for(vault).refresh(paths=paths))

    def index_written(self, vault: Vault, paths: Iterable[PurePosixPath]) -> RefreshReport:
        """Index what an action has just written (keywords and, the model loaded, vectors) before it answers,
        even within `synced` — which skips the walks made to see changes from *before* the action. Without
        it a cold `remember` left its memory out of the index, and the next command, whichever it was, paid
        for loading both models to embed it (~0.8 s CPU at 1,650 memories; issue 38)."""
        index = self.index_for(vault)
        was_synced, index.synced = index.synced, False
        try:
            return self.refresh_vault(vault, [path.as_posix() for path in paths])
        finally:
            index.synced = was_synced

    def _anchored(self, vault: Vault, report: RefreshReport) -> RefreshReport:
        """After a refresh of the project vault: hand-made and hand-edited files it read get their anchors
        (`Vault.anchor_hand_edits`), and the index reads what that wrote."""
        if vault.anchorer is None or not report.hand_edited_paths:
            return report
        written = vault.anchor_hand_edits(report.hand_edited_paths)
        if written:
            self.index_for(vault).refresh(paths=[path.as_posix() for path in written])
        return report

    # -- trust (docs/reliability.md, "Trust model: project vaults and the model's writes") ------------------

    def untrusted(self) -> dict[str, str]:
        """The project memories (vault path → file hash) the person has not trusted as they are now: what no
        context, search or listing gives until `aimate mem trust` or a review accepts them."""
        if self._held is not None:
            return self._held
        if self.trust_ledger is None or self.project_vault is None or not self.project_vault.exists:
            return {}
        index = self.index_for(self.project_vault)
        if index.identity() is None:
            index.refresh()
        return withheld(index.file_hashes(), self.trust_ledger.files())

    @contextmanager
    def one_trust_check(self) -> Iterator[None]:
        """Within the block, every read uses the trust check made at its start: a context build reads the
        index several times, and checking each time cost more than the rest of a small build."""
        outer = self._held
        self._held = self.untrusted() if outer is None else outer
        try:
            yield
        finally:
            self._held = outer

    def withholds(self, memory: Memory) -> bool:
        """Whether `memory` is a project memory the person has not trusted as it is (what `trusted_only`
        leaves out of every read), for the faces that take an id."""
        return memory.scope is Scope.PROJECT and memory.rel_path.as_posix() in self.untrusted()

    def trust_notices(self) -> list[str]:
        """One line when project memories were withheld (vault/trust.py `untrusted_notice`), else none."""
        count = len(self.untrusted())
        return [untrusted_notice(count)] if count else []

    def trusted_only(self, where: MemoryFilter) -> MemoryFilter:
        """`where`, leaving out the project memories the person has not trusted (one place: `Retrieval`)."""
        hidden = self.untrusted()
        return replace(where, withheld=tuple(sorted({*where.withheld, *hidden.values()}))) if hidden else where

    def staleness(self, memory: Memory) -> Staleness | None:
        """Whether the files a project memory is anchored to changed, moved or vanished since they were
        verified (the first such anchor; None for a global memory or one without anchors)."""
        if self.project_files is None or not memory.anchors or memory.scope is not Scope.PROJECT:
            return None
        return self.project_files.staleness(memory.anchors)

    def disagree(self, first: str, second: str, cosine: float | None) -> bool:
        """Whether two memory texts take different sides (capture/conflict.py at the configured bars): what
        dedupe never merges, however close (lifecycle/dedupe.py)."""
        from aimate_memory.capture.conflict import ActiveMemory, Thresholds, find_conflicts

        bars = Thresholds(
            float(self.config.get("capture.conflict_subject_threshold")),
            float(self.config.get("capture.conflict_threshold")),
        )
        return bool(find_conflicts(second, [ActiveMemory("", first, cosine)], bars))

    def journal_for(self, vault: Vault) -> AccessJournal:
        from aimate_memory.lifecycle.journal import AccessJournal

        return AccessJournal(Roots.state_dir(self.root_of(vault)) / "access.jsonl")


def _inside_git_repo(folder: Path) -> bool:
    return any((parent / ".git").exists() for parent in (folder, *folder.parents))
