"""The agent half of the facade through the public Python API: update, core_markdown, perf recording cost."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimate_memory.errors import InvalidInputError
from aimate_memory.index.health import METRICS_KEPT
from aimate_memory.system import MemorySystem


@pytest.fixture
def system(home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    with MemorySystem.open(cwd=workdir) as opened:
        opened.init()
        opened.refresh()
        yield opened


def test_update_fields_and_body_in_one_commit(system: MemorySystem, home: Path) -> None:
    import subprocess

    memory = system.add("部署清单", "1. build")
    updated = system.update(memory.id[:8], tags="部署,release", importance=5, body="1. 构建\n2. Deploy")
    assert updated.tags == ["部署", "release"] and updated.importance == 5 and "Deploy" in updated.body
    subjects = subprocess.run(
        ["git", "-C", str(home / "memory"), "log", "--format=%s"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert subjects[0] == 'memory: update "部署清单"' and subjects[1].startswith("memory: add")
    with pytest.raises(InvalidInputError, match="nothing to update"):
        system.update(memory.id)


def test_core_markdown_skips_templates(system: MemorySystem) -> None:
    assert system.core_markdown().endswith("(no core memories yet)\n")  # the templates hold only comments
    system.remember("我习惯用 Tab 缩进")
    system.remember("Never force-push to main")
    system.refresh()
    text = system.core_markdown()
    assert text.startswith("# Core memory") and "## Global" in text
    # compact, as in the context: a one-line memory is one list line with its id (the title not repeated)
    assert "\n- 我习惯用 Tab 缩进 (" in text and "\n- Never force-push to main (" in text and "<!--" not in text
    assert text.count("Tab 缩进") == 1


def test_perf_recording_is_bounded(system: MemorySystem) -> None:
    # Its cost is a speed figure, not a test's assertion (a 0.2 ms bound failed at load 27): only the bound is.
    index = system.store.index_for(system.global_vault)
    for n in range(METRICS_KEPT):
        index.record_metric("search", float(n % 50), layer="long_term", breakdown={"results": 3})
    index.record_metric("search", 1.0)
    rows = index.conn.execute("SELECT COUNT(*) FROM metrics").fetchone()[0]
    assert rows <= METRICS_KEPT + 500
    stats = {s.operation: s for s in system.perf.summary()}
    assert stats["search"].max_ms == 49.0 and stats["search"].p50_ms <= stats["search"].p95_ms
