"""The memory file codec: byte-stable round trips, one-line edits, typed errors that name path and line."""

from __future__ import annotations

import difflib
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from aimate_memory.errors import (
    BinaryFileError,
    BrokenYamlError,
    ConflictMarkersError,
    EncodingError,
    FileTooLargeError,
)
from aimate_memory.vault.atomic import atomic_write_text
from aimate_memory.vault.codec import MemoryDocument, content_hash, parse_document, read_document

HAND_WRITTEN = """---
# Written by hand: keep this comment
id: 0193f1c2-7b7e-7c3a-9d2e-5b1f0a7c4e21
type: long_term
title: "选用 Redis 做会话缓存"   # inline comment stays
tags: [cache, redis]
importance: 4
on: yes
zip: 0123
my_custom_key: {owner: 张三, since: 2024}
created_at: 2026-02-01T10:30:00+08:00
updated_at: 2026-02-01T15:30:00+08:00
---

# 选用 Redis 做会话缓存

我们决定用 Redis，因为延迟低。
"""

P = Path("long_term/decisions/x.md")


def changed_lines(before: str, after: str) -> list[str]:
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def test_unchanged_document_renders_identical_bytes() -> None:
    doc = parse_document(HAND_WRITTEN, P)
    assert doc.render() == HAND_WRITTEN
    doc.set("importance", 4)  # same value: still unchanged
    assert not doc.changed
    assert doc.render() == HAND_WRITTEN


def test_one_field_change_touches_one_line_and_keeps_everything_else() -> None:
    doc = parse_document(HAND_WRITTEN, P)
    doc.set("importance", 5)
    doc.set("updated_at", datetime(2026, 3, 1, 9, 0, tzinfo=timezone(timedelta(hours=8))))
    after = doc.render()
    assert sorted(changed_lines(HAND_WRITTEN, after)) == [
        "+importance: 5",
        "+updated_at: 2026-03-01T09:00:00+08:00",
        "-importance: 4",
        "-updated_at: 2026-02-01T15:30:00+08:00",
    ]
    for kept in ("# Written by hand", "# inline comment stays", "on: yes", "zip: 0123", "张三", "我们决定"):
        assert kept in after


def test_new_keys_go_last_and_lists_are_flow_style() -> None:
    doc = parse_document(HAND_WRITTEN, P)
    doc.set("related", ["a", "b"])
    assert changed_lines(HAND_WRITTEN, doc.render()) == ["+related: [a, b]"]


def test_file_without_frontmatter_is_body_only() -> None:
    doc = parse_document("# 手写笔记\n\nplain text\n", P)
    assert not doc.has_frontmatter and dict(doc.meta) == {}
    assert doc.render() == "# 手写笔记\n\nplain text\n"


def test_new_document_has_stable_key_order_and_trailing_newline() -> None:
    doc = MemoryDocument.new({"id": "x", "title": "T", "tags": ["a"]}, "body")
    assert doc.render() == "---\nid: x\ntitle: T\ntags: [a]\n---\nbody\n"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("---\nid: x\ntags: [a, b\n---\nbody\n", 4),
        ("---\nid: x\ntitle: a: b: c\n---\n", 3),
        ("---\nid: x\n", 1),
    ],
)
def test_broken_yaml_names_path_and_line(text: str, line: int) -> None:
    with pytest.raises(BrokenYamlError) as info:
        parse_document(text, P)
    assert info.value.path == P
    assert info.value.line == line
    assert str(P) in info.value.message


def test_frontmatter_that_is_not_a_mapping_is_an_error() -> None:
    with pytest.raises(BrokenYamlError):
        parse_document("---\n- a\n- b\n---\nbody\n", P)


def test_conflict_markers_are_an_error_with_line() -> None:
    text = "---\nid: x\n---\nstart\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\n"
    with pytest.raises(ConflictMarkersError) as info:
        parse_document(text, P)
    assert info.value.line == 5


def test_binary_too_large_and_bad_encoding_are_refused(tmp_path: Path) -> None:
    binary = tmp_path / "b.md"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(BinaryFileError):
        read_document(binary, 1000)
    large = tmp_path / "l.md"
    large.write_text("x" * 2000)
    with pytest.raises(FileTooLargeError):
        read_document(large, 1000)
    latin1 = tmp_path / "e.md"
    latin1.write_bytes("line one\ncaf\xe9\n".encode("latin-1"))
    with pytest.raises(EncodingError) as info:
        read_document(latin1, 1000)
    assert info.value.line == 2
    # Reading never writes.
    assert large.read_text() == "x" * 2000


def test_content_hash_is_of_the_body() -> None:
    assert content_hash("中文\n") == content_hash("中文\n") != content_hash("中文")


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "m.md"
    atomic_write_text(target, "old\n")
    atomic_write_text(target, "新内容\n")
    assert target.read_text(encoding="utf-8") == "新内容\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.md"]


def test_atomic_write_failure_keeps_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "m.md"
    atomic_write_text(target, "old\n")

    class Boom(str):
        def encode(self, *args: object, **kwargs: object) -> bytes:
            raise OSError("disk full")

    with pytest.raises(OSError):
        atomic_write_text(target, Boom("new"))
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["m.md"]


def test_atomic_write_into_read_only_folder_fails_cleanly(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "m.md").write_text("old\n")
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as a user that ignores folder permissions")
        with pytest.raises(PermissionError):
            atomic_write_text(folder / "m.md", "new\n")
        assert (folder / "m.md").read_text() == "old\n"
        assert os.listdir(folder) == ["m.md"]
    finally:
        folder.chmod(0o700)


def test_atomic_write_where_the_folder_cannot_exist_fails_cleanly(tmp_path: Path) -> None:
    # Root ignores permission bits, so "cannot write here" is also tested with a file in the way.
    blocker = tmp_path / "notes"
    blocker.write_text("a file where a folder should be\n")
    with pytest.raises(OSError):
        atomic_write_text(blocker / "m.md", "new\n")
    assert os.listdir(tmp_path) == ["notes"]
