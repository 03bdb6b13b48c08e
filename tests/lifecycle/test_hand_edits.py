"""Automatic actions never commit a person's unreviewed change (maintain, fix, the daemon's maintenance),
and one file holding a secret never blocks them: real git, the real CLI."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from aimate_memory.clock import FixedClock, SystemClock
from aimate_memory.lifecycle.maintenance import PENDING_FILE, leave_hand_edits_alone
from aimate_memory.lifecycle.planner import Action, Kind
from aimate_memory.system import MemorySystem
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.layout import Layer

HUMAN = "HUMAN-LINE 人工修改，尚未审阅"
PASSWORD = "hunter2hunter2"
TTL = "0.00001"  # days: under a second, so the memory is due at once


pytestmark = pytest.mark.usefixtures("isolated_git")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def history(root: Path) -> str:
    return git(root, "log", "-p", "--all")


def hand_edit(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8") + f"\n{HUMAN}\n", encoding="utf-8")


def add(cli, title: str, *args: str) -> dict:
    result = cli("mem", "add", title, "--body", f"{title}。", "--json", *args)
    assert result.code == 0, result.err
    return result.json()


def test_maintain_leaves_unreviewed_edits_and_bare_files_alone(cli, initialized, home: Path) -> None:
    vault = home / "memory"
    due = add(cli, "Expire me 过期", "--layer", "short_term", "--ttl", TTL)
    edited = add(cli, "Hand edited 手改", "--layer", "short_term", "--ttl", TTL)
    bare = vault / "long_term" / "knowledge" / "bare.md"
    bare.write_text("# Bare note 裸笔记\n\nplain words, no frontmatter\n", encoding="utf-8")
    assert cli("mem", "commit", "-m", "memory: a bare note").code == 0
    hand_edit(vault / edited["path"])
    assert cli("mem", "show", "long_term/knowledge/bare.md").code == 0  # a use (a read, not a search)
    time.sleep(1)
    result = cli("mem", "maintain")
    assert result.code == 0, result.err
    assert "1 file has unreviewed edits — `aimate mem review`" in result.err
    assert edited["path"] in result.err
    assert HUMAN not in history(vault)
    assert not (vault / due["path"]).exists()  # the clean one expired, and that was committed
    assert "expired 1" in git(vault, "log", "-1", "--format=%s")
    assert HUMAN in (vault / edited["path"]).read_text(encoding="utf-8")  # left where it was
    assert bare.read_text(encoding="utf-8").startswith("# Bare note")  # a use is never written into a file
    assert (home / "state" / "access.jsonl").read_text(encoding="utf-8").count('"id"') == 1
    assert git(vault, "status", "--porcelain").split() == ["M", edited["path"]]
    again = cli("mem", "maintain", "--json")
    assert again.code == 0 and again.json()[0]["skipped"][0]["path"] == edited["path"]


def test_fix_commits_only_what_it_wrote(cli, initialized, home: Path) -> None:
    vault = home / "memory"
    tracked = add(cli, "Tracked 已提交")
    hand_edit(vault / tracked["path"])  # fix would write content_hash into it
    new = vault / "short_term" / "notes" / "new.md"
    new.write_text(f"# New hand note 新笔记\n\n{HUMAN}\n", encoding="utf-8")  # never committed
    clean = vault / "long_term" / "knowledge" / "clean.md"
    clean.write_text("# Clean hand note 干净\n\nreviewed words\n", encoding="utf-8")
    assert cli("mem", "review", "--accept", "long_term/knowledge/clean.md").code == 0
    result = cli("mem", "fix")
    assert result.code == 0, result.err
    assert "2 files have unreviewed edits — `aimate mem review`" in result.err
    assert HUMAN not in history(vault)
    assert git(vault, "show", "--name-only", "--format=%s", "HEAD").split() == [
        "memory:",
        "fix",
        "1",
        "file(s)",
        "long_term/knowledge/clean.md",
    ]
    assert "id:" in clean.read_text(encoding="utf-8")
    assert HUMAN in new.read_text(encoding="utf-8")  # written (fields added) but left for review


def test_daemon_style_maintenance_through_the_facade(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    clock = FixedClock(SystemClock().now())
    with MemorySystem.open(global_only=True, clock=clock) as system:
        system.init()
        stale = system.add("Stale decision 旧决定", "old words", layer=Layer.LONG_TERM, category="decision")
        other = system.add("Other stale 另一个", "more words", layer=Layer.LONG_TERM, category="decision")
        hand_edit(system.global_vault.abs_path(stale.rel_path))
        clock.advance(days=400)
        (run,) = system.upkeep.maintain(vaults=[system.global_vault])  # what the daemon calls each hour
    root = system.global_vault.root
    assert [action.memory_id for action in run.skipped] == [stale.id]
    assert [action.memory_id for action in run.actions] == [other.id]
    assert any("1 file has unreviewed edits" in warning for warning in run.warnings)
    assert HUMAN not in history(root)
    assert system.global_vault.abs_path(stale.rel_path).exists()


def test_a_secret_never_blocks_maintenance(cli, initialized, home: Path) -> None:
    vault = home / "memory"
    due = add(cli, "Expire me too 也过期", "--layer", "short_term", "--ttl", TTL)
    creds = vault / "short_term" / "notes" / "creds.md"
    creds.write_text(f"# Server login 服务器\n\npassword = {PASSWORD}\n", encoding="utf-8")
    time.sleep(1)
    for _ in range(2):  # and the next run too: no plan left pending, nothing retried forever
        result = cli("mem", "maintain")
        assert result.code == 0, result.err
        assert not (home / "state" / PENDING_FILE).exists()
    assert not (vault / due["path"]).exists()
    assert PASSWORD not in history(vault)
    diagnose = cli("mem", "diagnose", "--json")
    (problem,) = [p for p in diagnose.json() if p["kind"] == "Secret"]
    assert problem["path"].endswith("creds.md") and problem["line"] == 3
    assert "password = ****" in problem["reason"]
    review = cli("mem", "review", "--json").json()
    (listed,) = [c for c in review if c["path"] == "short_term/notes/creds.md"]
    assert listed["secrets"][0]["excerpt"] == "password = ****"
    table = cli("mem", "review")
    assert "secret?" in table.out
    for output in (diagnose.out, json.dumps(review, ensure_ascii=False), table.out):
        assert PASSWORD[:4] not in output  # a password reveals no character


def test_an_automatic_commit_holds_out_a_secret_and_commits_the_rest(home: Path, monkeypatch) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    with MemorySystem.open(global_only=True) as system:
        system.init()
        root = system.global_vault.root
        (root / "short_term" / "notes" / "ok.md").write_text("# Fine 没问题\n", encoding="utf-8")
        (root / "short_term" / "notes" / "key.md").write_text(f"# Key\n\n密码：{PASSWORD}\n", encoding="utf-8")
        changes = [FileChange("add", Path("short_term/notes", name), "test") for name in ("ok.md", "key.md")]  # type: ignore[arg-type]
        report = system.store.record(system.global_vault, ChangeSet("memory: two files", changes), automatic=True)
    assert report is not None and report.commit
    assert [(h.path.name, h.reason) for h in report.held] == [("key.md", "secret")]
    assert "密码：****" in report.held[0].detail
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == ["short_term/notes/ok.md"]
    assert "1 file holds a secret, not committed" in report.warnings[0]


def test_leaving_hand_edits_alone_is_a_pure_decision() -> None:
    from pathlib import PurePosixPath

    move = Action(Kind.EXPIRE, "edited", PurePosixPath("b.md"), PurePosixPath("archive/b.md"))
    keep = Action(Kind.EXPIRE, "clean", PurePosixPath("c.md"), PurePosixPath("archive/c.md"))
    applied, skipped = leave_hand_edits_alone([move, keep], {PurePosixPath("b.md")})
    assert (applied, skipped) == ([keep], [move])
