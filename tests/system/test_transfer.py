"""Export and import: JSON Lines through the normal writer, ids kept, idempotent, bad lines reported by number."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from aimate_memory.system import MemorySystem
from aimate_memory.vault.layout import Layer

ZH_TITLE = "选用 Redis 做会话缓存"
EN_TITLE = "Flaky login test"


def open_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> MemorySystem:
    monkeypatch.setenv("AIMATE_HOME", str(home))
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    system = MemorySystem.open(global_only=True)
    system.init()
    return system


@pytest.fixture
def source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemorySystem:
    system = open_home(tmp_path / "home-a", monkeypatch)
    zh = system.add(ZH_TITLE, "我们决定用 Redis：延迟低，支持过期。\n", category="decision", tags=["cache", "redis"])
    system.set_fields(zh.id, {"importance": 5, "tags": "cache,redis,会话"})
    system.add(EN_TITLE, "TODO: fix it\n", layer=Layer.SHORT_TERM, category="task", extra={"ticket": "JIRA-12"})
    archived = system.add("Old note / 旧笔记", "过时了 — outdated\n", category="note")
    system.remove(archived.id)
    return system


def export(system: MemorySystem, **filters: object) -> list[str]:
    return list(system.transfer.export_lines(**filters))  # type: ignore[arg-type]


def memory_files(system: MemorySystem) -> dict[str, bytes]:
    root = system.global_vault.root
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in root.rglob("*.md")
        if path.parts[len(root.parts)] in ("long_term", "short_term", "archive")
    }


def test_round_trip_reproduces_the_files_byte_for_byte(source, tmp_path, monkeypatch) -> None:
    lines = export(source, layers=("long_term", "short_term"))
    records = [json.loads(line) for line in lines]
    assert {r["frontmatter"]["title"] for r in records} == {ZH_TITLE, EN_TITLE, "Old note / 旧笔记"}
    en = next(r for r in records if r["frontmatter"]["title"] == EN_TITLE)
    assert en["frontmatter"]["ticket"] == "JIRA-12"  # a key the tool does not know travels too
    assert all("body" in r and r["scope"] == "global" for r in records)
    target = open_home(tmp_path / "home-b", monkeypatch)
    report = target.transfer.import_lines(lines)
    assert report.count("added") == 3 and report.count("error") == 0
    assert memory_files(target) == memory_files(source)
    assert len(report.commits) == 1  # one commit for the whole import
    log = subprocess.run(
        ["git", "log", "-1", "--format=%s%n%b"], cwd=target.global_vault.root, capture_output=True, text=True
    ).stdout
    assert "import 3 memories" in log and log.count("- add ") == 3
    again = target.transfer.import_lines(lines)  # idempotent
    assert again.count("unchanged") == 3 and again.commits == []


def test_filters_by_layer_and_status(source) -> None:
    titles = lambda **f: {json.loads(line)["frontmatter"]["title"] for line in export(source, **f)}  # noqa: E731
    assert titles(layers=("short_term",)) == {EN_TITLE}
    assert titles(statuses=("archived",)) == {"Old note / 旧笔记"}
    assert ZH_TITLE in titles(layers=("long_term",), statuses=("active",))


def test_existing_ids_are_skipped_unless_update(source) -> None:
    (line,) = [item for item in export(source) if ZH_TITLE in item]
    record = json.loads(line)
    record["body"] = "改了正文 / changed body\n"
    changed = json.dumps(record, ensure_ascii=False)
    skipped = source.transfer.import_lines([changed])
    assert [o.action for o in skipped.outcomes] == ["skipped"] and "--update" in skipped.outcomes[0].detail
    assert "改了正文" not in source.get(record["frontmatter"]["id"]).body
    updated = source.transfer.import_lines([changed], update=True)
    assert [o.action for o in updated.outcomes] == ["updated"]
    assert source.get(record["frontmatter"]["id"]).body == "改了正文 / changed body\n"


def test_bad_lines_are_reported_by_number_and_the_rest_imported(source, tmp_path, monkeypatch) -> None:
    good = [line for line in export(source) if EN_TITLE in line or ZH_TITLE in line]
    escape = json.loads(good[0])
    escape["path"] = "../../outside.md"
    secret = json.loads(good[1])
    secret["frontmatter"]["id"] = "0193f1c2-7b7e-7c3a-9d2e-5b1f0a7c4e99"
    secret["body"] = "password = hunter2hunter2hunter2\n"
    lines = [
        good[0],
        "{not json",
        json.dumps({"frontmatter": {"title": "无 id / no id"}, "body": ""}),
        json.dumps(escape),
        json.dumps(secret),
        "",
        good[1],
    ]
    target = open_home(tmp_path / "home-b", monkeypatch)
    report = target.transfer.import_lines(lines)
    errors = {o.line: o.detail for o in report.outcomes if o.action == "error"}
    assert set(errors) == {2, 3, 4, 5}
    assert "not JSON" in errors[2] and "lacks id" in errors[3] and "leave the vault" in errors[4]
    assert "secret" in errors[5] or "password" in errors[5]
    assert report.count("added") == 2
    assert not (tmp_path / "outside.md").exists()


def test_dry_run_writes_nothing(source, tmp_path, monkeypatch) -> None:
    lines = export(source, layers=("long_term",))
    target = open_home(tmp_path / "home-b", monkeypatch)
    before = memory_files(target)
    report = target.transfer.import_lines(lines, dry_run=True)
    assert report.count("added") == 2 and report.summary().startswith("dry run")
    assert memory_files(target) == before


def test_cli_export_import(cli, initialized, tmp_path: Path) -> None:
    added = cli("mem", "add", ZH_TITLE, "--body", "延迟低", "--tags", "cache", "--json")
    assert added.code == 0
    out = tmp_path / "memories.jsonl"
    assert cli("mem", "export", "--layer", "long_term", "-o", str(out)).code == 0
    stdout = cli("mem", "export", "--layer", "long_term")
    assert stdout.out == out.read_text(encoding="utf-8") and ZH_TITLE in stdout.out
    other = {"AIMATE_HOME": str(tmp_path / "home-b")}
    assert cli("mem", "init", env=other).code == 0
    dry = cli("mem", "import", str(out), "--dry-run", "--json", env=other)
    assert dry.json()["counts"]["added"] == 1
    done = cli("mem", "import", str(out), env=other)
    assert done.code == 0 and "1 added" in done.out
    shown = cli("mem", "show", ZH_TITLE, "--json", env=other)
    assert shown.code == 0 and shown.json()["tags"] == ["cache"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(out.read_text(encoding="utf-8") + "{oops\n", encoding="utf-8")
    again = cli("mem", "import", str(bad), env=other)
    assert again.code == 1 and "line 2" in again.out and "1 unchanged" in again.out


CLAUDE_MD = """# CLAUDE.md

