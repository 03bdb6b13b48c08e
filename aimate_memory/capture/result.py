"""What a capture did, for the CLI and agents (`--json`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

CaptureAction = Literal["written", "pending", "dropped", "exists", "conflict"]


@dataclass
class CaptureResult:
    """`action`: written (active), pending (awaits review), dropped (confidence too low: nothing written),
    exists (the same text is already a memory: `memory` is that one), conflict (it may contradict the active
    memories in `conflicts`, so it was written pending for the person to choose: docs/design.md, "Conflicts").
    `supersedes`: the id of the memory this capture replaced (it is now `status: superseded`), with action
    written."""

    action: CaptureAction
    memory: Any | None  # aimate_memory.vault.model.Memory; Any keeps this module free of the vault
    supersedes: str | None
    reason: str
    conflicts: tuple[Mapping[str, Any], ...] = ()  # each `system.records.ConflictRecord.to_dict()`

    def to_dict(self, memory_to_dict: Callable[[Any], dict[str, Any]] | None = None) -> dict[str, Any]:
        """`memory_to_dict` defaults to the memory's `public_dict()` (what `show --json` prints)."""
        convert = memory_to_dict or (lambda memory: memory.public_dict())
        return {
            "action": self.action,
            "memory": convert(self.memory) if self.memory is not None else None,
            "supersedes": self.supersedes,
            "reason": self.reason,
            "conflicts": [dict(conflict) for conflict in self.conflicts],
        }
