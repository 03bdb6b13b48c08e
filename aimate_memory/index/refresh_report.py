"""What a refresh tells its caller: the counts of a `RefreshReport`, and progress as it goes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Progress = Callable[[str, int, int], None]  # (phase, done, total)


@dataclass
class RefreshReport:
    scanned: int = 0
    unchanged: int = 0
    added: int = 0
    updated: int = 0
    moved: int = 0
    deleted: int = 0
    touched: int = 0
    errors: int = 0
    excluded: int = 0
    embedded_chunks: int = 0
    rebuilt: bool = False
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    #: files this refresh read whose text the tool has not seen (no `content_hash`, or a body that no longer
    #: matches it: hand-made or hand-edited), vault-relative: what anchoring looks at after it
    hand_edited_paths: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return self.added + self.updated + self.moved + self.deleted

    def as_dict(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key != "hand_edited_paths"}
