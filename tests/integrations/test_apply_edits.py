"""Applying planned edits: backups in one place and exact restores, atomic writes, dry runs that write
nothing, malformed files refused."""

from __future__ import annotations

import json
import stat
from datetime import datetime
from pathlib import Path

import pytest

from aimate_memory.errors import InvalidInputError
from aimate_memory.integrations import claude
from aimate_memory.integrations.apply import apply_edits, unified_diff
from aimate_memory.integrations.backups import BackupStore
from aimate_memory.integrations.edits import Change, plan_edits

NOW = datetime(2026, 11, 24, 9, 30, 5)
USER_SETTINGS = '{\n  "model": "opus",\n  "说明": "保留"\n}\n'


COMPACT = '{"model":"opus","permissions":{"allow":["Bash(ls)","Read"]},"说明":"保留"}'  # no final newline


def _install(store: BackupStore, changes: list[Change]) -> list:
    edits = plan_edits(changes)
    saved = store.before_install(edits, now=NOW)
    outcomes = apply_edits(edits, backups=saved)
    store.after_install(edits)
    return outcomes


def _uninstall(store: BackupStore, changes: list[Change]) -> tuple[list, list[Path]]:
    edits = store.exact_restores(plan_edits(changes))
    outcomes = apply_edits(edits)
    return outcomes, store.after_uninstall(edits)


def test_backups_live_in_the_store_and_uninstall_gives_back_the_exact_bytes(tmp_path: Path) -> None:
    home, store = tmp_path / "home", BackupStore(tmp_path / "aimate" / "state" / "backups")
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(COMPACT, encoding="utf-8")
    outcomes = _install(store, [Change(settings, claude.add_hooks)])
    assert outcomes[0].action == "updated" and outcomes[0].backup.parent.parent == store.root
    assert outcomes[0].backup.read_text(encoding="utf-8") == COMPACT
    assert stat.S_IMODE(outcomes[0].backup.stat().st_mode) == 0o600 and stat.S_IMODE(store.root.stat().st_mode) == 0o700
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]  # nothing beside it
    assert _install(store, [Change(settings, claude.add_hooks)])[0].action == "unchanged"  # the original stays
    outcomes, kept = _uninstall(store, [Change(settings, claude.remove_hooks)])
    assert settings.read_text(encoding="utf-8") == COMPACT  # was equal JSON with its arrays expanded
    assert (outcomes[0].action, kept, store.files()) == ("updated", [], [])


def test_a_file_changed_since_install_is_edited_and_its_backup_kept(tmp_path: Path) -> None:
    store = BackupStore(tmp_path / "backups")
    settings = tmp_path / "settings.json"
    settings.write_text(USER_SETTINGS, encoding="utf-8")
    _install(store, [Change(settings, claude.add_hooks)])
    data = json.loads(settings.read_text(encoding="utf-8"))
    settings.write_text(json.dumps({**data, "theme": "dark"}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    _, kept = _uninstall(store, [Change(settings, claude.remove_hooks)])
    assert json.loads(settings.read_text(encoding="utf-8")) == {**json.loads(USER_SETTINGS), "theme": "dark"}
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8") == USER_SETTINGS and store.files() == kept


def test_a_folder_install_made_goes_when_uninstall_empties_it(tmp_path: Path) -> None:
    store = BackupStore(tmp_path / "backups")
    kimi = tmp_path / "home" / ".kimi"
    (tmp_path / "home").mkdir()
    _install(store, [Change(kimi / "mcp.json", claude.add_server)])
    assert (kimi / "mcp.json").exists() and store.files() == []  # nothing to back up: there was no file
    _uninstall(store, [Change(kimi / "mcp.json", claude.remove_server)])
    assert not kimi.exists() and (tmp_path / "home").exists()


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


def test_malformed_file_stops_the_plan_before_any_write(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    bad.write_text('{"hooks": ', encoding="utf-8")
    with pytest.raises(InvalidInputError) as caught:
        plan_edits([Change(good, claude.add_server), Change(bad, claude.add_hooks)])
    assert str(bad) in caught.value.message and "nothing was written" in caught.value.hint
    assert not good.exists() and bad.read_text(encoding="utf-8") == '{"hooks": '
