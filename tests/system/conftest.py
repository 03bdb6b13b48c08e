"""Fixtures of the system tests that need the real models: the run's model cache for each module, the models
loaded once per module, and a home whose capture reads sentences with USE (conflicts, restatements)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import in_process, linked_models

if TYPE_CHECKING:
    from aimate_memory.embedding.lazy import LazyEmbedder
    from aimate_memory.system import MemorySystem


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> Path:
    """The module's model cache folder (`embedding.cache_dir`): links to the run's one (`model_cache`), where
    each module built USE's ready-to-load copy again (seconds of CPU; the build is tested in tests/embedding)."""
    return linked_models(model_cache, tmp_path_factory.mktemp("models") / "cache")


@pytest.fixture
def system(
    home: Path, models: Path, loaded_models: LazyEmbedder, isolated_git: None, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MemorySystem]:
    """A fresh global vault, opened as a CLI process opens it, with the models the module loaded once
    (`loaded_models`): each test loaded them again in its own system."""
    monkeypatch.setenv("AIMATE_CAPTURE__EMBEDDING", "true")
    monkeypatch.setenv("AIMATE_EMBEDDING__CACHE_DIR", str(models))
    with in_process(home, models=loaded_models) as opened:
        opened.refresh()
        yield opened


def rules_grouped_by_dedupe(
    system: MemorySystem, texts: list[str]
) -> tuple[list[str], dict[tuple[str, ...], set[str]]]:
    """`texts` added as global core rules as typed (`add`, which never asks what a text restates), then what
    `dedupe` groups: the rules' ids, and each group's sorted ids with the methods that joined it."""
    ids = [system.add(text, text, layer="core", category="rule").id for text in texts]
    system.refresh()
    [run] = [run for run in system.upkeep.dedupe() if run.scope == "global"]
    groups = {
        tuple(sorted([group.survivor.id, *(entry.id for entry, _, _ in group.others)])): {
            method for _, _, method in group.others
        }
        for group in run.duplicates
    }
    return ids, groups
