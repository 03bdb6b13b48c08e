"""docs/api.md runs as written: every Python block, in order, in one namespace (Chinese and English)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_every_example_in_the_api_doc_runs(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")  # keyword search: no model load in this test
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'demo'\n", encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert len(blocks) >= 5
    namespace: dict = {"PROJECT": str(project)}
    for number, block in enumerate(blocks, start=1):
        try:
            exec(compile(block, f"docs/api.md block {number}", "exec"), namespace)
        except Exception as exc:  # name the block that broke
            raise AssertionError(f"docs/api.md block {number} failed: {exc!r}") from exc
