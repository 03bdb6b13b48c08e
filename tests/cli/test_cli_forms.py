"""The CLI's promised forms and bad input through the real command line (issue 16 §4, §6, §7, §8)."""

from __future__ import annotations

import os
import resource
import stat
import subprocess
from pathlib import Path

import pytest

from tests.conftest import AIMATE, in_process


def ids_by_title(cli, *args: str) -> dict[str, dict]:
    return {m["title"]: m for m in cli("mem", "list", "--json", *args).json()}


def test_category_and_layer_as_written_and_set_moves_the_file(cli, initialized, home: Path) -> None:
    pref = cli("mem", "add", "我习惯用 Tab 缩进", "--layer", "core", "--category", "preference", "--json").json()
    assert ids_by_title(cli)["我习惯用 Tab 缩进"]["category"] == "preference"
    note = cli("mem", "add", "Use Redis for sessions", "--layer", "short_term", "--category", "note", "--json").json()
    assert cli("mem", "set", note["id"][:8], "category=decision", "layer=long_term").code == 0
    moved = ids_by_title(cli, "--category", "decision")["Use Redis for sessions"]
    assert moved["layer"] == "long_term" and moved["path"].startswith("long_term/decisions/")
    assert not (home / "memory" / note["path"]).exists()
    assert cli("mem", "set", pref["id"][:8], "status=archived").code == 0
    archived = cli("mem", "list", "--status", "archived", "--json").json()
    assert [m["path"].split("/")[0] for m in archived] == ["archive"]
    assert "我习惯用 Tab 缩进" not in ids_by_title(cli)
    refused = cli("mem", "set", note["id"][:8], "category=a/../../b")
    assert refused.code == 1 and "category must be a name" in refused.err
    session = cli("mem", "add", "A chat", "--layer", "session")
    assert session.code == 1 and "session" in session.err


def test_a_hand_moved_file_is_reported_by_diagnose(cli, initialized, home: Path) -> None:
    added = cli("mem", "add", "Deploy checklist", "--category", "knowledge", "--json").json()
    source = home / "memory" / added["path"]
    target = home / "memory/long_term/decisions" / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    source.rename(target)
    result = cli("mem", "diagnose")
    assert result.code == 1 and "category 'knowledge'" in result.out and "long_term/knowledge" in result.out
    cli("mem", "commit", "-m", "moved by hand")  # fix leaves unreviewed files alone: the person commits first
    plan = cli("mem", "fix", "--dry-run", "--json").json()
    assert [(c["action"], c["old_path"]) for c in plan["changes"]] == [("move", f"long_term/decisions/{source.name}")]
    assert cli("mem", "fix").code == 0
    assert (home / "memory/long_term/knowledge" / source.name).exists() and not target.exists()
    assert cli("mem", "diagnose").code == 0


