"""A caller of the API is told about the number of results in the API's words; the CLI names its flag."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimate_memory.errors import InvalidInputError
from aimate_memory.system import MemorySystem


def test_too_few_results_is_refused_in_each_face_s_words(
    cli, initialized, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    with MemorySystem.open(global_only=True) as system, pytest.raises(InvalidInputError) as refused:
        system.search("缓存 cache", 0)
    assert "number of results must be at least 1" in refused.value.message
    assert "--" not in refused.value.message + (refused.value.hint or "")
    answer = cli("mem", "search", "缓存 cache", "--limit", "0")
    assert answer.code != 0 and "--limit" in answer.err
