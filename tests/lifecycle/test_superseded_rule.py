"""Maintenance archives superseded memories after `long_term.archive_after_days` (planner rule 5)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePosixPath

import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.lifecycle.maintenance import run_maintenance
from aimate_memory.lifecycle.planner import Kind, Policy, plan, summarize
from aimate_memory.system import MemorySystem
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.model import Memory

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
POLICY = Policy(archive_after_days=90, archive_exempt_importance=4)


def memory(rel: str, layer: Layer, status: str, updated_days_ago: float, importance: int = 3) -> Memory:
    """A memory record as the vault scan gives it, made in memory: the planner reads no disk."""
    updated = NOW - timedelta(days=updated_days_ago)
    return Memory(
        id=f"id-{rel}",
        rel_path=PurePosixPath(rel),
        scope=Scope.GLOBAL,
        layer=layer,
        category="preference" if layer is Layer.CORE else "decision",
        title=rel,
        tags=[],
        status=status,
        importance=importance,
        created_at=updated - timedelta(days=1),
        updated_at=updated,
        accessed_at=None,
        access_count=0,
        expires_at=None,
        related=[],
        source=None,
        confidence=None,
        body="",
    )


@pytest.mark.parametrize("layer", [Layer.CORE, Layer.LONG_TERM, Layer.SHORT_TERM])
def test_superseded_is_archived_after_the_days_whatever_its_layer_or_importance(layer: Layer) -> None:
    folder = {Layer.CORE: "core", Layer.LONG_TERM: "long_term/decisions", Layer.SHORT_TERM: "short_term/notes"}[layer]
    old = memory(f"{folder}/旧的偏好.md", layer, "superseded", 90, importance=5)
    recent = memory(f"{folder}/recent-choice.md", layer, "superseded", 89.9, importance=1)
    actions = plan([old, recent], {}, NOW, POLICY)
    assert [(a.kind, a.memory_id) for a in actions] == [(Kind.ARCHIVE_SUPERSEDED, old.id)]
    (action,) = actions
    assert action.target_rel_path == PurePosixPath("archive") / old.rel_path
    assert "status" not in action.fields and action.fields["archived_at"] == NOW
    assert action.reason.startswith("superseded 90 days ago")
    assert summarize(actions) == "superseded archived 1"


def test_live_core_never_moves_and_archived_superseded_stays() -> None:
    live_core = memory("core/preferences.md", Layer.CORE, "active", 400)
    already = memory("archive/long_term/decisions/old.md", Layer.LONG_TERM, "superseded", 400)
    already = Memory(**{**already.__dict__, "archived": True})
    assert plan([live_core, already], {}, NOW, POLICY) == []


def test_maintenance_archives_a_capture_superseded_long_ago(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    clock = FixedClock(NOW)
    with MemorySystem.open(global_only=True, clock=clock) as system:
        system.init()
        old = system.remember("I prefer tabs for indentation in Python code").memory
        new = system.remember("I prefer tabs for indentation in all Python code")
        assert old is not None and new.supersedes == old.id
        clock.advance(days=91)
        [run] = run_maintenance(system.store)
        assert [(a.kind, a.memory_id) for a in run.actions] == [(Kind.ARCHIVE_SUPERSEDED, old.id)]
        moved = {m.id: m for m in system.global_vault.scan().memories}
        assert moved[old.id].archived and moved[old.id].status == "superseded"
        assert moved[old.id].rel_path == PurePosixPath("archive") / old.rel_path
        assert new.memory is not None and moved[new.memory.id].rel_path == new.memory.rel_path
