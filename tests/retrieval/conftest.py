"""Fixtures of the retrieval tests: the real default models, loaded once per module."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimate_memory.clock import Clock
from aimate_memory.config import load_config
from aimate_memory.embedding.lazy import LazyEmbedder, embedder_for
from aimate_memory.system import MemorySystem
from aimate_memory.vault.roots import Roots
from tests.conftest import linked_models


@pytest.fixture(scope="module")
def loaded(model_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> LazyEmbedder:
    """The real default models, loaded once; a test's own vaults share them through
    `LazyEmbedder(loaded.settings, preloaded=loaded.get())`."""
    home = tmp_path_factory.mktemp("models")
    linked_models(model_cache, home / "state" / "models")
    embedder = embedder_for(load_config(home, None), home / "state")
    assert embedder.get() is not None
    return embedder


def system_with(home: Path, models: LazyEmbedder, clock: Clock) -> MemorySystem:
    """A global-only `MemorySystem` at `home` (made and initialized) that searches with `models`."""
    system = MemorySystem(
        Roots(home, None), load_config(home, None), clock, LazyEmbedder(models.settings, models.get())
    )
    system.init()
    return system
