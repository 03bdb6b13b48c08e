"""kill -9 in the middle of a maintenance run, then a rerun: nothing lost, nothing duplicated or counted twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.lifecycle.maintenance import PENDING_FILE, run_maintenance
from aimate_memory.system import MemorySystem
from aimate_memory.vault.layout import Layer

START = datetime(2026, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=8)))
LATER = START + timedelta(days=20)

# Runs one maintenance pass and SIGKILLs itself at the N-th file unlink: between writing a moved file
# and removing its old copy (three moves), before the pending record is deleted.
KILLER = """
import os, signal, sys
from datetime import datetime
from pathlib import Path
from aimate_memory.clock import FixedClock
from aimate_memory.lifecycle.maintenance import run_maintenance
from aimate_memory.system import MemorySystem

kill_at, now = int(sys.argv[1]), datetime.fromisoformat(sys.argv[2])
calls = 0
real_unlink = Path.unlink

def unlink(self, *args, **kwargs):
    global calls
    calls += 1
    if calls == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    return real_unlink(self, *args, **kwargs)

Path.unlink = unlink
run_maintenance(MemorySystem.open(global_only=True, clock=FixedClock(now)).store)
print("completed", calls)
"""


def _setup(home: Path) -> dict[str, str]:
    with MemorySystem.open(global_only=True, clock=FixedClock(START)) as system:
        system.init()
        ids = {
            "expire1": system.add("过期任务一", "修复 CI", layer=Layer.SHORT_TERM, category="task").id,
            "expire2": system.add("Expired note two", "temp", layer=Layer.SHORT_TERM, category="note").id,
            "promote": system.add("常用的部署命令", "kubectl apply", layer=Layer.SHORT_TERM, category="note").id,
            "used": system.add("Architecture overview", "services", layer=Layer.LONG_TERM, importance=4).id,
        }
        journal = system.store.journal_for(system.global_vault)
        for day in (1, 2, 3):  # promotion wants uses on several days
            journal.record([ids["promote"]] * 2, START + timedelta(days=day))
        journal.record([ids["used"]] * 2, START + timedelta(days=1))
        system.refresh()
    return ids


@pytest.mark.slow
@pytest.mark.parametrize("kill_at", [1, 2, 3, 4])
def test_kill_9_mid_maintenance_then_rerun_completes(home: Path, monkeypatch: pytest.MonkeyPatch, kill_at: int) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    ids = _setup(home)
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, str(kill_at), LATER.isoformat()],
        capture_output=True,
        text=True,
        env={**os.environ},
        timeout=60,
    )
    assert proc.returncode == -9, proc.stderr  # really killed mid-run
    with MemorySystem.open(global_only=True, clock=FixedClock(LATER)) as system:
        [run] = run_maintenance(system.store)
        scan = system.global_vault.scan()
        assert scan.duplicates == [] and scan.errors == []
        found = {m.id: m for m in scan.memories}
        assert set(ids.values()) <= set(found)
        assert found[ids["expire1"]].status == "expired" and found[ids["expire1"]].archived
        assert found[ids["expire2"]].status == "expired" and found[ids["expire2"]].archived
        promoted = found[ids["promote"]]
        assert promoted.layer is Layer.LONG_TERM and promoted.access_count == 0  # uses are never written
        assert found[ids["used"]].rel_path.parts[0] == "long_term" and found[ids["used"]].access_count == 0
        state = system.roots.home / "state"
        assert not (state / PENDING_FILE).exists()
        tallies = system.store.journal_for(system.global_vault).tally()
        assert (tallies[ids["promote"]].count, tallies[ids["used"]].count) == (6, 2)  # the journal keeps them
        # Every change of the killed run is in the rerun's ChangeSet, so the git layer commits it.
        assert run.changeset is not None and len(run.changeset.changes) >= 1
        # The index agrees with the files.
        rows = system.store.index_for(system.global_vault).conn.execute("SELECT id, path FROM memories").fetchall()
        assert {row[0]: row[1] for row in rows}[ids["promote"]] == promoted.rel_path.as_posix()
        [again] = run_maintenance(system.store)
        assert again.actions == [] and again.resumed == []


def test_pending_record_is_plain_json(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    _setup(home)
    proc = subprocess.run(
        [sys.executable, "-c", KILLER, "1", LATER.isoformat()], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == -9
    data = json.loads((home / "state" / PENDING_FILE).read_text(encoding="utf-8"))
    kinds = sorted(action["kind"] for action in data["actions"])
    assert kinds == ["expire", "expire", "promote"]