def test_secret_refused_before_writing_and_masked(cli, initialized, home: Path) -> None:
    before = sorted(home.rglob("*.md"))
    result = cli("mem", "add", "AWS 密钥", "--body", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE")
    assert result.code == 1 and "nothing written" in result.err and "AKIAIOSFODNN7EXAMPLE" not in result.err
    assert "--allow-secret" in result.err
    assert sorted(home.rglob("*.md")) == before
    password = cli("mem", "add", "db", "--body", "password = hunter2-correct-horse")
    assert password.code == 1 and "hunter2" not in password.err
    assert cli("mem", "add", "AWS docs example", "--body", "AKIAIOSFODNN7EXAMPLE", "--allow-secret").code == 0


def test_titles_work_where_a_ref_does(cli, initialized, isolated_git: None) -> None:
    # The memories written in process, as `add` writes them (its face is tested above; four CLI processes
    # were ~1.3 s of CPU): what is tested is each command taking a title where it takes an id.
    with in_process(initialized) as system:
        written = (("选用 Redis 做会话缓存", "延迟低"), ("Log me", "english"), ("Twin", "one"), ("Twin", "two"))
        for title, body in written:
            system.add(title, body)
    assert "延迟低" in cli("mem", "show", "选用 Redis 做会话缓存").out
    assert cli("mem", "set", "log me", "importance=5", "--json").json()["importance"] == 5
    ambiguous = cli("mem", "show", "Twin")
    assert ambiguous.code == 1 and "title 'Twin' matches 2 memories" in ambiguous.err
    assert cli("mem", "rm", "Log me").code == 0


def test_edit_names_a_missing_editor_and_repairs_a_broken_file(cli, initialized, home: Path, tmp_path: Path) -> None:
    added = cli("mem", "add", "Edit me", "--body", "before", "--json").json()
    missing = cli("mem", "edit", added["id"][:8], env={"EDITOR": "no-such-editor-xyz", "VISUAL": ""})
    assert missing.code == 1 and "$EDITOR" in missing.err and "unexpected" not in missing.err
    breaker = tmp_path / "break.sh"
    breaker.write_text('#!/bin/sh\nprintf -- "---\\ntitle: [unclosed\\n---\\nbody\\n" > "$1"\n', encoding="utf-8")
    breaker.chmod(breaker.stat().st_mode | stat.S_IEXEC)
    broken = cli("mem", "edit", added["id"][:8], env={"EDITOR": str(breaker), "VISUAL": ""})
    assert broken.code == 1 and "broken YAML" in broken.err
    path = home / "memory" / added["path"]
    assert "[unclosed" in path.read_text(encoding="utf-8")  # kept as saved
    fixer = tmp_path / "fix.sh"
    fixer.write_text('#!/bin/sh\nprintf -- "---\\ntitle: Edited 已修好\\n---\\nafter\\n" > "$1"\n', encoding="utf-8")
    fixer.chmod(fixer.stat().st_mode | stat.S_IEXEC)
    repaired = cli("mem", "edit", added["path"], env={"EDITOR": str(fixer), "VISUAL": ""})
    assert repaired.code == 0, repaired.err
    assert "Edited 已修好" in ids_by_title(cli)


def test_list_dates_limit_and_json_everywhere(cli, initialized, isolated_git: None) -> None:
    with in_process(initialized) as system:  # written as `add` writes them: `list` is what is tested here
        for i in range(3):
            system.add(f"Note {i} 笔记", f"body {i}")
    assert len(cli("mem", "list", "--since", "1d", "--json").json()) >= 3
    assert cli("mem", "list", "--until", "7d", "--json").json() == []
    assert len(cli("mem", "list", "-n", "2", "--json").json()) == 2
    assert cli("mem", "list", "--since", "someday").code == 1
    assert cli("mem", "config", "get", "short_term.default_ttl_days", "--json").json() == 14
    assert cli("mem", "config", "get", "short_term.default_ttl_days", "--as-json").json() == 14
    assert cli("mem", "fix", "--dry-run", "--json").json()["changes"] == []
    assert cli("mem", "add", "search", "--category", "x", "--body", "a title that is a command's name").code == 0
    dash = cli("mem", "search", "-foo")
    assert dash.code == 2 and "use -- before a query" in dash.err
    assert cli("mem", "search", "--json", "--", "-foo bar").code == 0


def test_bad_input_takes_down_nothing(cli, initialized, home: Path) -> None:
    cli("mem", "add", "Healthy memory", "--body", "健康的记忆")
    nul = cli("mem", "add", "binary", "--body", "a\x00b".replace("\x00", "\x01"))
    assert nul.code == 1 and "control character" in nul.err
    assert cli("mem", "add", "ttl", "--layer", "short_term", "--ttl", "nan").code == 1
    assert cli("mem", "add", "ttl", "--layer", "short_term", "--ttl", "inf").code == 1
    weird = os.fsencode(home / "memory/long_term/knowledge") + b"/bad\xff.md"
    with open(weird, "w", encoding="utf-8") as handle:
        handle.write("# bad name\n\nhello\n")
    assert "Healthy memory" in ids_by_title(cli)
    diagnose = cli("mem", "diagnose", "--json")
    assert diagnose.code == 1 and [p["kind"] for p in diagnose.json()] == ["FileNameError"]
    assert "\\xff" in diagnose.json()[0]["path"]
    bomb = "---\n" + "".join(
        f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9 if prev else ["x"] * 9) + "]\n"
        for prev, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
    )
    (home / "memory/long_term/knowledge/bomb.md").write_text(bomb + "---\nbody\n", encoding="utf-8")
    shown = cli("mem", "show", "long_term/knowledge/bomb.md", "--json")
    assert shown.code == 1 and "aliases" in shown.err


