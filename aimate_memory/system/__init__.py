"""The facade: `MemorySystem`, one class holding the collaborators (`store`, `retrieval`, `memories`,
`conflicts`, `capture`, `sessions`, `context`, `git`, `memory_page`, `transfer`, `upkeep`, `anchoring`) that
put the vault, index, retrieval, lifecycle and git packages to work (docs/architecture.md, "The facade").

The names resolve on first use, so that `system.opening` can start a model loading before the facade's
imports (0.1 s) are paid."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aimate_memory.system.facade import MemorySystem
    from aimate_memory.system.memories import Problem

__all__ = ["MemorySystem", "Problem"]


def __getattr__(name: str) -> Any:
    if name == "MemorySystem":
        from aimate_memory.system.facade import MemorySystem

        return MemorySystem
    if name == "Problem":
        from aimate_memory.system.memories import Problem

        return Problem
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