This file provides guidance to Claude Code when working with this repository.

## Code style / 代码风格

- Type hints everywhere; line length 120.
- 注释写原因，不写做了什么。

## Build and test

Run `bash scripts/test.sh -q -x` before committing.

## Architecture

The CLI is a thin face over `MemorySystem`; 索引由文件派生。
"""

MCP_MEMORY = "\n".join(
    json.dumps(item, ensure_ascii=False)
    for item in [
        {
            "type": "entity",
            "name": "张伟",
            "entityType": "person",
            "observations": ["喜欢用 Tab 缩进", "Works on billing"],
        },
        {"type": "entity", "name": "billing-service", "entityType": "project", "observations": ["Uses PostgreSQL 16"]},
        {"type": "relation", "from": "张伟", "to": "billing-service", "relationType": "maintains"},
    ]
)


def test_cli_export_as_one_json_array_imports_back(cli, initialized, tmp_path: Path) -> None:
    """`export --format json` (issue 37: "unknown format json"): one array of the JSONL records, Chinese and
    English kept as written; `import` reads it back."""
    assert cli("mem", "add", ZH_TITLE, "--body", "延迟低", "--tags", "cache").code == 0
    assert cli("mem", "add", "Tests run with pytest", "--body", "fixtures and a temp home").code == 0
    lines = cli("mem", "export", "--layer", "long_term").out.splitlines()
    out = tmp_path / "memories.json"
    assert cli("mem", "export", "--layer", "long_term", "--format", "json", "-o", str(out)).code == 0
    array = json.loads(out.read_text(encoding="utf-8"))
    assert array == [json.loads(line) for line in lines] and len(array) == 2
    assert ZH_TITLE in out.read_text(encoding="utf-8")  # not \\u-escaped
    empty = cli("mem", "export", "--status", "archived", "--format", "json")
    assert empty.code == 0 and json.loads(empty.out) == []
    other = {"AIMATE_HOME": str(tmp_path / "home-b")}
    assert cli("mem", "init", env=other).code == 0
    done = cli("mem", "import", str(out), env=other)
    assert done.code == 0 and "2 added" in done.out
    assert cli("mem", "show", ZH_TITLE, "--json", env=other).json()["tags"] == ["cache"]
    wrong = cli("mem", "export", "--format", "yaml")
    assert wrong.code != 0 and "jsonl, json" in wrong.out + wrong.err


def test_import_from_claude_md_and_mcp_memory(tmp_path, monkeypatch) -> None:
    system = open_home(tmp_path / "home", monkeypatch)
    claude = tmp_path / "CLAUDE.md"
    claude.write_text(CLAUDE_MD, encoding="utf-8")
    report = system.transfer.import_from("claude", claude)
    assert report.count("added") == 3 and len(report.commits) == 1
    style = next(m for m in system.memories.scan().memories if m.title == "Code style / 代码风格")
    assert style.layer is Layer.CORE and "注释写原因" in style.body
    build = next(m for m in system.memories.scan().memories if m.title == "Build and test")
    assert build.layer is Layer.LONG_TERM and "imported-claude" in build.tags
    assert system.transfer.import_from("claude", claude).count("unchanged") == 3  # the same file twice changes nothing
    graph = tmp_path / "memory.json"
    graph.write_text(MCP_MEMORY + "\n", encoding="utf-8")
    imported = system.transfer.import_from("mcp-memory-json", graph)
    assert imported.count("added") == 2
    person = next(m for m in system.memories.scan().memories if m.title == "张伟")
    assert "- 喜欢用 Tab 缩进" in person.body and "maintains billing-service" in person.body
    assert "person" in person.tags


def test_an_import_stopped_before_its_commit_is_finished_by_running_it_again(source, tmp_path, monkeypatch) -> None:
    """The files of a first run are on disk but were never committed (stopped before its commit): the same
    import again commits them, Chinese and English, and a third run changes nothing."""
    lines = export(source, layers=("long_term", "short_term"))
    monkeypatch.setenv("AIMATE_GIT__AUTO_COMMIT", "false")
    stopped = open_home(tmp_path / "home-b", monkeypatch)
    first = stopped.transfer.import_lines(lines)  # writes the files, commits nothing: as if stopped there
    assert first.count("added") == 3 and first.commits == []
    monkeypatch.delenv("AIMATE_GIT__AUTO_COMMIT")
    target = MemorySystem.open(global_only=True)
    again = target.transfer.import_lines(lines)
    assert again.count("unchanged") == 3 and len(again.commits) == 1
    root = target.global_vault.root
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout
    assert status == ""
    committed = subprocess.run(["git", "show", "--name-only", "--format=%b", "HEAD"], cwd=root, capture_output=True)
    shown = committed.stdout.decode("utf-8")
    assert shown.count("stopped before its commit") == 3 and "archive/" in shown
    assert target.transfer.import_lines(lines).commits == []
