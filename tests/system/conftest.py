"""Fixtures of the system tests that need the real models: one model cache per module, and a home whose
capture reads sentences with USE (conflicts, restatements)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimate_memory.system import MemorySystem


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One model cache for the module: building USE's ready-to-load copy costs seconds per fresh home."""
    return tmp_path_factory.mktemp("models")


@pytest.fixture
def system(home: Path, workdir: Path, models: Path, isolated_git: None, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AIMATE_CAPTURE__EMBEDDING", "true")
    monkeypatch.setenv("AIMATE_EMBEDDING__CACHE_DIR", str(models))
    with MemorySystem.open(cwd=workdir) as opened:
        opened.init()
        opened.refresh()
        yield opened
