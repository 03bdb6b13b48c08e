"""Applying planned edits: backups, atomic writes, dry runs that write nothing, malformed files refused."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from aimate_memory.errors import InvalidInputError
from aimate_memory.integrations import claude
from aimate_memory.integrations.apply import apply_edits, unified_diff
from aimate_memory.integrations.edits import Change, plan_edits

NOW = datetime(2026, 11, 24, 9, 30, 5)
USER_SETTINGS = '{\n  "model": "opus",\n  "说明": "保留"\n}\n'


def test_changed_file_is_backed_up_then_replaced(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(USER_SETTINGS, encoding="utf-8")
    outcomes = apply_edits(plan_edits([Change(settings, claude.add_hooks)]), now=NOW)
    backup = settings.with_name("settings.json.aimate-backup-20261124093005")
    assert outcomes[0].action == "updated" and outcomes[0].backup == backup
    assert backup.read_text(encoding="utf-8") == USER_SETTINGS
    assert json.loads(settings.read_text(encoding="utf-8"))["说明"] == "保留"
    # A second change within the same second keeps the first backup.
    outcomes = apply_edits(plan_edits([Change(settings, claude.remove_hooks)]), now=NOW)
    assert outcomes[0].backup == backup.with_name(backup.name + "-1")
    assert settings.read_text(encoding="utf-8") == USER_SETTINGS
    assert apply_edits(plan_edits([Change(settings, claude.remove_hooks)]), now=NOW)[0].action == "unchanged"


def test_dry_run_writes_nothing_and_the_diff_shows_the_change(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(USER_SETTINGS, encoding="utf-8")
    created = tmp_path / ".mcp.json"
    edits = plan_edits([Change(settings, claude.add_hooks), Change(created, claude.add_server)])
    outcomes = apply_edits(edits, dry_run=True)
    assert [o.action for o in outcomes] == ["updated", "created"]
    assert "would be created" in outcomes[1].describe(dry_run=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]
    assert settings.read_text(encoding="utf-8") == USER_SETTINGS
    diff = unified_diff(edits[0])
    assert diff.startswith(f"--- {settings}\n+++ {settings}\n")
    assert '+            "command": "aimate mem hook session-start"' in diff
    assert unified_diff(edits[1]).startswith(f"--- /dev/null\n+++ {created}\n")


def test_emptied_file_is_deleted_with_a_backup(tmp_path: Path) -> None:
    mcp = tmp_path / ".mcp.json"
    apply_edits(plan_edits([Change(mcp, claude.add_server)]), now=NOW)
    outcomes = apply_edits(plan_edits([Change(mcp, claude.remove_server)]), now=NOW)
    assert outcomes[0].action == "deleted" and not mcp.exists() and outcomes[0].backup.exists()


def test_malformed_file_stops_the_plan_before_any_write(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    bad.write_text('{"hooks": ', encoding="utf-8")
    with pytest.raises(InvalidInputError) as caught:
        plan_edits([Change(good, claude.add_server), Change(bad, claude.add_hooks)])
    assert str(bad) in caught.value.message and "nothing was written" in caught.value.hint
    assert not good.exists() and bad.read_text(encoding="utf-8") == '{"hooks": '
