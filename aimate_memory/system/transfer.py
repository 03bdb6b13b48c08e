"""`Transfer`, reached as `system.transfer`: export and import (JSON Lines, and the importers for what people
already have) — memories in and out of the vaults through the normal writer: every file atomic, one commit per
vault for a whole import, ids kept."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from aimate_memory.errors import AimateError, InvalidInputError, MemoryFileError
from aimate_memory.system.capture import Capture
from aimate_memory.system.memories import Memories
from aimate_memory.system.store import Store
from aimate_memory.vault.assistant_memories import LEARNED_IMPORTERS, Learned
from aimate_memory.vault.atomic import atomic_write_text, flush_to_disk
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.codec import decode_memory_bytes
from aimate_memory.vault.filters import parse_layer
from aimate_memory.vault.hashing import git_blob_id
from aimate_memory.vault.importers import IMPORTERS, Importer, Parsed, Source
from aimate_memory.vault.layout import Layer, folder_for, memory_file_name
from aimate_memory.vault.model import Memory, to_datetime
from aimate_memory.vault.roots import Roots
from aimate_memory.vault.store import KEY_ORDER, Vault
from aimate_memory.vault.transfer import Entry, ImportProblem, MemoryRecord, RecordError, parse_record, record_line
from aimate_memory.vault.validate import check_writable_text

ACTIONS = ("added", "updated", "unchanged", "skipped", "error")


@dataclass(frozen=True)
class ImportOutcome:
    """What happened to one record: added | updated | unchanged | skipped | error (with where it was)."""

    line: int
    action: str
    id: str = ""
    path: str = ""
    detail: str = ""
    source: str = ""  # the file it came from, when another tool's folder or file was imported
    text: str = ""  # with a dry run: the file it would write (added / updated)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "line": self.line,
            "action": self.action,
            "id": self.id,
            "path": self.path,
            "detail": self.detail,
            "source": self.source,
        }
        return data | ({"text": self.text} if self.text else {})

    def where(self) -> str:
        """`line 3`, `notes/coffee.md`, `CLAUDE.md line 12`: where in the input it was."""
        line = f"line {self.line}" if self.line else ""
        return " ".join(part for part in (self.source, line) if part)


@dataclass
class ImportReport:
    outcomes: list[ImportOutcome] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    dry_run: bool = False

    def count(self, action: str) -> int:
        return sum(1 for outcome in self.outcomes if outcome.action == action)

    def summary(self) -> str:
        counts = ", ".join(f"{self.count(action)} {action}" for action in ACTIONS if self.count(action))
        return ("dry run, nothing written: " if self.dry_run else "") + (counts or "no records")

    def to_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "counts": {action: self.count(action) for action in ACTIONS},
            "commits": list(self.commits),
            "outcomes": [outcome.to_dict() for outcome in self.outcomes],
        }


@dataclass
class _Pending:
    vault: Vault
    changes: list[FileChange] = field(default_factory=list)
    scanned_clean: set[str] = field(default_factory=set)  # blob ids of the files written, scanned once
    unchanged: dict[PurePosixPath, str] = field(default_factory=dict)  # files already as a record says: blob ids


LEDGER_FILE = "learned.json"  # what `import --from claude-auto-memory|codex-memories` took before


class Transfer:
    """Memories in and out, reached as `system.transfer`. Offers `export_lines` (JSON Lines),
    `import_lines`, `import_from` (another tool's memories, `vault/importers.py`), `import_records`, and
    `import_learned` (what an assistant learned by itself, as pending captures)."""

    def __init__(self, store: Store, memories: Memories, capture: Capture) -> None:
        self._store = store
        self._memories = memories
        self._capture = capture

    def export_lines(self, layers: Sequence[str] = (), statuses: Sequence[str] = ()) -> Iterator[str]:
        """One JSON line per memory (project first), every frontmatter key and the body; files that do
        not parse are left out (`diagnose` lists them). Filters: layer and status names, any of each."""
        wanted_layers = {parse_layer(layer) for layer in layers}
        for vault in self._store.vaults:
            for memory in sorted(vault.scan().memories, key=lambda m: m.rel_path.as_posix()):
                if wanted_layers and memory.layer not in wanted_layers:
                    continue
                if statuses and memory.status not in statuses:
                    continue
                doc = memory.doc if memory.doc is not None else vault.load(memory.rel_path).doc
                meta = doc.meta if doc is not None else {}
                yield record_line(vault.scope.value, memory.rel_path, meta, memory.body if doc is None else doc.body)

    def import_lines(
        self,
        lines: Iterable[str],
        *,
        dry_run: bool = False,
        update: bool = False,
        scope: str | None = None,
        source: str = "import",
    ) -> ImportReport:
        """Write each record through the vault writer (atomic files), then one commit per vault. Ids are
        kept; a record equal to the file on disk is `unchanged` (importing twice changes nothing); an id
        that exists with other content is `skipped` unless `update`. A line that is not a record, leaves
        the vault, or holds a secret is an `error` with its line number — the rest is imported."""
        entries, problems = [], []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                entries.append(Entry(number, parse_record(line)))
            except RecordError as error:
                problems.append(ImportProblem(number, str(error)))
        return self.import_records(entries, problems, dry_run=dry_run, update=update, scope=scope, source=source)

    def import_from(self, kind: str, path: Path, *, dry_run: bool = False, update: bool = False) -> ImportReport:
        """Import what another tool keeps (`vault/importers.py`: claude, basic-memory, mcp-memory-json,
        cline): a file, or the importer's files under a folder. The disk is read
        here, once; a file that cannot be read or parsed is an `error` naming it, the rest is imported."""
        if kind not in IMPORTERS:
            raise InvalidInputError(f"unknown importer {kind}", f"use one of: {', '.join(IMPORTERS)}")
        importer = IMPORTERS[kind]
        source, unreadable = _read_source(Path(path), importer, self._store.config.get("storage.max_file_bytes"))
        parsed = importer.parse(source)
        problems = sorted([*unreadable, *parsed.problems], key=lambda p: (p.source, p.line))
        return self.import_records(parsed.entries, problems, dry_run=dry_run, update=update, source=kind)

    def read_learned(self, kind: str, path: Path) -> list[Learned]:
        """What an assistant learned by itself (`vault/assistant_memories.py`: claude-auto-memory,
        codex-memories), read from its folder (or one file); each `origin` made absolute. Read only."""
        if kind not in LEARNED_IMPORTERS:
            raise InvalidInputError(f"unknown importer {kind}", f"use one of: {', '.join(LEARNED_IMPORTERS)}")
        spec = LEARNED_IMPORTERS[kind]
        reader = Importer(lambda source: Parsed(), (".md",), one_file=True, expects=spec.expects)
        source, _ = _read_source(Path(path), reader, self._store.config.get("storage.max_file_bytes"))
        return [
            Learned(item.text, item.kind, f"{source.folder}/{item.origin}", item.project)
            for item in spec.parse(source.files)
        ]

    def import_learned(self, kind: str, path: Path, *, dry_run: bool = False) -> list[dict[str, str]]:
        """Each thing the assistant noted in `path` becomes a pending capture (scope decided as for any,
        `source` the importer, where it was read in `imported_from`); what the vault already says is `exists`,
        an entry imported before (kept, accepted or rejected) is not taken again. The client's own files are
        only read (docs/agents.md, "The assistants' own memories"). One outcome per entry: `text`, `kind`,
        `from`, `action` (and `id`, `scope` when written). Both `aimate mem import` and the daemon's watch
        (`watch/learned.py`) come here."""
        learned = self.read_learned(kind, path)
        before = self.learned_before(kind)
        taken: list[str] = []
        outcomes: list[dict[str, str]] = []
        for item in learned:
            outcome = {"text": item.text, "kind": item.kind or "", "from": item.origin, "action": "would capture"}
            digest = learned_digest(item.text)
            if digest in before:
                outcome["action"] = "imported before"  # kept, accepted or rejected by the person: not again
            elif not dry_run:
                origin: dict[str, object] = {"imported_from": item.origin}
                if item.project:
                    origin["imported_cwd"] = item.project
                result = self._capture.remember(
                    item.text, source=kind, status="pending", kind=item.kind, force=True, origin=origin
                )
                outcome["action"] = result.action
                if result.memory is not None:
                    outcome |= {"id": result.memory.id, "scope": result.memory.scope.value}
                taken.append(digest)
            outcomes.append(outcome)
        if taken:
            self.note_learned(kind, taken)
        return outcomes

    def learned_before(self, kind: str) -> set[str]:
        """The entries of `kind` imported before (sha256 of their text), kept in `state/learned.json` so an
        entry the person rejected in review is not brought back by the next import."""
        return set(_read_ledger(self._ledger_path()).get(kind, []))

    def note_learned(self, kind: str, digests: Iterable[str]) -> None:
        path = self._ledger_path()
        ledger = _read_ledger(path)
        ledger[kind] = sorted(set(ledger.get(kind, [])) | set(digests))
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(ledger, indent=1) + "\n")

    def _ledger_path(self) -> Path:
        return Roots.state_dir(self._store.roots.home) / LEDGER_FILE

    def import_records(
        self,
        entries: Iterable[Entry],
        problems: Iterable[ImportProblem] = (),
        *,
        dry_run: bool = False,
        update: bool = False,
        scope: str | None = None,
        source: str = "import",
    ) -> ImportReport:
        """`import_lines` for records already parsed (the importers' output); `problems` (input that was
        no record) are reported as errors first; `dry_run` writes nothing."""
        report = ImportReport(dry_run=dry_run)
        report.outcomes += [ImportOutcome(p.line, "error", detail=p.detail, source=p.source) for p in problems]
        # Read-only: the existing memories are only looked at (their id, dates, anchors, bytes), never rendered
        # back, so the tool's simple frontmatter skips ruamel (vault/codec.py): 10 of the 11 s of CPU an import
        # of 150 records into a 2,000-memory vault took went to this scan (docs/reliability.md, "The suite's cost").
        existing = {
            memory.id: (vault, memory) for vault in self._store.vaults for memory in vault.scan(read_only=True).memories
        }
        pending: dict[str, _Pending] = {}
        seen: dict[str, Entry] = {}
        for entry in entries:
            try:
                outcome = self._import_one(entry, existing, seen, update, scope, dry_run, pending)
            except AimateError as error:
                outcome = ImportOutcome(entry.line, "error", entry.record.id, detail=error.message, source=entry.source)
            report.outcomes.append(outcome)
        for item in pending.values():
            self._resume(item)
        if any(item.changes for item in pending.values()):
            flush_to_disk()
        for item in pending.values():
            if not item.changes:
                continue
            subject = f"memory: import {len(item.changes)} memories ({source})"
            changeset = ChangeSet(subject, item.changes, scanned_clean=frozenset(item.scanned_clean))
            commit = self._store.record(item.vault, changeset)
            if commit is not None and commit.commit:
                report.commits.append(commit.commit)
        return report

    def _resume(self, item: _Pending) -> None:
        """Files already as their records say that git has not committed were written by an import stopped
        before its commit (killed, power cut): this import commits them with its own, so running the same
        import again finishes the one that was stopped (docs/benchmarks.md, "Bulk writes")."""
        if not item.unchanged:
            return
        from aimate_memory.git.committer import unreviewed_paths_for

        left = sorted(set(item.unchanged) & unreviewed_paths_for(item.vault, self._store.config))
        item.changes += [FileChange("add", path, "added by an import stopped before its commit") for path in left]
        item.scanned_clean.update(item.unchanged[path] for path in left)

    def _import_one(
        self,
        entry: Entry,
        existing: dict[str, tuple[Vault, Memory]],
        seen: dict[str, Entry],
        update: bool,
        scope: str | None,
        dry_run: bool,
        pending: dict[str, _Pending],
    ) -> ImportOutcome:
        record = entry.record
        outcome = partial(ImportOutcome, entry.line, id=record.id, source=entry.source)
        if record.id in seen:
            first = seen[record.id]
            where = f"{first.source} line {first.line}" if first.source else f"line {first.line}"
            return outcome("error", detail=f"id repeats {where}")
        seen[record.id] = entry
        check_writable_text({"title": record.title, "body": record.body})
        known = existing.get(record.id)
        vault = known[0] if known is not None else self._store.vault_for(record.scope or scope)
        record = _completed(record, vault, known[1] if known is not None else None, self._store.clock.now())
        record = _anchored(record, vault, known[1] if known is not None else None)
        text = record.render()
        self._memories.guard_secrets(text)  # the whole file: every frontmatter field, not only title and body
        if known is not None:
            memory = known[1]
            rel_path, action = memory.rel_path, "updated"
            if vault.abs_path(rel_path).read_bytes() == text.encode("utf-8"):
                if not dry_run and "\0" not in text:  # maybe written by an import interrupted before its commit
                    batch = pending.setdefault(vault.scope.value, _Pending(vault))
                    batch.unchanged[rel_path] = git_blob_id(text.encode("utf-8"))
                return outcome("unchanged", path=rel_path.as_posix())
            if not update:
                detail = "exists with other content; --update replaces it"
                return outcome("skipped", path=rel_path.as_posix(), detail=detail)
        else:
            rel_path, action = _free_path(vault, record), "added"
        if dry_run:
            return outcome(action, path=rel_path.as_posix(), text=text)
        vault.write_rendered(rel_path, text, durable=False)  # rendered once; one flush for the whole import
        batch = pending.setdefault(vault.scope.value, _Pending(vault))
        batch.changes.append(FileChange("add" if action == "added" else "update", rel_path, f"{action} by import"))
        if "\0" not in text:  # scanned above as the commit guard reads these bytes (UTF-8, no NUL: one reading)
            batch.scanned_clean.add(git_blob_id(text.encode("utf-8")))
        return outcome(action, path=rel_path.as_posix())


def _completed(record: MemoryRecord, vault: Vault, known: Memory | None, now: datetime) -> MemoryRecord:
    """The fields every memory file has that an importer cannot know: the scope of the vault it lands in and
    `created_at`/`updated_at` (an existing memory's, so importing twice still changes nothing). Without them
    `fix` rewrote every imported file at once."""
    meta = record.frontmatter
    doc = known.doc if known is not None else None
    created = (doc.get("created_at") if doc is not None else None) or now
    wanted = {
        "scope": vault.scope.value,
        "created_at": created,
        "updated_at": (doc.get("updated_at") if doc is not None else None) or created,
    }
    missing = {key: value for key, value in wanted.items() if meta.get(key) is None}
    if not missing:
        return record
    order = {key: number for number, key in enumerate(KEY_ORDER)}
    filled = {**meta, **missing}
    keys = sorted(filled, key=lambda key: order.get(key, len(order)))  # stable: others keep their order
    return replace(record, frontmatter={key: filled[key] for key in keys})


def _anchored(record: MemoryRecord, vault: Vault, known: Memory | None) -> MemoryRecord:
    """A record for the project vault with the anchors its text cites (docs/anchors.md): a memory imported
    again keeps the anchors it has, so importing twice still changes nothing. A record that brings its own
    `anchors` (an export of ours) keeps them."""
    if vault.anchorer is None or "anchors" in record.frontmatter:
        return record
    anchors = vault.anchorer.anchors_for(f"{record.title}\n\n{record.body}", known.anchors if known else ())
    if not anchors:
        return record
    return replace(record, frontmatter={**record.frontmatter, "anchors": [a.to_dict() for a in anchors]})


def learned_digest(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()


def _read_ledger(path: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _read_source(path: Path, importer: Importer, max_bytes: int) -> tuple[Source, list[ImportProblem]]:
    """The importer's input from disk: one file as it is, or every file with the importer's suffixes under a
    folder (hidden folders and symlinks left out; Markdown within the memory-file size limit, since each
    becomes a memory). A file in a folder that cannot be read is a problem naming it, not the end."""
    expects = importer.expects
    if not path.exists():
        raise InvalidInputError(f"no such file or folder: {path}", f"give {expects}")
    if path.is_dir():
        files: dict[str, str] = {}
        problems = []
        for file in _files_under(path, importer.suffixes):
            name = file.relative_to(path).as_posix()
            try:
                data = file.read_bytes()
                limit = max_bytes if file.suffix.lower() == ".md" else len(data)
                files[name] = decode_memory_bytes(data, file, limit)
            except MemoryFileError as error:
                problems.append(ImportProblem(error.line or 0, error.reason, name))
            except OSError as error:
                problems.append(ImportProblem(0, f"cannot read: {error.strerror or error}", name))
        if not files and not problems:
            raise InvalidInputError(f"no {'/'.join(importer.suffixes)} files under {path}", f"give {expects}")
        return Source(files, PurePosixPath(path.resolve().as_posix())), problems
    if not importer.one_file:
        # One note alone would be named by its file name, not its path in the folder: another id, a duplicate.
        raise InvalidInputError(f"{path} is not a folder", f"give {expects}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidInputError(f"cannot read {path}: {error}", f"give {expects}, as UTF-8") from error
    return Source({path.name: text}, PurePosixPath(path.resolve().parent.as_posix())), []


def _files_under(folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
    found = []
    for root, dirs, names in os.walk(folder):  # symlinked folders are not followed
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(root)
        found += [
            base / name
            for name in sorted(names)
            if name.lower().endswith(suffixes) and not name.startswith(".") and not (base / name).is_symlink()
        ]
    return found


def _free_path(vault: Vault, record: MemoryRecord) -> PurePosixPath:
    """The record's own path when it is free, else where `add` would put it (a clash gets a suffix)."""
    if record.path is not None:
        if not vault.abs_path(record.path).exists():
            return record.path
        return vault.unique_path(record.path.parent, record.path.name)
    meta = record.frontmatter
    layer = parse_layer(str(meta.get("type") or Layer.LONG_TERM.value))
    category = str(meta["category"]) if meta.get("category") else None
    created = to_datetime(meta.get("created_at")) or datetime.now().astimezone()
    return vault.unique_path(folder_for(layer, category), memory_file_name(created, category, record.title))
