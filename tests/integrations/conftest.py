"""What the hook and assistant tests start from: a project initialized as `aimate mem init` leaves it, and the
memories a test is not about written in the test process."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import in_process, isolate_git

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem


@contextmanager
def in_project(home: Path, project: Path) -> Iterator[MemorySystem]:
    """`in_process(home, project)`, keyword-only as `cli` runs, with git isolated and a fixed identity for its
    commits alone (`isolate_git`, in `project`'s parent folder), whatever the test's own git settings: for the
    memories a test writes before the command it is about (`add`, `remember` and `session append` have tests of
    their own as commands), each a CLI process of ~0.25 s of CPU otherwise."""
    with pytest.MonkeyPatch.context() as patch:
        isolate_git(patch, project.parent)
        with in_process(home, project) as system:
            yield system


def init_project(home: Path, project: Path) -> Path:
    """`project` (a git repository) and `home` as `aimate mem init` run in `project` leaves them, done in the test
    process through what the command calls (cli/served.py `_init`: `MemorySystem.init`, the files made private,
    the project registered for the daemon): the same files, settings and registry (compared file by file), without
    a CLI process (~0.2 s of CPU) in each of the ~60 hook and assistant tests that only start from it. The models'
    cache is whatever the home already has (`cli_vectors` links it). `init` itself is tested in
    tests/cli/test_cli_memory.py and tests/cli/test_private_files.py. Returns `project`."""
    from aimate_memory.watch.registry import register_project

    with in_project(home, project) as system:  # `in_process` runs `MemorySystem.init`
        system.store.make_private()
        register_project(home, project, notify_daemon=False)  # no daemon runs in these tests
    return project
