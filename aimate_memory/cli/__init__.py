"""The `aimate` command line: a thin layer over `MemorySystem` (docs/design.md §9)."""

from aimate_memory.cli.app import main

__all__ = ["main"]
