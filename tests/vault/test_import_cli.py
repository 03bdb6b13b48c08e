"""`aimate mem import --from basic-memory|cline FOLDER` through the real CLI: idempotent, a bad file reported
by name while the rest is imported, and what was imported is searchable."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from import_samples import BASIC_MEMORY, BASIC_MEMORY_GOOD, CLINE_BANK, CLINE_GOOD

pytestmark = pytest.mark.slow  # ~10 CLI processes each


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return root


def commits(home: Path) -> int:
    vault = home / "memory"
    out = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=vault, capture_output=True, text=True)
    return int(out.stdout)


def search_titles(cli, query: str) -> list[str]:
    found = cli("mem", "search", query, "--json")
    assert found.code == 0, found.err
    return [hit["title"] for hit in found.json()]


def test_import_a_basic_memory_folder(cli, initialized, home: Path, tmp_path: Path) -> None:
    folder = write_tree(
        tmp_path / "basic-memory",
        {
            **BASIC_MEMORY,
            "latin1.md": "# Caf\xe9\n".encode("latin-1"),  # not UTF-8: reported, the rest imported
            ".obsidian/workspace.md": "# not a note\n",  # hidden folders are another tool's state
            "attachments/diagram.png": b"\x89PNG\r\n",
        },
    )
    dry = cli("mem", "import", "--from", "basic-memory", str(folder), "--dry-run", "--json")
    assert dry.json()["counts"]["added"] == BASIC_MEMORY_GOOD and dry.json()["commits"] == []
    assert cli("mem", "list", "--layer", "long_term", "--json").json() == []  # nothing written
    before = commits(home)
    done = cli("mem", "import", "--from", "basic-memory", str(folder))
    assert done.code == 1  # some files were not imported
    assert f"{BASIC_MEMORY_GOOD} added, 2 error" in done.out
    assert "error broken.md line 3" in done.out and "error latin1.md line 1" in done.out
    assert commits(home) == before + 1  # one commit for the whole import
    again = cli("mem", "import", "--from", "basic-memory", str(folder), "--json")
    report = again.json()
    assert again.code == 1  # --json says it too
    assert report["counts"] == {"added": 0, "updated": 0, "unchanged": BASIC_MEMORY_GOOD, "skipped": 0, "error": 2}
    assert {o["source"] for o in report["outcomes"] if o["action"] == "error"} == {"broken.md", "latin1.md"}
    assert commits(home) == before + 1  # the same folder twice changes nothing
    assert set(search_titles(cli, "PostgreSQL")[:2]) == {"选用 PostgreSQL 作为主库", "Storage Architecture"}
    assert "缓存策略" in search_titles(cli, "会话缓存")
    shown = cli("mem", "show", "选用 PostgreSQL 作为主库", "--json").json()
    assert shown["category"] == "decision" and "数据库" in shown["tags"] and len(shown["related"]) == 2
    (decision,) = (home / "memory" / "long_term" / "decisions").glob("*.md")
    assert "permalink: decisions/xuan-yong-postgresql" in decision.read_text(encoding="utf-8")


def test_import_a_cline_memory_bank(cli, initialized, home: Path, tmp_path: Path) -> None:
    bank = write_tree(tmp_path / "taskflow" / "memory-bank", {**CLINE_BANK, "notes/gbk.md": "进度".encode("gbk")})
    done = cli("mem", "import", "--from", "cline", str(bank), "--json")
    assert done.code == 1
    report = done.json()
    assert report["counts"]["added"] == CLINE_GOOD and report["counts"]["error"] == 1
    (error,) = [o for o in report["outcomes"] if o["action"] == "error"]
    assert error["source"] == "notes/gbk.md" and "UTF-8" in error["detail"]
    layers = {m["title"]: m["layer"] for m in cli("mem", "list", "--json").json()}
    assert layers["Active context (taskflow)"] == "short_term" and layers["Progress (taskflow)"] == "short_term"
    assert layers["Project brief (taskflow)"] == "long_term"
    again = cli("mem", "import", "--from", "cline", str(bank))
    assert f"{CLINE_GOOD} unchanged, 1 error" in again.out and "notes/gbk.md" in again.out
    assert "Active context (taskflow)" in search_titles(cli, "OAuth device flow")
    assert "Progress (taskflow)" in search_titles(cli, "导出 CSV")


def test_an_importer_given_what_it_cannot_read(cli, initialized, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bank"
    empty.mkdir()
    (tmp_path / "note.md").write_text("# 一条笔记\n", encoding="utf-8")
    refused = cli("mem", "import", "--from", "cline", str(empty))
    assert refused.code != 0 and "no .md files under" in refused.err + refused.out
    # A note alone would be named by its file name, not its path in the folder: another id, a duplicate.
    one_note = cli("mem", "import", "--from", "basic-memory", str(tmp_path / "note.md"))
    assert one_note.code != 0 and "not a folder" in one_note.err + one_note.out
    missing = cli("mem", "import", "--from", "claude", str(tmp_path / "nowhere"))
    assert missing.code != 0 and "no such file or folder" in missing.err + missing.out
    help_text = cli("mem", "import", "--help").out
    assert all(name in help_text for name in ("claude", "basic-memory", "mcp-memory-json", "cline"))


def test_import_a_folder_of_mcp_memory_files_a_bad_line_reported(cli, initialized, tmp_path: Path) -> None:
    entity = '{"type": "entity", "name": "%s", "entityType": "person", "observations": ["%s"]}'
    folder = write_tree(
        tmp_path / "mcp",
        {
            "memory.json": "\n".join([entity % ("张伟", "喜欢用 Tab 缩进"), "{oops", entity % ("Ana", "Owns billing")]),
            "old/memory.jsonl": entity % ("李娜", "负责发布流程") + "\n",
            "notes.txt": "not read",
        },
    )
    done = cli("mem", "import", "--from", "mcp-memory-json", str(folder))
    assert done.code == 1 and "error memory.json line 2: not JSON" in done.out and "3 added, 1 error" in done.out
    assert "张伟" in search_titles(cli, "Tab 缩进") and "李娜" in search_titles(cli, "发布流程")


@pytest.mark.parametrize(
    ("intro", "section"),
    [
        ("这是一个 Go 服务，保持简单。", "## 构建\n\n运行 make test。"),
        ("This repo is a Go service.", "## Build\n\nRun make test."),
    ],
)
def test_import_claude_dry_run_prints_the_files_and_imported_files_are_complete(
    cli, initialized, home: Path, tmp_path: Path, intro: str, section: str
) -> None:
    claude_md = tmp_path / "CLAUDE.md"
    claude_md.write_text(f"# Taskflow\n\n{intro}\n\n{section}\n", encoding="utf-8")
    dry = cli("mem", "import", "--from", "claude", str(claude_md), "--dry-run")
    assert dry.code == 0, dry.err
    assert dry.out.count("would be added: long_term/knowledge/") == 2 and intro in dry.out  # was counts only
    assert "title: Taskflow" in dry.out and "scope: global" in dry.out and "created_at: " in dry.out
    assert not list((home / "memory" / "long_term" / "knowledge").glob("*.md"))  # nothing written
    assert cli("mem", "import", "--from", "claude", str(claude_md)).code == 0
    assert cli("mem", "fix", "--dry-run").out.strip() == "would fix 0 files"  # was: scope, created_at, …
    assert "2 unchanged" in cli("mem", "import", "--from", "claude", str(claude_md)).out
    assert intro in cli("mem", "show", "Taskflow").out
