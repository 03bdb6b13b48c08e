"""File names and files the tool must handle (docs/reliability.md, "Security"): a legal name of 255 bytes,
a temp file a killed writer left, a path past PATH_MAX, a file far over the size limit — each through the
real CLI against a temp AIMATE_HOME.

Before: `set`/`fix`/`maintain` on an 84-Chinese-character name failed (the atomic writer's temp name,
`.NAME.XXXXXXXX.tmp`, passed 255 bytes) and `diagnose` said "no problems found"; leftovers stayed for good;
a folder past PATH_MAX was skipped in silence; a 50 MB file was "1048577 bytes"."""

from __future__ import annotations

import json
import os
import subprocess
import time
from datetime import datetime
from pathlib import Path

from aimate_memory.vault.layout import MAX_NAME_BYTES, memory_file_name

LONG_STEM = "长" * 84  # + ".md" = 255 bytes, the longest legal name
EXPIRED = "2020-01-01T00:00:00+00:00"


def _note(memory_id: str, title: str, layer: str, category: str, expires: str | None = None) -> str:
    lines = [
        "---",
        f"id: {memory_id}",
        f"type: {layer}",
        "scope: global",
        f"category: {category}",
        f"title: {title}",
        "status: active",
        "importance: 3",
        "created_at: 2020-01-01T00:00:00+00:00",
        "updated_at: 2020-01-01T00:00:00+00:00",
        *([f"expires_at: {expires}"] if expires else []),
        "---",
        f"# {title}",
        "",
        "选用 Redis 做缓存 / cache sessions in Redis.",
        "",
    ]
    return "\n".join(lines)


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def test_file_names_the_tool_makes_fit_in_bytes() -> None:
    created = datetime(2026, 11, 26)
    for title in ("缓存" * 200, "cache " * 200, "混合 mixed 标题 " * 40):
        for category in (None, "决定" * 60, "decision"):
            name = memory_file_name(created, category, title)
            assert len(name.encode("utf-8")) <= MAX_NAME_BYTES, name
            assert name.endswith(".md") and name.startswith("20261126_")
    assert memory_file_name(created, "note", "选用 Redis") == "20261126_note_选用-redis.md"


def test_a_255_byte_name_can_be_set_fixed_maintained_and_is_diagnosed(cli, initialized, home: Path) -> None:
    root = home / "memory"
    expiring = root / "short_term" / "notes" / f"{LONG_STEM}.md"
    expiring.write_text(_note("a1111111-0000-4000-8000-000000000001", "长名字的笔记", "short_term", "note", EXPIRED))
    for number in (2, 3):
        other = root / "short_term" / "notes" / f"other-{number}.md"
        memory_id = f"b{number}111111-0000-4000-8000-000000000001"
        other.write_text(_note(memory_id, f"note {number}", "short_term", "note", EXPIRED))
    hand_made = root / "long_term" / "knowledge" / f"{'知' * 84}.md"
    hand_made.write_text("# 手写的笔记\n\nwritten by hand, no frontmatter\n", encoding="utf-8")
    assert cli("mem", "commit", "-m", "notes by hand").code == 0

    result = cli("mem", "set", "a1111111", "importance=4")
    assert result.code == 0, result.err
    assert "importance: 4" in expiring.read_text(encoding="utf-8")

    result = cli("mem", "fix")
    assert result.code == 0, result.err
    assert hand_made.read_text(encoding="utf-8").startswith("---\nid: ")

    result = cli("mem", "maintain")
    assert result.code == 0, result.err
    archived = root / "archive" / "short_term" / "notes"
    assert sorted(p.name for p in archived.iterdir()) == sorted([f"{LONG_STEM}.md", "other-2.md", "other-3.md"])
    assert _git(root, "status", "--porcelain").strip() == ""
    assert not [name for name in os.listdir(root / "short_term" / "notes") if name.endswith(".tmp")]

    result = cli("mem", "diagnose", "--json")
    assert result.code == 1
    long_names = {Path(p["path"]).name for p in result.json() if p["kind"] == "LongName"}
    assert long_names == {f"{LONG_STEM}.md", hand_made.name}


