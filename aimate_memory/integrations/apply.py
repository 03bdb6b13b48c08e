"""Carrying out planned edits: a timestamped backup beside each config file changed, atomic writes, or with
`dry_run` a unified diff and no write at all."""

from __future__ import annotations

import difflib
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from aimate_memory.integrations.edits import FileEdit
from aimate_memory.vault.atomic import atomic_write_text

BACKUP_SUFFIX = ".aimate-backup-"


@dataclass(frozen=True)
class Outcome:
    path: Path
    action: str  # "unchanged" | "created" | "updated" | "deleted" (with dry_run: what would happen)
    backup: Path | None = None

    def describe(self, dry_run: bool) -> str:
        verb = f"would be {self.action}" if dry_run and self.action != "unchanged" else self.action
        return f"{verb}: {self.path}" + (f"  (backup {self.backup.name})" if self.backup else "")


def unified_diff(edit: FileEdit) -> str:
    lines = difflib.unified_diff(
        (edit.old or "").splitlines(keepends=True),
        (edit.new or "").splitlines(keepends=True),
        fromfile=str(edit.path) if edit.old is not None else "/dev/null",
        tofile=str(edit.path) if edit.new is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def apply_edits(edits: list[FileEdit], dry_run: bool = False, now: datetime | None = None) -> list[Outcome]:
    stamp = (now or datetime.now()).strftime("%Y%m%d%H%M%S")
    return [_apply(edit, dry_run, stamp) for edit in edits]


def _apply(edit: FileEdit, dry_run: bool, stamp: str) -> Outcome:
    if not edit.changed:
        return Outcome(edit.path, "unchanged")
    action = "created" if edit.old is None else "deleted" if edit.new is None else "updated"
    if dry_run:
        return Outcome(edit.path, action)
    backup = _backup(edit.path, stamp) if edit.backup and edit.old is not None else None
    if edit.new is None:
        edit.path.unlink()
    else:
        atomic_write_text(edit.path, edit.new)
    return Outcome(edit.path, action, backup)


def _backup(path: Path, stamp: str) -> Path:
    # Two runs in the same second (install, then uninstall) must not overwrite the first backup.
    backup = path.with_name(f"{path.name}{BACKUP_SUFFIX}{stamp}")
    counter = 1
    while backup.exists():
        backup = path.with_name(f"{path.name}{BACKUP_SUFFIX}{stamp}-{counter}")
        counter += 1
    shutil.copy2(path, backup)
    return backup
