"""What a capture did, for the CLI and agents (`--json`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

CaptureAction = Literal["written", "pending", "dropped", "exists", "superseded"]


@dataclass
class CaptureResult:
    """`action`: written (active), pending (awaits review), dropped (confidence too low: nothing written),
    exists (the same text is already a memory: `memory` is that one), superseded (written, and the
    memory `supersedes` names is now `status: superseded`)."""

    action: CaptureAction
    memory: Any | None  # aimate_memory.vault.model.Memory; Any keeps this module free of the vault
    supersedes: str | None
    reason: str

    def to_dict(self, memory_to_dict: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
        return {
            "action": self.action,
            "memory": memory_to_dict(self.memory) if self.memory is not None else None,
            "supersedes": self.supersedes,
            "reason": self.reason,
        }