def test_environment_faults_are_one_clear_line(cli, initialized, home: Path) -> None:
    (home / "index.db").unlink(missing_ok=True)
    (home / "index.db").mkdir()
    folder = cli("mem", "list")
    assert folder.code == 1 and "unexpected" not in folder.err and "hint:" in folder.err
    (home / "index.db").rmdir()

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    proc = subprocess.run(
        [str(AIMATE), "mem", "add", "Big", "--body", "长文本 long text " * 400],
        env={**os.environ, "AIMATE_HOME": str(home), "AIMATE_EMBEDDING__ENABLED": "false"},
        capture_output=True,
        text=True,
        preexec_fn=small_files,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert proc.returncode == 1 and "unexpected" not in proc.stderr and "hint:" in proc.stderr, proc.stderr


def test_no_refresh_without_an_index_says_so_and_creates_nothing(cli, initialized, home: Path) -> None:
    # --no-sync is the flag's old name, still taken (`aimate mem sync` is git's).
    commands = (
        ("list", "--no-refresh"),
        ("stats", "--no-refresh"),
        ("list", "--no-sync"),
        ("search", "x", "--no-sync"),
    )
    for command in commands:
        result = cli("mem", *command)
        assert result.code == 1 and "there is no index yet" in result.err
    assert not (home / "index.db").exists()


def test_stats_prints_aligned_lines_without_padding(cli, initialized) -> None:
    cli("mem", "add", "Deploy 部署", "--body", "deploy on Fridays 周五部署")
    result = cli("mem", "stats")
    lines = result.out.splitlines()
    assert result.code == 0 and lines[0].startswith("global vault — ")
    assert all(line == line.rstrip() for line in lines)  # a table padded each row to the widest cell
    values = {line.split("  ", 1)[0].strip(): line for line in lines[1:] if line.strip()}
    assert "memories" in values and "embedder" in values and "by layer" in values
    assert len({line.index(line.split()[-1]) for line in (values["memories"], values["last refresh"])}) == 1


def test_search_snippets_mask_a_hand_written_secret(cli, initialized, home: Path) -> None:
    (home / "memory/long_term/knowledge/deploy.md").write_text(
        "# Deploy 部署\n\ndeploy with key AKIAIOSFODNN7EXAMPLE and password = hunter2-correct\n", encoding="utf-8"
    )
    found = cli("mem", "search", "deploy 部署", "--json").json()
    assert found and "AKIAIOSFODNN7EXAMPLE" not in found[0]["snippet"] and "hunter2" not in found[0]["snippet"]


def test_a_killed_reindex_leaves_nothing_behind(cli, initialized, home: Path) -> None:
    cli("mem", "index")
    for suffix in ("", "-wal", "-shm"):  # what a reindex killed mid-build leaves
        (home / f"index.db.rebuild{suffix}").write_bytes(b"partial")
    assert cli("mem", "list").code == 0
    assert not list(home.glob("index.db.rebuild*"))


def test_reads_fall_back_to_the_index_as_it_was_when_it_cannot_be_written(cli, initialized, home: Path) -> None:
    cli("mem", "add", "Indexed before 之前", "--body", "old")
    assert cli("mem", "index").code == 0
    (home / "memory/long_term/knowledge/new.md").write_text("# New 新的\n\nlater\n", encoding="utf-8")
    index = home / "index.db"
    # Immutable even for root (plain permissions are not): the index cannot be written, only read.
    if subprocess.run(["chattr", "+i", str(index)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available on this file system")
    try:
        listed = cli("mem", "list", "--json")
        searched = cli("mem", "search", "before 之前", "--json")
    finally:
        subprocess.run(["chattr", "-i", str(index)], check=True)
    assert listed.code == 0 and "could not be updated" in listed.err and "read-only" in listed.err
    assert "Indexed before 之前" in [m["title"] for m in listed.json()]
    assert searched.code == 0 and [m["title"] for m in searched.json()] == ["Indexed before 之前"]
