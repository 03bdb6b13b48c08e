"""When a daemon leaves on its own (watch/leaving.py): the pure rule, and the home's mark on real folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from aimate_memory.watch.leaving import HomeMark, reason_to_leave


@pytest.mark.parametrize(
    ("home_there", "autostarted", "idle", "limit", "leaves"),
    [
        (False, False, 0.0, 7200.0, "deleted"),  # whoever started it: nothing left to serve
        (False, True, 0.0, 0.0, "deleted"),
        (True, True, 7200.0, 7200.0, "idle"),
        (True, True, 7199.0, 7200.0, None),
        (True, False, 1e9, 7200.0, None),  # started by the person: theirs to stop
        (True, True, 1e9, 0.0, None),  # idle_exit_minutes 0: never
    ],
)
def test_reason_to_leave(home_there: bool, autostarted: bool, idle: float, limit: float, leaves: str | None) -> None:
    reason = reason_to_leave(home_there, autostarted, idle, limit)
    assert (reason is None) if leaves is None else (reason is not None and leaves in reason)


@pytest.mark.parametrize("name", ["aimate-home", "记忆之家"])
def test_a_home_deleted_or_replaced_is_not_still_there(tmp_path: Path, name: str) -> None:
    home = tmp_path / name
    home.mkdir()
    mark = HomeMark.of(home)
    assert mark.still_there(home)
    home.rename(tmp_path / "moved")  # moved away, and a new folder made at its path while the old exists
    home.mkdir()
    assert not mark.still_there(home)
    assert mark.still_there(tmp_path / "moved")
    shutil.rmtree(home)
    assert not mark.still_there(home)
