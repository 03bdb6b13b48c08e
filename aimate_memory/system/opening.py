"""Opening the facade for a command that is about to search: the embedding model starts loading on a thread,
and embedding the query, before anything else; the facade is imported, the index refreshed and the keyword half
searched meanwhile (ONNX Runtime works without holding the GIL). Loading the models and embedding one query is
the longest part of a cold search: ~0.3 s against the facade's 0.1 s of imports (docs/benchmarks.md, "Cold
start"). This module imports only what that needs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aimate_memory.system.facade import MemorySystem


def open_system(
    project: Path | None = None,
    global_only: bool = False,
    search_for: str | None = None,
    *,
    cwd: Path | None = None,
    config_env: dict[str, str] | None = None,
    say_models_missing: Callable[[list[str]], None] | None = None,
) -> MemorySystem:
    """`MemorySystem.open(cwd=…, project=…, global_only=…)`; with `search_for` (the query the caller will
    search), its embedder already loading and embedding that query; `config_env`: settings given as
    environment variables (`AIMATE_EMBEDDING__ENABLED=false`) over the process's own. `say_models_missing`
    is told the models that load will first build (their cache missing: `init` built none here, or an upgrade
    changed its format), so a person is not left waiting in silence (issue 38)."""
    import os

    from aimate_memory.config import load_config
    from aimate_memory.embedding.lazy import embedder_for
    from aimate_memory.vault.roots import Roots, detect_roots

    roots = detect_roots(cwd=cwd, project=project, global_only=global_only)
    env = {**os.environ, **config_env} if config_env else None
    config = load_config(roots.home, roots.project, env=env)
    embedder = embedder_for(config, Roots.state_dir(roots.home))
    if search_for is not None and search_for.strip():
        embedder.start_loading(search_for.strip())  # what the search embeds: the query stripped
        if say_models_missing is not None:  # looked at after the start: the loading thread need not wait for it
            from aimate_memory.embedding.prepare import missing_models

            missing = missing_models(embedder.settings, bool(config.get("capture.embedding")))
            if missing:
                say_models_missing(missing)
    from aimate_memory.system.facade import MemorySystem

    return MemorySystem(roots, config, embedder=embedder)
