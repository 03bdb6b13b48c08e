"""Backups of the assistants' config files, in one place: `$AIMATE_HOME/state/backups/`.

`install` copies each user file it is about to change there (never beside it: no `*.aimate-backup-*` in `~`,
`~/.claude` or the project) and notes in `manifest.json` what it wrote (a sha256) and which folders it made.
`uninstall` then gives back the exact bytes: a file still holding what install wrote gets its original back
(or is removed when there was none, with the folders install made, once empty). A file changed since —
by the person or by the client — is edited instead (only our entries removed), and its backup stays listed.
Backups may hold a client's tokens: the folder is 0700, each file 0600."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from aimate_memory.integrations.edits import FileEdit
from aimate_memory.vault.atomic import atomic_write_bytes
from aimate_memory.vault.roots import STATE_DIR, aimate_home

MANIFEST = "manifest.json"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Backup:
    """One file's state before the first install that changed it."""

    path: Path  # the config file
    copy: Path | None  # its bytes before install; None: there was no file
    installed_sha256: str | None  # what install last wrote there (None: install deleted it)
    made_dirs: tuple[Path, ...]  # folders install created for it, deepest first

    def to_json(self) -> dict[str, Any]:
        return {
            "copy": str(self.copy) if self.copy else None,
            "installed_sha256": self.installed_sha256,
            "made_dirs": [str(folder) for folder in self.made_dirs],
        }

    @classmethod
    def from_json(cls, path: str, data: dict[str, Any]) -> Backup:
        copy = data.get("copy")
        return cls(
            Path(path),
            Path(copy) if copy else None,
            data.get("installed_sha256"),
            tuple(Path(folder) for folder in data.get("made_dirs", [])),
        )


class BackupStore:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root or aimate_home() / STATE_DIR / "backups"

    # -- the manifest --------------------------------------------------------------------------

    def entries(self) -> dict[Path, Backup]:
        try:
            data = json.loads((self.root / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {Path(path): Backup.from_json(path, entry) for path, entry in data.items() if isinstance(entry, dict)}

    def _save(self, entries: dict[Path, Backup]) -> None:
        self._make_root()
        text = json.dumps({str(path): entry.to_json() for path, entry in entries.items()}, indent=2)
        atomic_write_bytes(self.root / MANIFEST, (text + "\n").encode("utf-8"))
        os.chmod(self.root / MANIFEST, 0o600)

    def _make_root(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o700)

    def files(self) -> list[Path]:
        """The saved copies, oldest first (what `uninstall` lists)."""
        return sorted(entry.copy for entry in self.entries().values() if entry.copy and entry.copy.exists())

    # -- install -------------------------------------------------------------------------------

    def before_install(self, edits: list[FileEdit], now: datetime | None = None) -> dict[Path, Path]:
        """Save each user file about to change (the first time only: a second install keeps the original)
        and the folders its write will create. Returns config file → its saved copy."""
        entries = self.entries()
        stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
        saved: dict[Path, Path] = {}
        for edit in edits:
            if not (edit.backup and edit.changed) or edit.path in entries:
                continue
            copy = None
            if edit.old is not None:
                copy = self._copy_of(edit.path, edit.old, stamp)
                saved[edit.path] = copy
            entries[edit.path] = Backup(edit.path, copy, None, _missing_dirs(edit.path.parent))
        if saved or any(edit.backup and edit.changed for edit in edits):
            self._save(entries)
        return saved

    def after_install(self, edits: list[FileEdit]) -> None:
        """Note what install wrote, so uninstall knows whether the file is still ours to give back."""
        entries = self.entries()
        for edit in edits:
            if edit.backup and edit.changed and edit.path in entries:
                written = _sha(edit.new) if edit.new is not None else None
                entries[edit.path] = replace(entries[edit.path], installed_sha256=written)
        self._save(entries)

    def _copy_of(self, path: Path, text: str, stamp: str) -> Path:
        folder = self.root / stamp
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        # The path, flattened: ~/.claude/settings.json and {project}/.claude/settings.json stay apart.
        name = "_".join(part for part in path.parts if part not in ("/", "\\")).lstrip(".") or path.name
        copy = folder / name
        counter = 1
        while copy.exists():
            copy = folder / f"{name}.{counter}"
            counter += 1
        copy.write_bytes(text.encode("utf-8"))
        os.chmod(copy, 0o600)
        return copy

    # -- uninstall -----------------------------------------------------------------------------

    def exact_restores(self, edits: list[FileEdit]) -> list[FileEdit]:
        """Uninstall's plan with each file that still holds what install wrote set back to its original
        bytes (or to no file); other files keep the edit their planner made."""
        entries = self.entries()
        restored = []
        for edit in edits:
            entry = entries.get(edit.path)
            if entry is not None and edit.old is not None and _sha(edit.old) == entry.installed_sha256:
                original = _read(entry.copy) if entry.copy is not None else None
                if entry.copy is None or original is not None:
                    edit = replace(edit, new=original)
            restored.append(edit)
        return restored

    def after_uninstall(self, edits: list[FileEdit]) -> list[Path]:
        """Forget the files given back exactly (their copies removed), remove the folders install made that
        are empty now. Returns the copies still kept (files changed since install)."""
        entries = self.entries()
        for edit in edits:
            entry = entries.get(edit.path)
            if entry is None:
                continue
            original = _read(entry.copy) if entry.copy is not None else None
            if edit.new != original:
                continue  # not given back as it was: its backup stays
            for folder in entry.made_dirs:
                with contextlib.suppress(OSError):
                    folder.rmdir()  # only when empty
            if entry.copy is not None:
                with contextlib.suppress(OSError):
                    entry.copy.unlink()
                with contextlib.suppress(OSError):
                    entry.copy.parent.rmdir()
            del entries[edit.path]
        if entries or (self.root / MANIFEST).exists():
            self._save(entries)
        paths = {edit.path for edit in edits}
        return sorted(e.copy for p, e in entries.items() if p in paths and e.copy is not None and e.copy.exists())


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _missing_dirs(folder: Path) -> tuple[Path, ...]:
    """The folders a write into `folder` would create, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return tuple(missing)
