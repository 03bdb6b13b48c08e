"""Hostile input through the real CLI and the API (docs/reliability.md, "Hostile input"): each case gets a
clear one-line error or a sensible answer, never a traceback, and a refused command changes no file."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from aimate_memory.errors import AimateError
from aimate_memory.system import MemorySystem
from tests.conftest import built_once, make_runner

FTS_SYNTAX = ['"', '"unbalanced', "NEAR(", "NEAR(a b", "*", "a AND OR NOT", "(((", "^x", "col:term", "'; DROP TABLE x;"]
OUTSIDE = ["../../etc/passwd", "/etc/passwd", "../outside.md", "long_term/../../../x.md", "~/.bashrc"]


def _files(home: Path) -> dict[str, bytes]:
    """Every file of the vault but git's and the index's own: what a refused command must leave alone."""
    vault = home / "memory"
    return {
        p.relative_to(vault).as_posix(): p.read_bytes()
        for p in vault.rglob("*")
        if p.is_file() and ".git" not in p.parts and ".aimate" not in p.parts and not p.name.startswith("index.db")
    }


def _seed(folder: Path) -> None:
    cli = make_runner(folder / "aimate-home", folder, vectors=False)
    assert cli("mem", "init").code == 0
    cli("mem", "add", "选用 Redis 做会话缓存", "--body", "我们决定用 Redis 做会话缓存。", "--tags", "cache")
    cli("mem", "add", "Deploy checklist", "--body", "Run the smoke tests before deploying.")


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded home, made once per run through the CLI (three processes, ~7 s a test under load)."""
    return built_once(tmp_path_factory, "hostile-seeded", _seed) / "aimate-home"


@pytest.fixture
def seeded(home: Path, seeded_template: Path) -> Path:
    """A home holding a Chinese and an English memory: a copy of the template (nothing in it names its folder),
    which each test may change."""
    shutil.copytree(seeded_template, home, symlinks=True)
    return home


def _refused_cleanly(result, home: Path, before: dict[str, bytes]) -> None:
    assert result.code in (1, 2), (result.code, result.out, result.err)
    assert "Traceback" not in result.err and result.err.strip(), result.err
    assert _files(home) == before


@pytest.mark.parametrize("query", [*FTS_SYNTAX, "x" * 100_000, "会" * 30_000, "-- -foo"])
def test_query_syntax_and_size_are_searched_as_text(cli, seeded: Path, query: str) -> None:
    result = cli("mem", "search", "--json", "--", query)
    assert result.code == 0 and "Traceback" not in result.err, result.err
    assert isinstance(result.json(), list)


def test_a_one_megabyte_query_and_nul_bytes_through_the_api(seeded: Path, monkeypatch) -> None:
    # The CLI cannot take a 1 MB argument (Linux caps one at 128 KiB); the API and MCP can.
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    with MemorySystem.open(global_only=True) as system:
        for query in ("缓存 " * 200_000, "Redis\x00缓存", "\x00"):
            try:
                results = system.search(query).results
            except AimateError as error:
                assert error.message  # a clear refusal
            else:
                assert all(hit.memory.title for hit in results)
        assert system.search("Redis 缓存\x00").results or True  # never raises past AimateError


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (("mem", "add", "   ", "--body", "only whitespace in the title"), None),
        (("mem", "add", "", "--body", "empty title / 空标题"), None),
        (("mem", "add", "NUL in the body"), "a NUL \x00 byte / 空字符"),  # the body on stdin, as a pipe gives it
        (("mem", "add", "huge body"), "大" * 2_000_000),  # over storage.max_file_bytes
        (("mem", "add", "tags", "--body", "x", "--tags", "ok,\u0007bell"), None),
    ],
    ids=["blank-title", "empty-title", "nul-body", "huge-body", "control-tag"],
)
def test_bad_memories_are_refused_and_write_nothing(cli, seeded: Path, args: tuple[str, ...], stdin) -> None:
    before = _files(seeded)
    _refused_cleanly(cli(*args, input=stdin), seeded, before)


@pytest.mark.parametrize("field", ["title", "body", "tags"])
def test_nul_bytes_through_the_api_are_refused_and_write_nothing(seeded: Path, monkeypatch, field: str) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    before = _files(seeded)
    values = {"title": "Redis 缓存", "body": "会话缓存", "tags": ["cache"]}
    values[field] = ["a\x00b"] if field == "tags" else "a\x00b 中文"
    with MemorySystem.open(global_only=True) as system, pytest.raises(AimateError) as refused:
        system.add(values["title"], values["body"], tags=values["tags"])
    assert refused.value.message
    assert _files(seeded) == before


@pytest.mark.parametrize("ref", OUTSIDE)
@pytest.mark.parametrize("command", [("show",), ("rm",), ("set", "importance=1"), ("log",)])
def test_refs_outside_the_vault_are_refused(cli, seeded: Path, ref: str, command: tuple[str, ...]) -> None:
    before = _files(seeded)
    result = cli("mem", command[0], ref, *command[1:])
    _refused_cleanly(result, seeded, before)
    assert "root:" not in result.out  # nothing of /etc/passwd is shown


@pytest.mark.parametrize("path", ["../../evil.md", "/tmp/evil.md", "long_term/../../evil.md", ".git/hooks/x.md"])
def test_import_records_whose_path_leaves_the_vault_are_reported(cli, seeded: Path, tmp_path: Path, path: str) -> None:
    records = tmp_path / "records.jsonl"
    good = {"frontmatter": {"id": "11111111-2222-4333-8444-555555555555", "title": "好的记录"}, "body": "ok\n"}
    bad = {"path": path, "frontmatter": {"id": "66666666-2222-4333-8444-555555555555", "title": "evil"}, "body": "x"}
    records.write_text(json.dumps(good, ensure_ascii=False) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    result = cli("mem", "import", str(records), "--json")
    assert result.code == 1 and "Traceback" not in result.err
    outcomes = {o["line"]: o["action"] for o in result.json()["outcomes"]}
    assert outcomes == {1: "added", 2: "error"}
    assert not (seeded.parent / "evil.md").exists() and not Path("/tmp/evil.md").exists()
    assert not list((seeded / "memory").rglob("evil*"))


def test_symlinks_out_of_the_vault_are_never_read(cli, seeded: Path, tmp_path: Path) -> None:
    secret_file = tmp_path / "outside.md"
    secret_file.write_text("---\nid: 77777777-2222-4333-8444-555555555555\ntitle: outside\n---\nTOPSECRET 机密\n")
    secret_dir = tmp_path / "outside-dir"
    secret_dir.mkdir()
    (secret_dir / "note.md").write_text("# Leaked\n\nTOPSECRET folder 机密\n", encoding="utf-8")
    knowledge = seeded / "memory" / "long_term" / "knowledge"
    os.symlink(secret_file, knowledge / "link.md")
    os.symlink(secret_dir, knowledge / "linked-folder")
    assert cli("mem", "index").code in (0, 1)
    for query in ("TOPSECRET", "机密"):
        found = cli("mem", "search", query, "--json")
        assert found.code == 0 and found.json() == [], found.out
    shown = cli("mem", "show", "long_term/knowledge/link.md")
    assert shown.code in (1, 2) and "TOPSECRET" not in shown.out and "Traceback" not in shown.err
    diagnosed = cli("mem", "diagnose", "--json")
    assert any("link.md" in problem["path"] for problem in diagnosed.json())
