"""Git test fixtures: real repositories, an identity that does not depend on the machine."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from aimate_memory.config import load_config
from aimate_memory.system import MemorySystem
from aimate_memory.vault.roots import Roots

if TYPE_CHECKING:
    from aimate_memory.embedding.lazy import LazyEmbedder

# The git tests read and write files and commits: keyword-only, as `cli` runs. With the defaults' vectors
# on, a fresh home's first index refresh built the model cache in the test process (~5 s of CPU a test,
# 2026-11-29); a test that needs the models passes the module's loaded ones (`loaded_models`).
KEYWORD_ONLY = {"AIMATE_EMBEDDING__ENABLED": "false", "AIMATE_CAPTURE__EMBEDDING": "false"}


@pytest.fixture(autouse=True)
def git_identity(isolated_git: None) -> None:
    """Every git test runs with git isolated from the machine (tests/conftest.py)."""


def git(cwd: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(
        ["git", "-c", "core.quotepath=false", *args], cwd=cwd, capture_output=True, text=True, check=False
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def make_system(
    home: Path, project: Path | None = None, models: LazyEmbedder | None = None, **git_config: object
) -> MemorySystem:
    """A MemorySystem on `home` (and `project/.aimate`), with `git.*` overrides; keyword-only unless given the
    loaded `models` (`loaded_models`)."""
    from aimate_memory.embedding.lazy import LazyEmbedder

    roots = Roots(home, project / ".aimate" if project else None)
    config = load_config(home, roots.project, env={} if models is not None else KEYWORD_ONLY)
    for key, value in git_config.items():
        config._values["git"][key] = value
    embedder = LazyEmbedder(models.settings, models.get()) if models is not None else None
    return MemorySystem(roots, config=config, embedder=embedder)


@pytest.fixture
def run_git():
    return git


@pytest.fixture
def new_system():
    return make_system
