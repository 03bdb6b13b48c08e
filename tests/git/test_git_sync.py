"""Cross-device sync through a bare remote: two homes, concurrent edits, conflicts, never losing commits."""

from __future__ import annotations

from pathlib import Path

import pytest
from git_helpers import pending_at

from aimate_memory.git import init_vault_repo
from aimate_memory.git.sync import sync
from aimate_memory.vault.codec import parse_document
from aimate_memory.vault.layout import Layer

TITLE = "选用 Redis 做会话缓存"
BODY = "# 选用 Redis 做会话缓存\n\n延迟低，支持过期时间。\n\n## Why\n\nLatency is low.\n"


@pytest.fixture
def remote(tmp_path: Path, run_git) -> str:
    path = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(path))
    return str(path)


@pytest.fixture
def machines(tmp_path: Path, new_system, remote: str):
    """Machine A with an initialized, pushed vault; machine B with an empty home that synced (cloned)."""
    a = new_system(tmp_path / "home-a", remote=remote)
    a.init()
    init_vault_repo(a.global_vault.root)
    assert "pushed" in sync(a.global_vault.root, remote).actions
    b = new_system(tmp_path / "home-b", remote=remote)
    result = sync(b.global_vault.root, remote)
    assert result.actions == ["cloned"]
    return a, b


def head(run_git, system) -> str:
    return run_git(system.global_vault.root, "rev-parse", "HEAD").strip()


def test_second_machine_gets_the_vault(machines, run_git) -> None:
    a, b = machines
    assert head(run_git, a) == head(run_git, b)
    assert (b.global_vault.root / "core" / "preferences.md").read_text(encoding="utf-8") == (
        a.global_vault.root / "core" / "preferences.md"
    ).read_text(encoding="utf-8")
    assert "aimate_memory.git.merge" in run_git(b.global_vault.root, "config", "merge.aimate-memory.driver")
    memory = a.add(TITLE, BODY, layer=Layer.LONG_TERM, category="decision")
    sync(a.global_vault.root, a.config.get("git.remote"))
    result = sync(b.global_vault.root, b.config.get("git.remote"))
    assert result.actions == ["pulled"] and result.pulled == 1
    assert b.get(memory.id).title == TITLE


def test_concurrent_tag_edits_merge_by_rule(machines, run_git) -> None:
    a, b = machines
    remote = a.config.get("git.remote")
    memory = a.add(TITLE, BODY, layer=Layer.LONG_TERM, category="decision", tags=["cache"])
    sync(a.global_vault.root, remote)
    sync(b.global_vault.root, remote)
    a.set_fields(memory.id, {"tags": ["cache", "redis"], "importance": 4})
    b.set_fields(memory.id, {"tags": ["cache", "会话"]})
    a_commits = set(run_git(a.global_vault.root, "rev-list", "HEAD").split())
    sync(a.global_vault.root, remote)
    result = sync(b.global_vault.root, remote)
    assert result.actions == ["merged", "pushed"] and result.conflicts == []
    sync(a.global_vault.root, remote)
    for system in (a, b):
        text = system.global_vault.abs_path(memory.rel_path).read_text(encoding="utf-8")
        assert "<<<<<<<" not in text and ">>>>>>>" not in text
        merged = system.get(memory.id)
        assert merged.tags == ["cache", "会话", "redis"]  # B merged: its own order, then A's addition
        assert merged.importance == 4
    assert head(run_git, a) == head(run_git, b)
    b_commits = set(run_git(b.global_vault.root, "rev-list", "HEAD").split())
    assert a_commits <= b_commits  # nothing lost
    assert run_git(b.global_vault.root, "log", "-1", "--format=%s").startswith("sync: merge origin/main into main")
    assert pending_at(a.global_vault.root) == [] and pending_at(b.global_vault.root) == []


