"""`MemorySystem`: the one facade the CLI, the MCP server and agents use (seed 002 核心组件)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from aimate_memory.clock import Clock, SystemClock
from aimate_memory.config import Config, load_config
from aimate_memory.errors import InvalidInputError, MemoryFileError, NotFoundError
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.codec import content_hash
from aimate_memory.vault.fields import coerce_field
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.model import Memory, new_id
from aimate_memory.vault.resolve import check_reference, looks_like_path, pick_by_id, resolve_path
from aimate_memory.vault.roots import Roots, detect_roots
from aimate_memory.vault.setup import PROJECT_GITIGNORE, create_skeleton
from aimate_memory.vault.store import ScanResult, Vault

if TYPE_CHECKING:
    from aimate_memory.embedding.lazy import LazyEmbedder
    from aimate_memory.index.memory_index import MemoryIndex, SyncReport
    from aimate_memory.lifecycle.journal import AccessJournal
    from aimate_memory.retrieval.hybrid import SearchResponse

ChangeListener = Callable[[Vault, ChangeSet], None]


@dataclass
class Problem:
    """One thing `diagnose` reports: where, what, and how to fix it."""

    path: Path
    line: int | None
    reason: str
    hint: str | None = None
    kind: str = "problem"

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line else str(self.path)


class MemorySystem:
    """The global vault plus, inside a project, the project vault (project first on ties)."""

    def __init__(self, roots: Roots, config: Config | None = None, clock: Clock | None = None) -> None:
        self.roots = roots
        self.clock = clock or SystemClock()
        self.config = config or load_config(roots.home, roots.project)
        max_bytes = self.config.get("storage.max_file_bytes")
        self.global_vault = Vault(Roots.vault_dir(roots.home), Scope.GLOBAL, max_bytes, self.clock)
        self.project_vault = (
            Vault(Roots.vault_dir(roots.project), Scope.PROJECT, max_bytes, self.clock) if roots.project else None
        )
        self._listeners: list[ChangeListener] = [self._auto_commit]
        self._indexes: dict[Scope, MemoryIndex] = {}

    @classmethod
    def open(
        cls,
        cwd: Path | None = None,
        project: Path | None = None,
        global_only: bool = False,
        clock: Clock | None = None,
    ) -> MemorySystem:
        return cls(detect_roots(cwd=cwd, project=project, global_only=global_only), clock=clock)

    def close(self) -> None:
        """Close the index connections. Safe to call twice."""
        for index in self._indexes.values():
            index.close()
        self._indexes.clear()

    def __enter__(self) -> MemorySystem:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- vaults --------------------------------------------------------------------------------

    @property
    def vaults(self) -> list[Vault]:
        """Existing vaults, project first."""
        found = [self.project_vault, self.global_vault]
        return [vault for vault in found if vault is not None and vault.exists]

    def vault_for(self, scope: Scope | None) -> Vault:
        if scope is Scope.GLOBAL:
            return self._require(self.global_vault)
        if scope is Scope.PROJECT:
            if self.project_vault is None:
                raise InvalidInputError(
                    "not inside a project",
                    "run in a project folder, pass --project PATH, or use --scope global",
                )
            return self._require(self.project_vault)
        # Unsure → project (never pollute global, DESIGN §5), unless there is no project.
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

    def _auto_commit(self, vault: Vault, changeset: ChangeSet) -> None:
        """One commit per action in the global vault when it is a git repository (DESIGN §8).
        gitpython costs ~150 ms to import, so it is imported only when there is something to commit."""
        if vault.scope is not Scope.GLOBAL or not (vault.root / ".git").exists():
            return
        from aimate_memory.git.repo import GitCommitter

        GitCommitter(self.config)(vault, changeset)

    def _record(self, vault: Vault, changeset: ChangeSet) -> None:
        if changeset:
            for listener in self._listeners:
                listener(vault, changeset)

    def init(self) -> list[tuple[Vault, list[FileChange]]]:
        """Create the global vault, and the project vault when inside a project. Idempotent."""
        done = []
        Roots.state_dir(self.roots.home).mkdir(parents=True, exist_ok=True)
        changes = create_skeleton(self.global_vault, self.clock, with_core_templates=True)
        done.append((self.global_vault, changes))
        if self.project_vault is not None and self.roots.project is not None:
            gitignore = self.roots.project / ".gitignore"
            self.roots.project.mkdir(exist_ok=True)
            if not gitignore.exists():
                gitignore.write_text(PROJECT_GITIGNORE, encoding="utf-8")
            changes = create_skeleton(self.project_vault, self.clock, with_core_templates=False)
            done.append((self.project_vault, changes))
        self._init_git()
        for vault, vault_changes in done:
            self._record(vault, ChangeSet(f"memory: initialize the {vault.scope.value} vault", vault_changes))
        return done

    def _init_git(self) -> None:
        """The global vault is its own repository; a project vault lives in the project's repository
        and only gets the merge driver (the tool commits there only when asked)."""
        from aimate_memory.git.repo import init_vault_repo, install_project_attributes

        init_vault_repo(
            self.global_vault.root,
            author=self.config.get("git.author"),
            sensitive_keywords=self.config.get("privacy.sensitive_keywords"),
        )
        if self.project_vault is not None and _inside_git_repo(self.project_vault.root):
            install_project_attributes(self.project_vault.root)

    # -- index ---------------------------------------------------------------------------------

    @cached_property
    def embedder(self) -> LazyEmbedder:
        from aimate_memory.embedding.lazy import LazyEmbedder

        settings = self.config.section("embedding")
        settings["cache_dir"] = settings.get("cache_dir") or str(Roots.state_dir(self.roots.home) / "models")
        return LazyEmbedder(settings)

    def index_for(self, vault: Vault) -> MemoryIndex:
        if vault.scope not in self._indexes:
            from aimate_memory.index.memory_index import MemoryIndex

            root = self.root_of(vault)
            self._indexes[vault.scope] = MemoryIndex(
                vault,
                Roots.index_path(root),
                Roots.state_dir(root) / "index.lock",
                self.embedder,
                sensitive_keywords=self.config.get("privacy.sensitive_keywords"),
                exclude_globs=self.config.get("privacy.exclude_paths"),
            )
        return self._indexes[vault.scope]

    @property
    def indexes(self) -> list[MemoryIndex]:
        return [self.index_for(vault) for vault in self.vaults]

    def sync(self, progress: Callable[[str, int, int], None] | None = None) -> dict[str, SyncReport]:
        """Hash-sync every vault's index with its files (milliseconds when nothing changed)."""
        return {index.vault.scope.value: index.sync(progress) for index in self.indexes}

    def reindex(self, progress: Callable[[str, int, int], None] | None = None) -> dict[str, SyncReport]:
        """Rebuild every index from the files into a temp file, swapped in atomically."""
        return {index.vault.scope.value: index.sync(progress, force_rebuild=True) for index in self.indexes}

    def journal_for(self, vault: Vault) -> AccessJournal:
        from aimate_memory.lifecycle.journal import AccessJournal

        return AccessJournal(Roots.state_dir(self.root_of(vault)) / "access.jsonl")

    def search(self, query: str, top_k: int = 10, where: MemoryFilter | None = None) -> SearchResponse:
        """Hybrid search over the project and global vaults; returned memories are journaled as accessed."""
        from aimate_memory.retrieval.hybrid import HybridSearcher

        retrieval = self.config.section("retrieval")
        searcher = HybridSearcher(
            self.indexes,
            self.embedder,
            self.clock,
            decay=retrieval["decay"],
            candidates=retrieval["candidates"],
            vector_candidates=retrieval["vector_candidates"],
            min_similarity=retrieval["min_similarity"],
        )
        response = searcher.search(query, top_k, where)
        now = self.clock.now()
        for vault in self.vaults:
            ids = [hit.memory.id for hit in response.results if hit.memory.scope is vault.scope]
            self.journal_for(vault).record(ids, now)
        return response

    def query(self, where: MemoryFilter | None = None, limit: int | None = None, order: str = "path") -> list[Memory]:
        """Metadata query from the index (no file reads): list, time ranges, filters."""
        where = where or MemoryFilter()
        found: list[Memory] = []
        for index in self.indexes:
            if where.scopes and index.vault.scope not in where.scopes:
                continue
            found.extend(index.query(where, limit, order))
        return found[:limit] if limit is not None else found

    def get_stats(self) -> dict[str, Any]:
        return {index.vault.scope.value: index.stats() for index in self.indexes}

    # -- reading -------------------------------------------------------------------------------

    def scan(self) -> ScanResult:
        combined = ScanResult()
        for vault in self.vaults:
            result = vault.scan()
            combined.memories.extend(result.memories)
            combined.errors.extend(result.errors)
            combined.duplicates.extend(result.duplicates)
        return combined

    def list(self, where: MemoryFilter | None = None) -> list[Memory]:
        """Memories matching `where`, project first, from the index (call `sync()` first for fresh data)."""
        return self.query(where)

    def get(self, ref: str) -> Memory:
        """One memory, read from its file, by id, unique id prefix or path."""
        ref = check_reference(ref)
        if looks_like_path(ref):
            vault, rel = resolve_path(ref, self.vaults)
            return vault.load(rel)
        candidates: list[tuple[str, tuple[Vault, str]]] = []
        for index in self.indexes:
            if index.exists:
                candidates.extend((memory_id, (index.vault, path)) for memory_id, path in index.find_ids(ref))
        if not candidates:
            # Not indexed yet (a file made a moment ago, or no index): read the files.
            candidates = [(m.id, (self.vault_for(m.scope), m.rel_path.as_posix())) for m in self.scan().memories]
            candidates = [(memory_id, found) for memory_id, found in candidates if memory_id.startswith(ref)]
        vault, path = pick_by_id(ref, candidates)
        return vault.load(PurePosixPath(path))

    # -- writing -------------------------------------------------------------------------------

    def add(
        self,
        title: str,
        body: str = "",
        *,
        layer: Layer = Layer.LONG_TERM,
        category: str | None = None,
        tags: list[str] | None = None,
        importance: int = 3,
        ttl_days: float | None = None,
        scope: Scope | None = None,
        status: str = "active",
        source: str = "cli",
        extra: dict[str, Any] | None = None,
    ) -> Memory:
        vault = self.vault_for(scope)
        if layer is Layer.SHORT_TERM and ttl_days is None:
            ttl_days = self.config.get("short_term.default_ttl_days")
        memory, change = vault.create(
            title=title,
            body=body,
            layer=layer,
            category=category,
            tags=tags,
            importance=importance,
            ttl_days=ttl_days,
            status=status,
            source=source,
            extra=extra,
        )
        where = f"{layer.value}/{memory.category}"
        self._record(vault, ChangeSet(f'memory: add "{memory.title}" ({where})', [change]))
        return memory

    def set_fields(self, ref: str, fields: dict[str, Any]) -> Memory:
        fields = {key: coerce_field(key, value) for key, value in fields.items()}
        memory = self.get(ref)
        vault = self.vault_for(memory.scope)
        updated = vault.update(memory, fields)
        if updated is not memory:
            reason = ", ".join(f"{key}={value}" for key, value in fields.items())
            change = FileChange("update", updated.rel_path, f"set {reason}")
            self._record(vault, ChangeSet(f'memory: update "{updated.title}"', [change]))
        return updated

    def after_edit(self, memory: Memory) -> Memory:
        """Re-validate a file a person just edited; a broken file raises with path:line and is kept
        as saved. An edited body gets a fresh `content_hash` and `updated_at`."""
        vault = self.vault_for(memory.scope)
        edited = vault.load(memory.rel_path)
        if edited.hand_edited or edited.doc is None or not edited.doc.get("content_hash"):
            edited = vault.update(edited, {"content_hash": content_hash(edited.body)})
        if edited.doc is not None and edited.doc.original != (memory.doc.original if memory.doc else None):
            change = FileChange("update", edited.rel_path, "edited in $EDITOR")
            self._record(vault, ChangeSet(f'memory: edit "{edited.title}"', [change]))
        return edited

    def remove(self, ref: str, purge: bool = False) -> Memory:
        """Archive (default) or delete a memory. Archiving moves; nothing is lost."""
        memory = self.get(ref)
        vault = self.vault_for(memory.scope)
        if purge:
            change = vault.delete(memory)
            self._record(vault, ChangeSet(f'memory: purge "{memory.title}"', [change]))
            return memory
        archived, change = vault.archive(memory, "archived", "removed by the user")
        self._record(vault, ChangeSet(f'memory: archive "{memory.title}"', [change]))
        return archived

    def fix(self, dry_run: bool = False) -> list[tuple[Vault, FileChange]]:
        """Write what hand-made files lack: a real id, layer/category/scope, timestamps, content hash.
        A later file sharing an id with another gets a new id. Broken files are left alone."""
        fixes: list[tuple[Vault, FileChange]] = []
        for vault in self.vaults:
            result = vault.scan()
            duplicates = {id(dup) for _, dup in result.duplicates}
            batch: list[FileChange] = []
            for memory in [*result.memories, *(dup for _, dup in result.duplicates)]:
                fields = _missing_fields(memory, reassign_id=id(memory) in duplicates, clock=self.clock)
                if not fields:
                    continue
                if not dry_run:
                    vault.update(memory, fields, touch=False)
                batch.append(FileChange("update", memory.rel_path, "fix: wrote " + ", ".join(fields)))
            fixes.extend((vault, change) for change in batch)
            if not dry_run:
                self._record(vault, ChangeSet(f"memory: fix {len(batch)} file(s)", batch))
        return fixes

    def diagnose(self) -> list[Problem]:
        result = self.scan()
        problems = [_problem_from_error(error) for error in result.errors]
        for kept, duplicate in result.duplicates:
            problems.append(
                Problem(
                    self._abs(duplicate),
                    None,
                    f"duplicate id {duplicate.id} (also {kept.rel_path}); not indexed",
                    "run `aimate mem fix` to give it a new id",
                    kind="DuplicateId",
                )
            )
        for memory in result.memories:
            for reason in memory.problems:
                problems.append(Problem(self._abs(memory), None, reason, "run `aimate mem fix`", kind="Frontmatter"))
        for index in self.indexes:
            if index.exists:
                problems.extend(
                    Problem(index.db_path, None, reason, hint, kind) for kind, reason, hint in index.health()
                )
        return problems

    def _abs(self, memory: Memory) -> Path:
        return self.vault_for(memory.scope).abs_path(memory.rel_path)


def _inside_git_repo(folder: Path) -> bool:
    return any((parent / ".git").exists() for parent in (folder, *folder.parents))


def _problem_from_error(error: MemoryFileError) -> Problem:
    return Problem(error.path, error.line, error.reason, error.hint, kind=error.kind)


def _missing_fields(memory: Memory, reassign_id: bool, clock: Clock) -> dict[str, Any]:
    doc = memory.doc
    assert doc is not None
    fields: dict[str, Any] = {}
    if memory.provisional_id or reassign_id:
        fields["id"] = new_id(clock.now())
    wanted = {
        "type": memory.layer.value,
        "scope": memory.scope.value,
        "category": memory.category,
        "title": memory.title,
        "status": memory.status,
        "importance": memory.importance,
        "created_at": memory.created_at,
        "updated_at": memory.updated_at,
    }
    for key, value in wanted.items():
        current = doc.get(key)
        if current is None or (key == "type" and str(current) != value):
            fields[key] = value
    if not doc.get("content_hash") or memory.hand_edited:
        fields["content_hash"] = content_hash(memory.body)
    if memory.hand_edited:
        fields["updated_at"] = memory.updated_at
    return fields
