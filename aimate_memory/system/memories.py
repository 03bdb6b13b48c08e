"""`Memories`: actions on memory files — read one, add, update, set fields, edit, archive, fix hand-made files,
diagnose."""

from __future__ import annotations

import builtins
import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from aimate_memory.clock import Clock
from aimate_memory.errors import InvalidInputError, MemoryFileError, printable_path
from aimate_memory.system.search import Retrieval
from aimate_memory.system.store import Store
from aimate_memory.vault.atomic import is_stale_temp
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.codec import content_hash
from aimate_memory.vault.fields import coerce_field
from aimate_memory.vault.filters import MemoryFilter, parse_layer, parse_status
from aimate_memory.vault.layout import MAX_NAME_BYTES, Layer, Scope, home_of
from aimate_memory.vault.model import Memory, new_id
from aimate_memory.vault.resolve import (
    check_reference,
    id_starts_with,
    looks_like_path,
    pick_by_id,
    pick_by_title,
    resolve_path,
)
from aimate_memory.vault.store import ScanResult, Vault
from aimate_memory.vault.validate import check_writable_text, thread_name
from aimate_memory.wording import with_article

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
        return f"{printable_path(self.path)}:{self.line}" if self.line else printable_path(self.path)


SECRET_HINT = "remove it; or, after a person checked, `aimate mem review --accept PATH --allow-secret`"


@dataclass
class FixReport:
    """What `fix` wrote (or, dry, would write), and the files it left out of its commit."""

    dry_run: bool
    changes: list[tuple[Vault, FileChange]] = field(default_factory=list)
    held: list[HeldPath] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    made_private: int = 0  # files and folders whose group/other permissions were removed

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "made_private": self.made_private,
            "changes": [{"scope": vault.scope.value, **change.to_dict()} for vault, change in self.changes],
            "held": [held.to_dict() for held in self.held],
            "warnings": self.warnings,
        }


UPDATABLE = ("title", "body", "tags", "importance", "status")


