"""The memory merge: frontmatter by rule, body by git merge-file, byte-stable output."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aimate_memory.errors import ConflictMarkersError
from aimate_memory.git.merge import main, merge_memory_text
from aimate_memory.vault.codec import content_hash, parse_document

BODY = "# 选用 Redis 做会话缓存\n\n延迟低，支持过期时间。\n\n## Why\n\nLatency is low.\n\n## Risks\n\nMemory usage.\n"


def memory(
    *,
    tags: str = "[cache, redis]",
    updated: str = "2026-02-01T15:30:00+08:00",
    importance: int = 3,
    count: int = 5,
    status: str = "active",
    body: str = BODY,
    extra: str = "",
) -> str:
    return (
        "---\n"
        "id: 0193f1c2-7b7e-7c3a-9d2e-5b1f0a7c4e21\n"
        "# 手写注释：保留\n"
        "title: 选用 Redis 做会话缓存\n"
        f"tags: {tags}   # inline comment\n"
        f"status: {status}\n"
        f"importance: {importance}\n"
        "created_at: 2026-02-01T10:30:00+08:00\n"
        f"updated_at: {updated}\n"
        f"access_count: {count}\n"
        f"content_hash: {content_hash(body)}\n"
        f"{extra}"
        "---\n"
        f"{body}"
    )


def meta(text: str):
    return parse_document(text, Path("m.md")).meta


def test_concurrent_tag_edits_union_without_markers() -> None:
    base = memory()
    ours = memory(tags="[cache, redis, 性能]", updated="2026-02-02T09:00:00+08:00")
    theirs = memory(tags="[cache, redis, session]", updated="2026-02-03T09:00:00+08:00")
    result = merge_memory_text(base, ours, theirs)
    assert result.clean
    assert "<<<<<<<" not in result.text
    merged = meta(result.text)
    assert list(merged["tags"]) == ["cache", "redis", "性能", "session"]
    assert str(merged["updated_at"]).startswith("2026-02-03")
    assert "\ntags: [cache, redis, 性能, session] # inline comment\n" in result.text
    assert "# 手写注释：保留\n" in result.text


def test_a_tag_removed_on_one_side_stays_removed() -> None:
    result = merge_memory_text(memory(), memory(tags="[cache]"), memory(tags="[cache, redis, new]"))
    assert list(meta(result.text)["tags"]) == ["cache", "new"]


def test_numbers_and_other_keys() -> None:
    base = memory()
    ours = memory(importance=4, count=7, status="archived")
    theirs = memory(importance=5, count=6, extra="reviewer: 张三\n")
    merged = meta(merge_memory_text(base, ours, theirs).text)
    assert merged["importance"] == 5
    assert merged["access_count"] == 8  # 5 + 2 (ours) + 1 (theirs)
    assert merged["status"] == "archived"  # ours changed it
    assert merged["reviewer"] == "张三"  # only theirs added it
    # only theirs changed a key → theirs wins
    merged = meta(merge_memory_text(base, memory(importance=4), memory(status="superseded")).text)
    assert merged["status"] == "superseded" and merged["importance"] == 4


def test_body_edits_in_different_places_merge_and_hash_follows() -> None:
    ours_body = BODY.replace("Latency is low.", "Latency is low (p99 2 ms).")
    theirs_body = BODY.replace("Memory usage.", "Memory usage; 需要设置 maxmemory。")
    result = merge_memory_text(memory(), memory(body=ours_body), memory(body=theirs_body))
    assert result.clean
    doc = parse_document(result.text, Path("m.md"))
    assert "p99 2 ms" in doc.body and "maxmemory" in doc.body
    assert doc.meta["content_hash"] == content_hash(doc.body)


def test_real_body_conflict_leaves_markers() -> None:
    ours = memory(body=BODY.replace("Latency is low.", "Latency is low, 我们测过。"), tags="[cache, redis, a]")
    theirs = memory(body=BODY.replace("Latency is low.", "Latency is fine."), tags="[cache, redis, b]")
    result = merge_memory_text(memory(), ours, theirs)
    assert not result.clean
    assert "<<<<<<< ours" in result.text and ">>>>>>> theirs" in result.text
    assert "tags: [cache, redis, a, b]" in result.text  # frontmatter still merged
    with pytest.raises(ConflictMarkersError):
        parse_document(result.text, Path("m.md"))


def test_byte_stable_when_one_side_wins() -> None:
    base = memory()
    theirs = memory(tags="[cache,   redis, x]")  # odd spacing survives: theirs' exact bytes
    assert merge_memory_text(base, base, theirs).text == theirs
    assert merge_memory_text(base, theirs, base).text == theirs
    # both sides made the same edit
    assert merge_memory_text(base, theirs, theirs).text == theirs


def test_unchanged_lines_keep_their_bytes() -> None:
    base = memory()
    ours = memory(importance=4)
    theirs = memory(count=9)
    out = merge_memory_text(base, ours, theirs).text
    changed = [line for line in out.splitlines() if line not in base.splitlines()]
    assert changed == ["importance: 4", "access_count: 9"]


def test_add_add_with_empty_base() -> None:
    ours = memory(tags="[a]")
    theirs = memory(tags="[b]", updated="2026-03-01T00:00:00+08:00")
    result = merge_memory_text("", ours, theirs)
    assert result.clean
    assert list(meta(result.text)["tags"]) == ["a", "b"]


def test_plain_text_files_merge_as_text() -> None:
    base = "a\nb\nc\n"
    result = merge_memory_text(base, "A\nb\nc\n", "a\nb\nC\n")
    assert result.clean and result.text == "A\nb\nC\n"


def test_driver_main_writes_ours_file(tmp_path: Path) -> None:
    files = {}
    for name, text in (("O", memory()), ("A", memory(tags="[cache, redis, x]")), ("B", memory(tags="[y]"))):
        files[name] = tmp_path / name
        files[name].write_text(text, encoding="utf-8")
    assert main([str(files["O"]), str(files["A"]), str(files["B"]), "long_term/decisions/x.md"]) == 0
    assert list(meta(files["A"].read_text(encoding="utf-8"))["tags"]) == ["x", "y"]
    # and as a module, the way git runs it
    files["A"].write_text(memory(body="# one\n"), encoding="utf-8")
    files["B"].write_text(memory(body="# two\n"), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "aimate_memory.git.merge", *(str(files[n]) for n in "OAB"), "x.md"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert "<<<<<<<" in files["A"].read_text(encoding="utf-8")


def test_one_use_on_each_device_counts_twice_though_both_files_agree() -> None:
    # Found by tests/properties: both sides at base + 1 looked "the same" and merged to base + 1.
    merged = meta(merge_memory_text(memory(), memory(count=6, extra="note: 本机\n"), memory(count=6)).text)
    assert merged["access_count"] == 7
