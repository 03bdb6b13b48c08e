"""The embedding models made ready before the first search (`aimate mem init`, `install`): which the
config will load and are not built yet, and building them with a progress callback (embedding/prepare.py;
issue 38: a first search must not spend seconds building a cache and then report only its own
milliseconds)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aimate_memory.system.facade import MemorySystem


def models_to_prepare(system: MemorySystem) -> list[str]:
    """The models this system's config will load whose cache is not built yet (names for a person)."""
    from aimate_memory.embedding.prepare import missing_models

    settings = system.store.embedder.settings
    return missing_models(settings, bool(system.config.get("capture.embedding")))


def prepare_models(system: MemorySystem, names: list[str], progress: Callable[[str, int, int], None]) -> float:
    """Build the named models' caches; the seconds it took."""
    from aimate_memory.embedding.prepare import build_models

    started = time.monotonic()
    build_models(names, Path(system.store.embedder.settings["cache_dir"]), progress)
    return time.monotonic() - started
