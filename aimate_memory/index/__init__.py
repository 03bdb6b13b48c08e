"""The index: one SQLite file per vault (metadata + FTS5 + sqlite-vec), derived from the files (docs/design.md §6).

`MemoryIndex` and `RefreshReport` resolve on first use, so that importing one light module (`index.chunking`)
does not load the whole index and the YAML stack behind it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aimate_memory.index.memory_index import MemoryIndex, RefreshReport

__all__ = ["MemoryIndex", "RefreshReport"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from aimate_memory.index import memory_index

        return getattr(memory_index, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
