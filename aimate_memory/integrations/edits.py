"""A planned change to one file: where, and the pure function from its current text to the new text.

Every change of an install is planned (files read, transforms run) before the first write, so a malformed
file anywhere means nothing is written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from aimate_memory.errors import InvalidInputError

# Current text (None: no file) → new text (None: delete the file).
Transform = Callable[[str | None], str | None]


class ConfigSyntaxError(ValueError):
    """A config file a planner cannot read; `plan_edits` names the file."""


@dataclass(frozen=True)
class Change:
    path: Path
    transform: Transform
    backup: bool = True  # user config files get a backup; the AGENTS.md block lives in git and does not


@dataclass(frozen=True)
class FileEdit:
    path: Path
    old: str | None
    new: str | None
    backup: bool = True

    @property
    def changed(self) -> bool:
        return self.old != self.new


def read_text(path: Path) -> str | None:
    """The file's text exactly (no newline translation: a CRLF file stays CRLF around our edit)."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"{path}: not UTF-8 text ({exc.reason})", "fix or move the file; nothing was written"
        ) from exc


def plan_edits(changes: list[Change]) -> list[FileEdit]:
    """Read every file and run its transform; a file that cannot be read stops everything, naming it."""
    edits = []
    for change in changes:
        old = read_text(change.path)
        try:
            new = change.transform(old)
        except ConfigSyntaxError as exc:
            raise InvalidInputError(
                f"{change.path}: {exc}", "fix the file (or move it away) and run again; nothing was written"
            ) from exc
        edits.append(FileEdit(change.path, old, new, change.backup))
    return edits
