"""The facade: `MemorySystem` composes the vault, index, retrieval, lifecycle and git packages."""

from aimate_memory.system.facade import MemorySystem
from aimate_memory.system.memories import Problem

__all__ = ["MemorySystem", "Problem"]