class Memories:
    """Memory files, one action one commit. Offers reading (`get`, `locate`, `read` — a counted use —,
    `list`, `scan`), writing (`add`, `update`, `set_fields`, `after_edit`, `remove`, `supersede` — a step of
    a larger action, committed by its caller), the secret guard every writer calls (`guard_secrets`), and
    repair (`fix`, `diagnose`)."""

    def __init__(self, store: Store, retrieval: Retrieval) -> None:
        self._store = store
        self._retrieval = retrieval

    # -- reading -------------------------------------------------------------------------------

    def scan(self) -> ScanResult:
        combined = ScanResult()
        for vault in self._store.vaults:
            result = vault.scan()
            combined.memories.extend(result.memories)
            combined.errors.extend(result.errors)
            combined.duplicates.extend(result.duplicates)
        return combined

    def list(self, where: MemoryFilter | None = None, limit: int | None = None) -> builtins.list[Memory]:
        """Memories matching `where` from the index (call `refresh()` first for fresh data): project first by
        path, or with `limit` the newest `limit` of them."""
        if limit is None:
            return self._retrieval.query(where)
        return self._retrieval.query(where, limit, order="updated")

    def get(self, ref: str, *, read_only: bool = False) -> Memory:
        """One memory, read from its file, by id, unique id prefix, path or exact title. `read_only`: it will
        not be written back from this copy (`Vault.load`: the tool's simple frontmatter skips ruamel)."""
        vault, rel = self.locate(ref)
        return vault.load(rel, read_only=read_only)

    def locate(self, ref: str) -> tuple[Vault, PurePosixPath]:
        """Where the memory `ref` names is (id, unique id prefix, path or exact title), without reading it:
        `edit` opens a file even when it is broken."""
        ref = check_reference(ref)
        if looks_like_path(ref):
            return resolve_path(ref, self._store.vaults)
        candidates: list[tuple[str, tuple[Vault, str]]] = []
        indexed = [index for index in self._store.indexes if index.exists]
        for index in indexed:
            found = index.find_ids(ref)
            if any(not index.vault.abs_path(PurePosixPath(path)).exists() for _, path in found):
                # The file moved since the index last saw it (`set category=…`, a hand move): the index
                # learns where it went rather than sending the caller to a path that is gone.
                index.refresh()
                found = index.find_ids(ref)
            candidates.extend(
                (memory_id, (index.vault, path))
                for memory_id, path in found
                # Still behind the files after the refresh (deleted meanwhile): ask the files.
                if index.vault.abs_path(PurePosixPath(path)).exists()
            )
        if not candidates and indexed:
            titled = self._by_title(ref, self._retrieval.query(MemoryFilter(statuses=())))
            if titled is not None:
                return titled
        if not candidates:
            # Not indexed yet (a file made a moment ago, or no index): read the files, once, for both.
            scanned = self.scan().memories
            candidates = [(m.id, (self._store.vault_for(m.scope), m.rel_path.as_posix())) for m in scanned]
            candidates = [(memory_id, found) for memory_id, found in candidates if id_starts_with(memory_id, ref)]
            if not candidates:
                titled = self._by_title(ref, scanned)
                if titled is not None:
                    return titled
        vault, path = pick_by_id(ref, candidates)
        return vault, PurePosixPath(path)

    def _by_title(self, title: str, memories: builtins.list[Memory]) -> tuple[Vault, PurePosixPath] | None:
        """The memory exactly (case-insensitively) titled `title`; several → an error listing them."""
        found = pick_by_title(title, [(m.title, m.id, m) for m in memories])
        return (self._store.vault_for(found.scope), found.rel_path) if found is not None else None

    # -- writing -------------------------------------------------------------------------------

    def read(self, ref: str) -> Memory:
        """`get`, counted as a use: what `show`, `edit` and an assistant's get call (docs/design.md §5).
        The use is journaled in the state folder, never written into the file (docs/lifecycle.md "Uses")."""
        memory = self.get(ref)
        self._store.journal_for(self._store.vault_for(memory.scope)).record([memory.id], self._store.clock.now())
        return memory

    def add(
        self,
        title: str,
        body: str = "",
        *,
        layer: Layer | str = Layer.LONG_TERM,
        category: str | None = None,
        tags: builtins.list[str] | str | None = None,
        importance: int = 3,
        ttl_days: float | None = None,
        scope: Scope | str | None = None,
        status: str = "active",
        source: str = "cli",
        extra: dict[str, Any] | None = None,
        allow_secret: bool = False,
        thread: str | None = None,
    ) -> Memory:
        """Write a new memory. Everything is checked before anything is written: a refused memory leaves
        nothing on disk. Layer, scope and status take their names or the enums. `thread`: the conversation it
        comes from; a search shows a hit's neighbours in it (retrieval/neighbours.py)."""
        layer = parse_layer(layer)
        if layer is Layer.SESSION:
            raise InvalidInputError(
                "sessions are written turn by turn, not added", "use `aimate mem session start|append`"
            )
        given = _given(category=category, tags=tags)
        self.guard_secrets({"title": title, "body": body, **given, **(extra or {}), "thread": thread}, allow_secret)
        fields = {key: coerce_field(key, value) for key, value in given.items()}
        status = parse_status(status)
        ttl_days = _ttl(
            ttl_days, self._store.config.get("short_term.default_ttl_days") if layer is Layer.SHORT_TERM else None
        )
        check_writable_text({"title": title, "body": body})
        if thread is not None:
            extra = {**(extra or {}), "thread": thread_name(thread)}
        vault = self._store.vault_for(scope)
        memory, change = vault.create(
            title=title,
            body=body,
            layer=layer,
            category=fields.get("category"),
            tags=fields.get("tags"),
            importance=importance,
            ttl_days=ttl_days,
            status=status,
            source=source,
            extra=extra,
        )
        where = f"{layer.value}/{memory.category}"
        self._store.record(vault, ChangeSet(f'memory: add "{memory.title}" ({where})', [change], allow_secret))
        return memory

    def supersede(self, old: Memory, by: str) -> FileChange:
        """Mark `old` replaced by the memory `by` (`status: superseded`, `superseded_by`): a capture that
        restates it, or the new side of a conflict a person kept (docs/design.md, "Conflicts"). The caller
        commits the returned change with its own."""
        self._store.vault_for(old.scope).update(old, {"status": "superseded", "superseded_by": by})
        return FileChange("update", old.rel_path, f"superseded by {by[:8]}")

    def guard_secrets(self, texts: str | Mapping[str, Any], allow_secret: bool = False) -> None:
        """Refuse text that looks like it holds a secret, before it reaches the disk (docs/design.md §8,
        docs/reliability.md "Security"). `texts`: one text, or each field's value by name (lists item by
        item) so the error names the field. A category is also read upper-cased: it becomes a lower-case
        folder name, and `akiaiosfodnn7example` is still an AWS key id."""
        if allow_secret:
            return
        from aimate_memory.git.secrets import scan_text

        keywords = self._store.config.get("privacy.sensitive_keywords") or ()
        found = []
        for name, value in ({"": texts} if isinstance(texts, str) else texts).items():
            for text in _field_texts(name, value):
                found += [(name, finding) for finding in scan_text(text, keywords)]
        if found:
            name, first = found[0]
            where = name if name and name != "body" else first.location
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            kind = with_article(first.kind)
            raise InvalidInputError(
                f"refused, nothing written: {where} looks like {kind}: {first.excerpt_masked}{more}",
                "remove the secret (keep it in a password manager), or pass --allow-secret if it is not one",
            )

    def set_fields(self, ref: str, fields: dict[str, Any], body: str | None = None) -> Memory:
        """Set frontmatter fields. `layer`/`category` move the file where `fix` would put it and
        `status: archived` moves it to archive/ like `remove` — each one commit. `body`: a new body in the
        same commit (the page's edit form), checked like `update`'s; every value is checked before anything
        is written."""
        self.guard_secrets({**fields, **({"body": body} if body is not None else {})})
        fields = {key: coerce_field(key, value) for key, value in fields.items()}
        check_writable_text({"body": body})
        memory = self.get(ref)
        vault = self._store.vault_for(memory.scope)
        if "layer" in fields:
            fields["type"] = fields.pop("layer")
        if body is not None and body.strip("\n") == memory.body.strip("\n"):
            body = None  # the same text: no write, no commit for it
        if fields.get("status") == "archived" and not memory.archived:
            others = {key: value for key, value in fields.items() if key != "status"}
            if body is not None:
                memory = vault.update(memory, {}, body=body)
            archived, change = vault.archive(memory, "archived", "archived by `set status=archived`", **others)
            self._store.record(vault, ChangeSet(f'memory: archive "{memory.title}"', [change]))
            return archived
        updated = vault.update(memory, fields, body=body)
        target = home_of(updated.rel_path, updated.layer, updated.category)
        reason = ", ".join(
            [f"{'layer' if key == 'type' else key}={value}" for key, value in fields.items()]
            + (["body"] if body is not None else [])
        )
        if target is not None:
            moved = vault.move(updated, vault.unique_path(target.parent, target.name), {})
            change = FileChange("move", moved.rel_path, f"set {reason}", old_path=memory.rel_path)
            self._store.record(vault, ChangeSet(f'memory: move "{moved.title}" to {moved.rel_path.parent}', [change]))
            return moved
        if updated is not memory:
            change = FileChange("update", updated.rel_path, f"set {reason}")
            self._store.record(vault, ChangeSet(f'memory: update "{updated.title}"', [change]))
        return updated

    def update(
        self,
        ref: str,
        *,
        title: str | None = None,
        body: str | None = None,
        tags: builtins.list[str] | str | None = None,
        importance: int | None = None,
        status: str | None = None,
    ) -> Memory:
        """Edit fields and/or the body of one memory (id, prefix, path or title); one commit. The new text
        is checked for secrets and control characters before anything is written; `status: archived`
        moves it to archive/ like `remove`."""
        given = {"title": title, "tags": tags, "importance": importance, "status": status}
        self.guard_secrets({**given, "body": body})
        fields = {key: coerce_field(key, value) for key, value in given.items() if value is not None}
        if not fields and body is None:
            raise InvalidInputError("nothing to update", f"pass at least one of: {', '.join(UPDATABLE)}")
        check_writable_text({"title": fields.get("title"), "body": body})
        memory = self.get(ref)
        vault = self._store.vault_for(memory.scope)
        archive = fields.get("status") == "archived" and not memory.archived
        if archive:
            fields.pop("status")
        updated = vault.update(memory, fields, body=body) if fields or body is not None else memory
        what = ", ".join([*fields, *(["body"] if body is not None else [])])
        changes = [FileChange("update", updated.rel_path, f"updated {what}")] if updated is not memory else []
        if archive:
            updated, _ = vault.archive(updated, "archived", "archived by update")
            changes = [FileChange("move", updated.rel_path, f"updated {what}; archived", old_path=memory.rel_path)]
        if changes:
            self._store.record(vault, ChangeSet(f'memory: update "{updated.title}"', changes))
        return updated

    def after_edit(self, vault: Vault, rel_path: PurePosixPath, before: bytes) -> Memory:
        """Re-validate a file a person just edited (`before`: its bytes when the editor opened). A broken
        file raises with path:line and is kept as saved; an edited body gets a fresh `content_hash` and
        `updated_at`; the edit is one commit."""
        edited = vault.load(rel_path)
        if vault.ledger is not None:  # the person's own edit of a file they trusted stays trusted
            from aimate_memory.vault.trust import file_digest

            now = file_digest(vault.abs_path(rel_path).read_bytes())
            vault.ledger.carry(rel_path, file_digest(before), rel_path, now)
        if edited.hand_edited or edited.doc is None or not edited.doc.get("content_hash"):
            edited = vault.update(edited, {"content_hash": content_hash(edited.body)})
        if vault.abs_path(rel_path).read_bytes() != before:
            change = FileChange("update", edited.rel_path, "edited in $EDITOR")
            self._store.record(vault, ChangeSet(f'memory: edit "{edited.title}"', [change]))
        self._store.journal_for(vault).record([edited.id], self._store.clock.now())
        return edited

    def remove(self, ref: str, purge: bool = False) -> Memory:
        """Archive (default) or delete a memory. Archiving moves; nothing is lost."""
        memory = self.get(ref)
        vault = self._store.vault_for(memory.scope)
        if purge:
            change = vault.delete(memory)
            self._store.record(vault, ChangeSet(f'memory: purge "{memory.title}"', [change]))
            return memory
        archived, change = vault.archive(memory, "archived", "removed by the user")
        self._store.record(vault, ChangeSet(f'memory: archive "{memory.title}"', [change]))
        return archived

    def complete(self, ref: str) -> Memory:
        """A task the person says is done: archived with `status: done` and `done_at`, one commit. Closing
        it is the person's word, never inferred from a use (docs/lifecycle.md "Uses")."""
        memory = self.get(ref)
        if memory.layer is not Layer.SHORT_TERM or memory.category != "task":
            raise InvalidInputError(
                f'"{memory.title}" is a {memory.layer.value} {memory.category}, not a task',
                "`aimate mem rm ID` archives any memory",
            )
        vault = self._store.vault_for(memory.scope)
        done, change = vault.archive(memory, "done", "done", done_at=self._store.clock.now())
        self._store.record(vault, ChangeSet(f'memory: done "{memory.title}"', [change]))
        return done

    def fix(self, dry_run: bool = False) -> FixReport:
        """Write what hand-made files lack: a real id, layer/category/scope, timestamps, content hash.
        A later file sharing an id with another gets a new id. Broken files are left alone.

        The plan comes first; then each file is written, and the commit holds only what was clean before
        (a file with a person's unreviewed edit is written but left for `review`; one holding a secret is
        held out), so the tool never commits a person's unreviewed lines."""
        from aimate_memory.git.committer import held_unreviewed, held_warnings, unreviewed_paths_for

        report = FixReport(dry_run)
        for vault in self._store.vaults:
            scanned = vault.scan()
            planned = _fix_plan(scanned, self._store.clock)
            misplaced = _misplaced(scanned)
            touched = {memory.rel_path for memory, _ in planned} | {memory.rel_path for memory, _ in misplaced}
            unreviewed = touched & unreviewed_paths_for(vault, self._store.config)
            misplaced = [(memory, target) for memory, target in misplaced if memory.rel_path not in unreviewed]
            batch = [FileChange("update", m.rel_path, "fix: wrote " + ", ".join(fields)) for m, fields in planned]
            batch += [
                FileChange("move", target, f"fix: {m.layer.value}/{m.category} belongs in {target.parent}/", m.rel_path)
                for m, target in misplaced
            ]
            report.changes.extend((vault, change) for change in batch)
            report.held.extend(held_unreviewed(unreviewed))
            if not dry_run:
                report.warnings.extend(filter(None, [vault.remove_stale_temps()]))
            if dry_run or not batch:
                continue
            for memory, fields in planned:
                vault.update(memory, fields, touch=False)
            for index, (memory, target) in enumerate(misplaced):
                # The frontmatter says where it belongs (docs/design.md §3): the file goes there.
                moved = vault.move(vault.load(memory.rel_path), vault.unique_path(target.parent, target.name), {})
                position = len(planned) + index
                batch[position] = FileChange("move", moved.rel_path, batch[position].reason, memory.rel_path)
            commit = self._store.record(
                vault,
                ChangeSet(f"memory: fix {len(batch) - len(unreviewed)} file(s)", batch),
                automatic=True,
                hold=unreviewed,
            )
            if commit is not None:
                report.held.extend(h for h in commit.held if h.path not in unreviewed)
        report.warnings += held_warnings(report.held)
        if not dry_run:
            report.made_private = self._store.make_private()
        return report

    def diagnose(self) -> builtins.list[Problem]:
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
        problems.extend(_name_problems(self._store.vaults))
        for index in self._store.indexes:
            if index.exists:
                problems.extend(
                    Problem(index.db_path, None, reason, hint, kind) for kind, reason, hint in index.health()
                )
        return problems

    def _secret_problems(self, result: ScanResult) -> builtins.list[Problem]:
        """Files that look like they hold a secret (masked): automatic commits hold them out."""
        from aimate_memory.git.secrets import scan_text

        keywords = self._store.config.get("privacy.sensitive_keywords") or ()
        problems: builtins.list[Problem] = []
        for memory in [*result.memories, *(dup for _, dup in result.duplicates)]:
            text = memory.doc.original if memory.doc is not None and memory.doc.original is not None else memory.body
            for finding in scan_text(memory.rel_path.as_posix(), keywords):
                reason = f"its name looks like a secret ({finding.kind}); kept out of commits"
                problems.append(Problem(self._abs(memory), None, reason, "rename it", kind="Secret"))
            for finding in scan_text(text, keywords):
                reason = f"looks like a secret ({finding.kind}: {finding.excerpt_masked}); kept out of commits"
                problems.append(Problem(self._abs(memory), finding.line, reason, SECRET_HINT, kind="Secret"))
        return problems

    def _abs(self, memory: Memory) -> Path:
        return self._store.vault_for(memory.scope).abs_path(memory.rel_path)


