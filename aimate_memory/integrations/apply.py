"""Carrying out planned edits: atomic writes, or with `dry_run` a unified diff and no write at all."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from aimate_memory.integrations.edits import FileEdit
from aimate_memory.vault.atomic import atomic_write_text


@dataclass(frozen=True)
class EditOutcome:
    path: Path
    action: str  # "unchanged" | "created" | "updated" | "deleted" (with dry_run: what would happen)
    backup: Path | None = None

    def describe(self, dry_run: bool) -> str:
        verb = f"would be {self.action}" if dry_run and self.action != "unchanged" else self.action
        return f"{verb}: {self.path}" + (f"  (backup {self.backup})" if self.backup else "")


def unified_diff(edit: FileEdit) -> str:
    lines = difflib.unified_diff(
        (edit.old or "").splitlines(keepends=True),
        (edit.new or "").splitlines(keepends=True),
        fromfile=str(edit.path) if edit.old is not None else "/dev/null",
        tofile=str(edit.path) if edit.new is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def apply_edits(
    edits: list[FileEdit], dry_run: bool = False, backups: dict[Path, Path] | None = None
) -> list[EditOutcome]:
    """Write (or, dry, describe) each edit; `backups`: the saved copy of each file, named in its outcome
    (`integrations/backups.py` keeps them in `$AIMATE_HOME/state/backups/`, never beside the file)."""
    return [_apply(edit, dry_run, (backups or {}).get(edit.path)) for edit in edits]


def _apply(edit: FileEdit, dry_run: bool, backup: Path | None) -> EditOutcome:
    if not edit.changed:
        return EditOutcome(edit.path, "unchanged")
    action = "created" if edit.old is None else "deleted" if edit.new is None else "updated"
    if dry_run:
        return EditOutcome(edit.path, action)
    if edit.new is None:
        edit.path.unlink()
    else:
        atomic_write_text(edit.path, edit.new)
    return EditOutcome(edit.path, action, backup)
