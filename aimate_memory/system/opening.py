"""Opening the facade for a command that is about to search: the embedding model starts loading on a thread
first, and the facade is imported, the index synced and the keyword half searched while it loads (ONNX Runtime
builds its session without holding the GIL). The model is the longest part of a cold search: ~0.28 s against
the facade's 0.1 s of imports (docs/benchmarks.md, "Cold start"). This module imports only what that needs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aimate_memory.system.facade import MemorySystem


def open_system(project: Path | None = None, global_only: bool = False, load_model: bool = False) -> MemorySystem:
    """`MemorySystem.open(project=…, global_only=…)`; with `load_model`, its embedder already loading."""
    from aimate_memory.config import load_config
    from aimate_memory.embedding.lazy import embedder_for
    from aimate_memory.vault.roots import Roots, detect_roots

    roots = detect_roots(project=project, global_only=global_only)
    config = load_config(roots.home, roots.project)
    embedder = embedder_for(config, Roots.state_dir(roots.home))
    if load_model:
        embedder.start_loading()
    from aimate_memory.system.facade import MemorySystem

    return MemorySystem(roots, config, embedder=embedder)