def _name_problems(vaults: list[Vault]) -> builtins.list[Problem]:
    """Files (memory or not) the tool cannot handle well by their names, in one walk: names longer than the
    tool's own (a clash suffix or an editor's swap file may not fit beside them, vault/layout.py
    MAX_NAME_BYTES), and temp files a killed writer left (vault/atomic.py)."""
    problems = []
    now = time.time()
    for vault in vaults:
        for folder, dirs, names in os.walk(vault.root):
            dirs[:] = [name for name in dirs if not name.startswith(".")]  # .git holds no names of ours
            for name in names:
                path = Path(folder) / name
                size = len(os.fsencode(name))
                if size > MAX_NAME_BYTES:
                    reason = f"the file name is {size} bytes, over the {MAX_NAME_BYTES} the tool gives its own files"
                    hint = f"rename it to at most {MAX_NAME_BYTES} bytes ({MAX_NAME_BYTES // 3} Chinese characters)"
                    problems.append(Problem(path, None, reason, hint, kind="LongName"))
                if is_stale_temp(path, now):
                    reason = "a temp file left by an interrupted write"
                    problems.append(Problem(path, None, reason, "`aimate mem fix` removes it", kind="StaleTemp"))
    return problems


def _field_texts(name: str, value: Any) -> list[str]:
    """The texts one field holds (list items one by one; numbers and dates hold none)."""
    items = value if isinstance(value, (list, tuple, set)) else [value]
    texts = [str(item) for item in items if isinstance(item, str) and item]
    return texts + [text.upper() for text in texts] if name == "category" else texts


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


def _given(**values: Any) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}


# Longer than any short-term note should live; and `now + timedelta(days=1e308)` overflows.
MAX_TTL_DAYS = 36_525  # 100 years


def _ttl(ttl_days: float | None, default: float | None) -> float | None:
    ttl = default if ttl_days is None else ttl_days
    if ttl is not None and not (math.isfinite(ttl) and 0 < ttl <= MAX_TTL_DAYS):
        raise InvalidInputError(
            f"a time to live must be a positive number of days up to {MAX_TTL_DAYS:,} (100 years), got {ttl_days}",
            "e.g. --ttl 7",
        )
    return ttl


def _misplaced(scanned: ScanResult) -> list[tuple[Memory, PurePosixPath]]:
    """Memories whose frontmatter names a layer/category that lives in another folder, and that folder."""
    found = []
    for memory in scanned.memories:
        declared = memory.doc is not None and (memory.doc.get("type") or memory.doc.get("category"))
        target = home_of(memory.rel_path, memory.layer, memory.category) if declared else None
        if target is not None:
            found.append((memory, target))
    return found
