"""Actions on memory files: read one, add, set fields, edit, archive, fix hand-made files, diagnose."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from aimate_memory.clock import Clock
from aimate_memory.errors import InvalidInputError, MemoryFileError, NotFoundError
from aimate_memory.system.search import SearchActions
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.codec import content_hash
from aimate_memory.vault.fields import coerce_field
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.model import Memory, new_id
from aimate_memory.vault.resolve import check_reference, looks_like_path, pick_by_id, resolve_path
from aimate_memory.vault.store import ScanResult, Vault

if TYPE_CHECKING:
    from aimate_memory.git.committer import HeldPath


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


SECRET_HINT = "remove it; or, after a person checked, `aimate mem review --accept PATH --allow-secret`"


@dataclass
class FixReport:
    """What `fix` wrote (or, dry, would write), and the files it left out of its commit."""

    dry_run: bool
    changes: list[tuple[Vault, FileChange]] = field(default_factory=list)
    held: list[HeldPath] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "changes": [{"scope": vault.scope.value, "change": change.describe()} for vault, change in self.changes],
            "held": [held.to_dict() for held in self.held],
            "warnings": self.warnings,
        }


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
        try:
            vault, path = pick_by_id(ref, candidates)
        except NotFoundError:
            return self._by_title(ref)
        return vault.load(PurePosixPath(path))

    def _by_title(self, title: str) -> Memory:
        """Exact title match, after id, prefix and path found nothing; ambiguous → the candidates."""
        indexed = [index for index in self.indexes if index.exists]
        known = self.query(MemoryFilter(statuses=())) if indexed else []
        matches = [m for m in known if m.title == title] or [m for m in self.scan().memories if m.title == title]
        if not matches:
            raise NotFoundError(f"no memory with id or title '{title}'", "run `aimate mem list` to see ids and titles")
        if len(matches) > 1:
            shown = ", ".join(f"{m.id[:8]} ({m.scope.value}:{m.rel_path.as_posix()})" for m in matches[:5])
            raise InvalidInputError(f"title '{title}' matches {len(matches)} memories: {shown}", "give one of the ids")
        return self.vault_for(matches[0].scope).load(matches[0].rel_path)

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

    def fix(self, dry_run: bool = False) -> FixReport:
        """Write what hand-made files lack: a real id, layer/category/scope, timestamps, content hash.
        A later file sharing an id with another gets a new id. Broken files are left alone.

        The plan comes first; then each file is written, and the commit holds only what was clean before
        (a file with a person's unreviewed edit is written but left for `review`; one holding a secret is
        held out), so the tool never commits a person's unreviewed lines."""
        from aimate_memory.git.committer import held_unreviewed, held_warnings, unreviewed_paths_for

        report = FixReport(dry_run)
        for vault in self.vaults:
            planned = _fix_plan(vault.scan(), self.clock)
            unreviewed = {memory.rel_path for memory, _ in planned} & unreviewed_paths_for(vault, self.config)
            batch = [FileChange("update", m.rel_path, "fix: wrote " + ", ".join(fields)) for m, fields in planned]
            report.changes.extend((vault, change) for change in batch)
            report.held.extend(held_unreviewed(unreviewed))
            if dry_run or not planned:
                continue
            for memory, fields in planned:
                vault.update(memory, fields, touch=False)
            commit = self._record(
                vault,
                ChangeSet(f"memory: fix {len(batch) - len(unreviewed)} file(s)", batch),
                automatic=True,
                hold=unreviewed,
            )
            if commit is not None:
                report.held.extend(h for h in commit.held if h.path not in unreviewed)
        report.warnings = held_warnings(report.held)
        return report

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
        problems.extend(self._secret_problems(result))
        for index in self.indexes:
            if index.exists:
                problems.extend(
                    Problem(index.db_path, None, reason, hint, kind) for kind, reason, hint in index.health()
                )
        return problems

    def _secret_problems(self, result: ScanResult) -> list[Problem]:
        """Files that look like they hold a secret (masked): automatic commits hold them out."""
        from aimate_memory.git.secrets import scan_text

        keywords = self.config.get("privacy.sensitive_keywords") or ()
        problems = []
        for memory in [*result.memories, *(dup for _, dup in result.duplicates)]:
            text = memory.doc.original if memory.doc is not None and memory.doc.original is not None else memory.body
            for finding in scan_text(text, keywords):
                reason = f"looks like a secret ({finding.kind}: {finding.excerpt_masked}); kept out of commits"
                problems.append(Problem(self._abs(memory), finding.line, reason, SECRET_HINT, kind="Secret"))
        return problems

    def _abs(self, memory: Memory) -> Path:
        return self.vault_for(memory.scope).abs_path(memory.rel_path)


def _problem_from_error(error: MemoryFileError) -> Problem:
    return Problem(error.path, error.line, error.reason, error.hint, kind=error.kind)


def _fix_plan(result: ScanResult, clock: Clock) -> list[tuple[Memory, dict[str, Any]]]:
    """Each file that lacks something, with the fields to write (a duplicate id gets a new one)."""
    duplicates = {id(dup) for _, dup in result.duplicates}
    planned = []
    for memory in [*result.memories, *(dup for _, dup in result.duplicates)]:
        fields = _missing_fields(memory, reassign_id=id(memory) in duplicates, clock=clock)
        if fields:
            planned.append((memory, fields))
    return planned


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
