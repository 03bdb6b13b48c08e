"""What a tool action did to a vault's files, with reasons: the seam the git layer commits through."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath


@dataclass(frozen=True)
class FileChange:
    action: str  # add | update | move | delete
    path: PurePosixPath  # relative to the vault root; the new path for a move
    reason: str
    old_path: PurePosixPath | None = None

    def describe(self) -> str:
        if self.old_path is not None and self.old_path != self.path:
            return f"{self.action} {self.old_path} → {self.path}: {self.reason}"
        return f"{self.action} {self.path}: {self.reason}"

    def to_dict(self) -> dict[str, str | None]:
        return {
            "action": self.action,
            "path": self.path.as_posix(),
            "old_path": self.old_path.as_posix() if self.old_path is not None else None,
            "reason": self.reason,
        }


@dataclass
class ChangeSet:
    """One user-visible action (add, set, maintenance run, …) = one commit (docs/design.md §8)."""

    subject: str
    changes: list[FileChange] = field(default_factory=list)
    # A person checked the text and said it is not a secret (`--allow-secret`): the commit guard lets it by.
    allow_secret: bool = False
    # Blob ids (`hashing.git_blob_id`) of contents the writer scanned for secrets with the configured keywords
    # and found clean: the commit guard does not read them again (a bulk import scanned each once).
    scanned_clean: frozenset[str] = frozenset()

    @property
    def paths(self) -> list[PurePosixPath]:
        touched: list[PurePosixPath] = []
        for change in self.changes:
            touched.append(change.path)
            if change.old_path is not None:
                touched.append(change.old_path)
        return touched

    def body(self) -> str:
        return "\n".join(f"- {change.describe()}" for change in self.changes)

    def __bool__(self) -> bool:
        return bool(self.changes)
