"""Export and import (JSON Lines, and the importers for what people already have): memories in and out of the
vaults through the normal writer — every file atomic, one commit per vault for a whole import, ids kept."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any

from aimate_memory.errors import AimateError, InvalidInputError
from aimate_memory.system.memories import MemoryActions
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.filters import parse_layer
from aimate_memory.vault.layout import Layer, folder_for, memory_file_name
from aimate_memory.vault.model import Memory, to_datetime
from aimate_memory.vault.store import Vault
from aimate_memory.vault.transfer import MemoryRecord, RecordError, parse_record, record_line
from aimate_memory.vault.validate import check_writable_text

ACTIONS = ("added", "updated", "unchanged", "skipped", "error")


@dataclass(frozen=True)
class ImportOutcome:
    """What happened to one record: added | updated | unchanged | skipped | error (with the line number)."""

    line: int
    action: str
    id: str = ""
    path: str = ""
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "action": self.action, "id": self.id, "path": self.path, "detail": self.detail}


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


class TransferActions(MemoryActions):
    def export_lines(self, layers: Sequence[str] = (), statuses: Sequence[str] = ()) -> Iterator[str]:
        """One JSON line per memory (project first), every frontmatter key and the body; files that do
        not parse are left out (`diagnose` lists them). Filters: layer and status names, any of each."""
        wanted_layers = {parse_layer(layer) for layer in layers}
        for vault in self.vaults:
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
        records = []
        report = ImportReport(dry_run=dry_run)
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                records.append((number, parse_record(line)))
            except RecordError as error:
                report.outcomes.append(ImportOutcome(number, "error", detail=str(error)))
        return self.import_records(records, report, update=update, scope=scope, source=source)

    def import_from(self, kind: str, path: Path, *, dry_run: bool = False, update: bool = False) -> ImportReport:
        """Import another tool's file or folder (`vault/importers.py`: claude, basic-memory, mcp-memory-json,
        cline). A file in a folder that cannot be read or used is an `error` naming it; the rest is imported."""
        from aimate_memory.vault.importers import IMPORTERS

        if kind not in IMPORTERS:
            raise InvalidInputError(f"unknown importer {kind}", f"use one of: {', '.join(IMPORTERS)}")
        importer = IMPORTERS[kind]
        path = Path(path)
        files, unreadable = _read_source(path, importer.patterns)
        imported = importer.parse(files, _origin(path))
        problems = unreadable + imported.problems
        if path.is_file() and problems and not imported.records:
            raise InvalidInputError(f"{path}: {problems[0][1]}", f"is it a {kind} file?")
        report = ImportReport(dry_run=dry_run)
        report.outcomes.extend(ImportOutcome(0, "error", path=name, detail=problem) for name, problem in problems)
        numbered = list(enumerate(imported.records, start=1))
        return self.import_records(numbered, report, update=update, source=kind)

    def import_records(
        self,
        records: Iterable[tuple[int, MemoryRecord]],
        report: ImportReport | None = None,
        *,
        update: bool = False,
        scope: str | None = None,
        source: str = "import",
    ) -> ImportReport:
        """`import_lines` for records already parsed (the importers' output); `report.dry_run` writes nothing."""
        report = report or ImportReport()
        existing = {memory.id: (vault, memory) for vault in self.vaults for memory in vault.scan().memories}
        pending: dict[str, _Pending] = {}
        seen: dict[str, int] = {}
        for number, record in records:
            try:
                outcome = self._import_one(number, record, existing, seen, update, scope, report.dry_run, pending)
            except AimateError as error:
                outcome = ImportOutcome(number, "error", record.id, detail=error.message)
            report.outcomes.append(outcome)
        for item in pending.values():
            subject = f"memory: import {len(item.changes)} memories ({source})"
            commit = self._record(item.vault, ChangeSet(subject, item.changes))
            if commit is not None and commit.commit:
                report.commits.append(commit.commit)
        return report

    def _import_one(
        self,
        number: int,
        record: MemoryRecord,
        existing: dict[str, tuple[Vault, Memory]],
        seen: dict[str, int],
        update: bool,
        scope: str | None,
        dry_run: bool,
        pending: dict[str, _Pending],
    ) -> ImportOutcome:
        if record.id in seen:
            return ImportOutcome(number, "error", record.id, detail=f"id repeats line {seen[record.id]}")
        seen[record.id] = number
        check_writable_text({"title": record.title, "body": record.body})
        self.guard_secrets(f"{record.title}\n{record.body}")
        text = record.render()
        if record.id in existing:
            vault, memory = existing[record.id]
            rel_path, action = memory.rel_path, "updated"
            if vault.abs_path(rel_path).read_bytes() == text.encode("utf-8"):
                return ImportOutcome(number, "unchanged", record.id, rel_path.as_posix())
            if not update:
                detail = "exists with other content; --update replaces it"
                return ImportOutcome(number, "skipped", record.id, rel_path.as_posix(), detail)
        else:
            vault = self.vault_for(record.scope or scope)
            rel_path, action = _free_path(vault, record), "added"
        if not dry_run:
            vault.write_document(rel_path, record.document())
            pending.setdefault(vault.scope.value, _Pending(vault)).changes.append(
                FileChange("add" if action == "added" else "update", rel_path, f"{action} by import")
            )
        return ImportOutcome(number, action, record.id, rel_path.as_posix())


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


def _read_source(path: Path, patterns: tuple[str, ...]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """The texts an importer gets (by path relative to `path`; a file is keyed by its name), and the files
    that could not be read."""
    from aimate_memory.vault.importers import files_under

    if path.is_dir():
        found, base = list(files_under(path, patterns)), path
        if not found:
            raise InvalidInputError(f"nothing to import in {path}", f"expected files matching {', '.join(patterns)}")
    elif path.is_file():
        found, base = [path], path.parent
    else:
        raise InvalidInputError(f"cannot read {path}: no such file or folder", "give the tool's file or folder")
    files: dict[str, str] = {}
    unreadable: list[tuple[str, str]] = []
    for file in found:
        name = file.relative_to(base).as_posix()
        try:
            files[name] = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            unreadable.append((name, f"cannot read: {error}"))
    return files, unreadable


def _origin(path: Path) -> str:
    """The project an import comes from: the folder's name, or its parent's for a `memory-bank` folder."""
    folder = path.resolve() if path.is_dir() else path.resolve().parent
    return folder.parent.name if folder.name.lower() == "memory-bank" else folder.name
