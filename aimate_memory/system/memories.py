"""Actions on memory files: read one, add, set fields, edit, archive, fix hand-made files, diagnose."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from aimate_memory.clock import Clock
from aimate_memory.errors import MemoryFileError
from aimate_memory.system.search import SearchActions
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.codec import content_hash
from aimate_memory.vault.fields import coerce_field
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.model import Memory, new_id
from aimate_memory.vault.resolve import check_reference, looks_like_path, pick_by_id, resolve_path
from aimate_memory.vault.store import ScanResult, Vault


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


class MemoryActions(SearchActions):
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
