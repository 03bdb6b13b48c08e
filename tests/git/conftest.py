"""Git test fixtures: real repositories, an identity that does not depend on the machine."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aimate_memory.config import load_config
from aimate_memory.system import MemorySystem
from aimate_memory.vault.roots import Roots


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


def make_system(home: Path, project: Path | None = None, **git_config: object) -> MemorySystem:
    """A MemorySystem on `home` (and `project/.aimate`), with `git.*` overrides."""
    roots = Roots(home, project / ".aimate" if project else None)
    config = load_config(home, roots.project, env={})
    for key, value in git_config.items():
        config._values["git"][key] = value
    return MemorySystem(roots, config=config)


@pytest.fixture
def run_git():
    return git


@pytest.fixture
def new_system():
    return make_system