def test_a_temp_file_left_by_a_killed_writer_is_reported_then_removed(cli, initialized, home: Path) -> None:
    folder = home / "memory" / "long_term" / "knowledge"
    leftovers = [folder / ".aimate-k1ll3d00.tmp", folder / ".20261126_note_选用-redis.md.abcd1234.tmp"]
    fresh = folder / ".aimate-wr1t1ng0.tmp"  # a writer at work right now: not touched
    editors = folder / ".hand.md.tmp"  # an editor's, maybe the person's only copy: not ours
    old = time.time() - 3600
    for path in [*leftovers, fresh, editors]:
        path.write_text("half a memo", encoding="utf-8")
    for path in [*leftovers, editors]:
        os.utime(path, (old, old))

    result = cli("mem", "diagnose", "--json")
    stale = sorted(Path(p["path"]).name for p in result.json() if p["kind"] == "StaleTemp")
    assert stale == sorted(path.name for path in leftovers)

    result = cli("mem", "fix")
    assert result.code == 0, result.err
    assert "removed 2 temp file(s) left by an interrupted write" in result.err + result.out
    assert not any(path.exists() for path in leftovers) and fresh.exists() and editors.exists()


def test_a_folder_past_path_max_is_reported(cli, initialized, home: Path) -> None:
    base = home / "memory" / "long_term" / "knowledge"
    part = "深" * 80  # 240 bytes a folder: 18 of them pass PATH_MAX (4096)
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(18):
            os.mkdir(part, dir_fd=fd)
            child = os.open(part, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        note = os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd)
        os.write(note, b"# deep\n\nbeyond PATH_MAX\n")
        os.close(note)
    finally:
        os.close(fd)
    result = cli("mem", "diagnose", "--json")
    assert result.code == 1
    too_long = [p for p in result.json() if p["kind"] == "PathTooLongError"]
    assert too_long and "longer than the system allows" in too_long[0]["reason"]
    subprocess.run(["rm", "-rf", str(base / part)], check=True)


def test_a_file_far_over_the_limit_is_reported_with_its_size(cli, initialized, home: Path) -> None:
    big = home / "memory" / "long_term" / "knowledge" / "大文件.md"
    with big.open("wb") as handle:
        handle.write(b"# big\n")
        handle.truncate(50 * 1024 * 1024)
    result = cli("mem", "diagnose", "--json")
    reasons = [p["reason"] for p in result.json() if p["kind"] == "FileTooLargeError"]
    assert reasons == ["file is 52,428,800 bytes, over the 1,048,576-byte limit"]


def test_a_huge_ttl_is_a_clear_error(cli, initialized) -> None:
    for ttl in ("1e308", "inf", "36526"):
        result = cli("mem", "add", "缓存笔记 cache note", "--layer", "short_term", "--ttl", ttl)
        assert result.code == 1 and "up to 36,525" in result.err, result.err
        assert "unexpected" not in result.err
    assert cli("mem", "add", "缓存笔记 cache note", "--layer", "short_term", "--ttl", "36525").code == 0


def test_log_of_a_memory_moved_since_the_index_saw_it(cli, tmp_path: Path) -> None:
    """`log` reads the index without syncing it: a memory archived since (by hand, by `git mv`, by another
    checkout) was looked up at its old path and `log` crashed with FileNotFoundError."""
    project = tmp_path / "work" / "proj"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)
    assert cli("mem", "init", cwd=project).code == 0
    vault = project / ".aimate" / "memory"
    for title in ("项目决定：用 Redis", "Project decision: use Redis"):
        added = json.loads(cli("mem", "add", title, "--body", "x", "--json", cwd=project).out)
        assert cli("mem", "search", "Redis", cwd=project).code == 0  # indexed at its first path
        source = vault / added["path"]
        target = vault / "archive" / added["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        source.rename(target)
        result = cli("mem", "log", added["id"], cwd=project)
        assert "unexpected" not in result.err and "FileNotFoundError" not in result.err, result.err
