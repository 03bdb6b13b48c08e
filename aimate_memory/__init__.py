"""AIMate memory: Markdown-first, git-friendly long-term memory for AI coding assistants."""

__version__ = "0.1.0"

from aimate_memory.system import MemorySystem

__all__ = ["MemorySystem", "__version__"]
