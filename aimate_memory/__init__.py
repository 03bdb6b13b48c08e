"""AIMate memory: Markdown-first, git-friendly long-term memory for AI coding assistants.

from aimate_memory import MemorySystem
"""

from typing import Any

__version__ = "0.1.0"
__all__ = ["MemorySystem", "__version__"]


def __getattr__(name: str) -> Any:
    # Resolved on first use so that `aimate --help` does not pay for the YAML and SQLite stack.
    if name == "MemorySystem":
        from aimate_memory.system import MemorySystem

        return MemorySystem
    raise AttributeError(f"module 'aimate_memory' has no attribute {name!r}")
