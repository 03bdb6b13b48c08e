"""The `aimate mem` basics, run as a real subprocess against a temp AIMATE_HOME."""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path

import pytest

HAND_FILE = """---
# 手写的记忆：这条注释必须保留
id: 7d3c1a52-9f0e-4b7e-8a43-2c5d9e1f0b6a
title: 选用 Redis 做会话缓存
tags: [cache, redis]   # inline comment
importance: 3
reviewer: 张三
updated_at: 2026-02-01T15:30:00+08:00
---

# 选用 Redis 做会话缓存

延迟低，支持过期时间。Latency is low.
"""


def changed(before: str, after: str) -> list[str]:
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return sorted(line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---")))


def test_init_creates_global_vault_with_templates(cli, home: Path) -> None:
    result = cli("mem", "init")
    assert result.code == 0, result.err
    vault = home / "memory"
    for folder in ("core", "sessions", "short_term/tasks", "long_term/decisions", "archive"):
        assert (vault / folder).is_dir()
    assert "偏好" in (vault / "README.md").read_text(encoding="utf-8")
    prefs = (vault / "core" / "preferences.md").read_text(encoding="utf-8")
    assert prefs.startswith("---\nid: ") and "I prefer pytest" in prefs
    assert cli("mem", "init").code == 0  # idempotent
    assert (vault / "core" / "preferences.md").read_text(encoding="utf-8") == prefs


def test_init_in_a_project_writes_gitignore(cli, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    assert cli("mem", "init", cwd=project / "src").code == 0
    assert (project / ".aimate" / "memory" / "long_term" / "decisions").is_dir()
    assert "index.db*" in (project / ".aimate" / ".gitignore").read_text()
    added = cli("mem", "add", "项目约定", "--body", "用 uv 管理依赖", "--json", cwd=project)
    assert added.json()["scope"] == "project"
    assert (project / ".aimate" / "memory" / added.json()["path"]).is_file()
    glob = cli("mem", "add", "Global note", "--scope", "global", "--json", cwd=project).json()
    assert glob["scope"] == "global"
    listed = cli("mem", "list", "--json", cwd=project).json()
    assert [m["scope"] for m in listed if m["title"] in ("项目约定", "Global note")] == ["project", "global"]


def test_add_list_show_json(cli, initialized) -> None:
    added = cli(
        "mem",
        "add",
        "选用 Redis 做会话缓存",
        "--body",
        "我们决定用 Redis。",
        "--category",
        "decision",
        "--tags",
        "cache,redis",
        "--importance",
        "4",
        "--json",
    )
    assert added.code == 0, added.err
    data = added.json()
    assert (
        data["path"]
        == f"long_term/decisions/{data['created_at'][:10].replace('-', '')}_decision_选用-redis-做会话缓存.md"
    )
    assert data["tags"] == ["cache", "redis"] and data["importance"] == 4
    shown = cli("mem", "show", data["id"][:8], "--json").json()
    assert shown["body"].strip() == "我们决定用 Redis。"
    assert shown["frontmatter"]["source"] == "cli"
    assert shown["layer"] == "long_term" and shown["scope"] == "global"
    listed = cli("mem", "list", "--tag", "redis", "--json").json()
    assert [m["id"] for m in listed] == [data["id"]]
    table = cli("mem", "list")
    assert "选用 Redis 做会话缓存" in table.out


def test_add_reads_body_from_stdin_and_file(cli, initialized, tmp_path: Path) -> None:
    piped = cli("mem", "add", "From stdin", "--json", input="piped body 管道\n").json()
    assert cli("mem", "show", piped["id"], "--json").json()["body"] == "piped body 管道\n"
    source = tmp_path / "body.md"
    source.write_text("# From a file\n文件内容\n", encoding="utf-8")
    filed = cli("mem", "add", "From file", "--file", str(source), "--layer", "short_term", "--json").json()
    assert filed["layer"] == "short_term" and filed["expires_at"] is not None
    assert cli("mem", "add", "Both", "--body", "x", "--file", str(source)).code == 1


def test_hand_written_file_survives_show_and_set_byte_for_byte(cli, initialized, home: Path) -> None:
    path = home / "memory" / "long_term" / "decisions" / "redis.md"
    path.write_text(HAND_FILE, encoding="utf-8")
    shown = cli("mem", "show", "7d3c1a52")
    assert shown.code == 0 and HAND_FILE in shown.out
    assert path.read_text(encoding="utf-8") == HAND_FILE
    assert cli("mem", "set", "7d3c1a52", "importance=5").code == 0
    after = path.read_text(encoding="utf-8")
    diff = changed(HAND_FILE, after)
    assert diff[0] == "+importance: 5" and diff[2] == "-importance: 3"
    assert diff[1].startswith("+updated_at: ") and diff[3] == "-updated_at: 2026-02-01T15:30:00+08:00"
    assert len(diff) == 4


def test_set_validates(cli, initialized) -> None:
    memory = cli("mem", "add", "Note", "--json").json()
    bad = cli("mem", "set", memory["id"], "importance=9")
    assert bad.code == 1 and "importance" in bad.err and "Traceback" not in bad.err
    assert cli("mem", "set", memory["id"], "id=other").code == 1
    assert cli("mem", "set", memory["id"], "novalue").code == 1
    good = cli("mem", "set", memory["id"], "tags=中文,english", "status=pending", "--json").json()
    assert good["tags"] == ["中文", "english"] and good["status"] == "pending"


def test_rm_archives_and_purge_needs_confirmation(cli, initialized, home: Path) -> None:
    memory = cli("mem", "add", "临时笔记", "--layer", "short_term", "--category", "note", "--json").json()
    assert cli("mem", "rm", memory["id"]).code == 0
    archived = home / "memory" / "archive" / memory["path"]
    assert archived.is_file() and not (home / "memory" / memory["path"]).exists()
    assert "status: archived" in archived.read_text(encoding="utf-8")
    assert cli("mem", "list", "--json").json() == [
        m for m in cli("mem", "list", "--json").json() if m["id"] != memory["id"]
    ]
    assert cli("mem", "list", "--status", "archived", "--json").json()[0]["id"] == memory["id"]
    refused = cli("mem", "rm", memory["id"], "--purge")
    assert refused.code == 1 and archived.exists()
    assert cli("mem", "rm", memory["id"], "--purge", "--yes").code == 0
    assert not archived.exists()


def test_broken_file_does_not_stop_list_and_diagnose_reports_it(cli, initialized, home: Path) -> None:
    cli("mem", "add", "Healthy", "--body", "fine")
    broken = home / "memory" / "long_term" / "knowledge" / "broken.md"
    broken_text = "---\nid: x\ntags: [a, b\n---\nbody\n"
    broken.write_text(broken_text)
    (home / "memory" / "long_term" / "knowledge" / "binary.md").write_bytes(b"\x00\x01\x02")
    conflict = home / "memory" / "long_term" / "knowledge" / "conflict.md"
    conflict.write_text("# T\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> x\n")
    listed = cli("mem", "list", "--json")
    assert listed.code == 0 and any(m["title"] == "Healthy" for m in listed.json())
    assert "3 file(s) could not be indexed" in listed.err
    report = cli("mem", "diagnose")
    assert report.code == 1
    assert f"{broken}:4" in report.out and "conflict.md:2" in report.out and "binary" in report.out
    as_json = cli("mem", "diagnose", "--json").json()
    assert {p["kind"] for p in as_json} == {"BrokenYamlError", "BinaryFileError", "ConflictMarkersError"}
    assert broken.read_text() == broken_text  # never rewritten


def test_fix_adopts_hand_made_files_and_duplicate_ids(cli, initialized, home: Path) -> None:
    hand = home / "memory" / "short_term" / "tasks" / "todo.md"
    hand.write_text("# 明天修复登录 bug\n\n细节\n", encoding="utf-8")
    first = home / "memory" / "long_term" / "knowledge" / "a.md"
    first.write_text("---\nid: same-id\ntitle: A\n---\na\n")
    second = home / "memory" / "long_term" / "knowledge" / "b.md"
    second.write_text("---\nid: same-id\ntitle: B\n---\nb\n")
    before = cli("mem", "diagnose", "--json").json()
    assert any(p["kind"] == "DuplicateId" for p in before)
    listed = {m["title"]: m for m in cli("mem", "list", "--json").json()}
    assert "明天修复登录 bug" in listed and listed["明天修复登录 bug"]["layer"] == "short_term"
    assert hand.read_text(encoding="utf-8") == "# 明天修复登录 bug\n\n细节\n"  # reading never writes
    assert cli("mem", "fix", "--dry-run").code == 0
    assert hand.read_text(encoding="utf-8") == "# 明天修复登录 bug\n\n细节\n"
    assert cli("mem", "fix").code == 0
    text = hand.read_text(encoding="utf-8")
    assert text.startswith("---\nid: ") and "category: task" in text and text.endswith("# 明天修复登录 bug\n\n细节\n")
    assert cli("mem", "diagnose").code == 0
    ids = {m["id"] for m in cli("mem", "list", "--json").json() if m["title"] in ("A", "B")}
    assert len(ids) == 2


def test_ids_and_paths_resolve_and_outside_paths_are_refused(cli, initialized, home: Path, tmp_path: Path) -> None:
    memory = cli("mem", "add", "Path test", "--json").json()
    by_path = cli("mem", "show", str(home / "memory" / memory["path"]), "--json")
    assert by_path.json()["id"] == memory["id"]
    assert cli("mem", "show", memory["path"], "--json").json()["id"] == memory["id"]
    outside = cli("mem", "show", "../../etc/passwd")
    assert outside.code == 1 and "outside" in outside.err and "root:" not in outside.out
    link = home / "memory" / "long_term" / "knowledge" / "escape.md"
    secret = tmp_path / "secret.md"
    secret.write_text("# secret\n")
    link.symlink_to(secret)
    escaped = cli("mem", "show", str(link))
    assert escaped.code == 1 and "outside" in escaped.err
    missing = cli("mem", "show", "ffffffff")
    assert missing.code == 1 and "no memory" in missing.err and "hint:" in missing.err


def test_ambiguous_prefix_and_exit_codes(cli, initialized, home: Path) -> None:
    folder = home / "memory" / "long_term" / "knowledge"
    (folder / "a.md").write_text("---\nid: abc111\n---\n# A\n")
    (folder / "b.md").write_text("---\nid: abc222\n---\n# B\n")
    ambiguous = cli("mem", "show", "abc")
    assert ambiguous.code == 1 and "2 memories" in ambiguous.err
    assert cli("mem", "show", "abc1", "--json").json()["title"] == "A"
    assert cli("mem", "no-such-command").code == 2
    assert cli("mem", "add").code == 2
    crashed = cli("--help")
    assert crashed.code == 0 and "mem" in crashed.out


def test_without_init_commands_say_how_to_start(cli) -> None:
    result = cli("mem", "add", "x")
    assert result.code == 1 and "aimate mem init" in result.err and "Traceback" not in result.err


def test_edit_runs_editor_and_revalidates(cli, initialized, home: Path, tmp_path: Path) -> None:
    memory = cli("mem", "add", "Edit me", "--body", "old", "--json").json()
    editor = tmp_path / "fake-editor.sh"
    editor.write_text('#!/bin/sh\nprintf "\\n新增一行 added line\\n" >> "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    result = cli("mem", "edit", memory["id"], env={"EDITOR": str(editor), "VISUAL": ""})
    assert result.code == 0, result.err
    shown = cli("mem", "show", memory["id"], "--json").json()
    assert "新增一行" in shown["body"]
    breaker = tmp_path / "breaker.sh"
    breaker.write_text('#!/bin/sh\nprintf -- "---\\ntags: [x\\n---\\n" > "$1"\n')
    breaker.chmod(0o755)
    broken = cli("mem", "edit", memory["id"], env={"EDITOR": str(breaker), "VISUAL": ""})
    assert broken.code == 1 and ":3" in broken.err and "broken YAML" in broken.err
    assert (home / "memory" / memory["path"]).read_text() == "---\ntags: [x\n---\n"  # kept as saved


def test_config_commands_keep_comments(cli, initialized, home: Path) -> None:
    config = home / "config.yaml"
    config.write_text("# my settings\nshort_term:\n  default_ttl_days: 7   # a week\n")
    assert cli("mem", "config", "path").out.strip() == str(config)
    assert cli("mem", "config", "get", "short_term.default_ttl_days").out.strip() == "7"
    assert cli("mem", "config", "set", "retrieval.decay", "0.9").code == 0
    assert config.read_text().startswith("# my settings\nshort_term:\n  default_ttl_days: 7   # a week\n")
    bad = cli("mem", "config", "set", "retrieval.nope", "1")
    assert bad.code == 1 and "retrieval.nope" in bad.err
    env = cli(
        "mem",
        "config",
        "get",
        "short_term.default_ttl_days",
        env={"AIMATE_SHORT_TERM__DEFAULT_TTL_DAYS": "3"},
    )
    assert env.out.strip() == "3"
    assert os.path.exists(config)


@pytest.mark.parametrize("command", [("list",), ("search",), ("import",)])
def test_flags_in_help_show_no_type_and_options_with_values_do(cli, command: tuple[str, ...]) -> None:
    shown = cli("mem", *command, "--help")
    assert shown.code == 0
    options = [line.strip() for line in shown.out.splitlines() if line.strip().startswith("-")]
    flag = next(line for line in options if line.startswith("--json"))
    assert "<bool>" not in shown.out and "<" not in flag.split("  ")[0]
    assert any("<" in line for line in options)  # `--limit <int range>`, `--layer <str>`, `--from <str>`
