"""The index: one SQLite file per vault (metadata + FTS5 + sqlite-vec), derived from the files (docs/design.md §6)."""

from aimate_memory.index.memory_index import MemoryIndex, SyncReport

__all__ = ["MemoryIndex", "SyncReport"]