def test_body_conflict_is_marked_listed_and_held_out(machines, run_git) -> None:
    a, b = machines
    remote = a.config.get("git.remote")
    memory = a.add(TITLE, BODY, layer=Layer.LONG_TERM, category="decision")
    sync(a.global_vault.root, remote)
    sync(b.global_vault.root, remote)
    path_a = a.global_vault.abs_path(memory.rel_path)
    path_b = b.global_vault.abs_path(memory.rel_path)
    # both machines rewrite the same line by hand and commit it
    path_a.write_text(path_a.read_text(encoding="utf-8").replace("Latency is low.", "延迟 1 ms。"), encoding="utf-8")
    path_b.write_text(path_b.read_text(encoding="utf-8").replace("Latency is low.", "延迟 5 ms。"), encoding="utf-8")
    a.git.accept_all()
    b.git.accept_all()
    sync(a.global_vault.root, remote)
    result = sync(b.global_vault.root, remote)
    assert result.conflicts == [memory.rel_path]
    assert "pushed" in result.actions  # the sync completes; the conflict travels marked
    text = path_b.read_text(encoding="utf-8")
    assert "<<<<<<< ours" in text and "延迟 1 ms。" in text and "延迟 5 ms。" in text
    assert not run_git(b.global_vault.root, "ls-files", "-u")  # no half-finished merge
    # out of the index: diagnose reports it and the memory is not in the scan
    problems = [p for p in b.memories.diagnose() if p.kind == "ConflictMarkersError"]
    assert [p.path for p in problems] == [path_b]
    assert memory.id not in {m.id for m in b.memories.scan().memories}
    (change,) = pending_at(b.global_vault.root)
    assert change.status == "conflict" and change.path == memory.rel_path
    assert [item.to_dict()["status"] for item in b.git.pending_changes()] == ["conflict"]
    # a person resolves it; accept commits the resolution, the other machine receives it
    resolved = text.split("<<<<<<< ours\n")[0] + "延迟 1–5 ms。\n"
    path_b.write_text(resolved, encoding="utf-8")
    parse_document(resolved, path_b)
    b.git.accept([str(memory.rel_path)])
    sync(b.global_vault.root, remote)
    sync(a.global_vault.root, remote)
    assert path_a.read_text(encoding="utf-8") == resolved


def test_archive_on_one_machine_edit_on_the_other(machines, run_git) -> None:
    a, b = machines
    remote = a.config.get("git.remote")
    memory = a.add(TITLE, BODY, layer=Layer.LONG_TERM, category="decision", tags=["cache"])
    sync(a.global_vault.root, remote)
    sync(b.global_vault.root, remote)
    archived = a.remove(memory.id)  # lifecycle move on A
    b.set_fields(memory.id, {"tags": ["cache", "redis"]})  # edit on B
    sync(a.global_vault.root, remote)
    result = sync(b.global_vault.root, remote)
    assert result.conflicts == []
    merged = b.get(memory.id)
    assert merged.rel_path == archived.rel_path and merged.tags == ["cache", "redis"]
    assert merged.status == "archived"
    assert not b.global_vault.abs_path(memory.rel_path).exists()
    history = b.git.log(memory.id)
    assert {"add", "update", "move"} <= {item.entry.action for item in history}


def test_machine_that_initialized_first_adopts_the_remote(tmp_path, new_system, machines, run_git) -> None:
    a, _ = machines
    remote = a.config.get("git.remote")
    c = new_system(tmp_path / "home-c", remote=remote)
    c.init()  # its own starter files with their own ids: nothing of its own yet
    init_vault_repo(c.global_vault.root)
    own_setup = head(run_git, c)
    result = c.git.sync_remote()
    assert result.actions == ["adopted the remote's branch"] and result.conflicts == []
    assert head(run_git, c) == head(run_git, a)
    assert run_git(c.global_vault.root, "rev-parse", "refs/aimate/replaced").strip() == own_setup  # kept
    prefs = c.global_vault.abs_path(Path("core/preferences.md"))  # type: ignore[arg-type]
    assert "<<<<<<<" not in prefs.read_text(encoding="utf-8")
    a_head = head(run_git, a)
    run_git(c.global_vault.root, "merge-base", "--is-ancestor", a_head, "HEAD")  # raises if A's work is lost
    assert sync(a.global_vault.root, remote).actions == ["up-to-date"]  # nothing new: C took the remote as it was


def test_sync_without_remote_is_a_clear_error(tmp_path, new_system) -> None:
    from aimate_memory.errors import AimateError

    system = new_system(tmp_path / "home")
    with pytest.raises(AimateError) as caught:
        system.git.sync_remote()
    assert "git.remote" in (caught.value.hint or "")
