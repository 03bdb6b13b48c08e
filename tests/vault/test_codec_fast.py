"""The indexer's fast frontmatter path must load exactly what ruamel loads, or step aside."""

from __future__ import annotations

import io
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aimate_memory.vault.codec import _YAML, MemoryDocument, dump_frontmatter, load_simple_frontmatter, parse_document
from aimate_memory.vault.model import to_datetime

FAST = [
    "id: 3f2a9c1e-1111-2222-3333-444455556666\ntitle: 选用 Redis 做会话缓存\ntags: [cache, redis]\n",
    "importance: 4\naccess_count: 0\nstatus: active\n",
    "created_at: 2026-03-01T09:00:00+08:00\nupdated_at: 2026-03-01T09:00:00Z\n",
    "title: \"Quoted: with a colon\"\nsource: 'single'\n",
    "on: yes\ncode: 0123\nflag: true\nnothing:\nempty_list: []\n",
    "title: http://example.com/a:b\ncategory: -x\n",
    "title: 数据库迁移规范：必须可回滚\ntags: [数据库, 迁移]\n",
]
SLOW = [
    "title: a: b\n",  # ruamel refuses it; the fast path must not accept it
    "title: Learn C#  # a comment\n",
    "tags:\n  - a\n  - b\n",
    "# own-line comment\nid: x\n",
    'title: "with \\" escape"\n',
    "importance: 1.5\n",
    "created_at: 2026-03-01\n",
    "x: &anchor 1\ny: *anchor\n",
    "id: a\nid: b\n",
    "title: -\n",
    "tags: [a, 'b c']\n",
    "title: >\n  folded\n",
    "key:value\n",
]


def plain(value: Any) -> Any:
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, datetime):
        return to_datetime(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    return str(value)


@pytest.mark.parametrize("fm", FAST)
def test_simple_frontmatter_loads_what_ruamel_loads(fm: str) -> None:
    fast = load_simple_frontmatter(fm)
    assert fast is not None
    full = parse_document(f"---\n{fm}---\nbody\n", Path("m.md")).meta
    assert list(fast) == list(full)
    for key in full:
        assert plain(fast[key]) == plain(full[key]), key
        assert type(plain(fast[key])) is type(plain(full[key])), key


@pytest.mark.parametrize("fm", SLOW)
def test_anything_else_goes_to_ruamel(fm: str) -> None:
    assert load_simple_frontmatter(fm) is None


def test_tool_written_files_take_the_fast_path_and_read_only_parsing_matches() -> None:
    meta = {
        "id": "3f2a9c1e-1111-2222-3333-444455556666",
        "type": "long_term",
        "title": "选用 Redis 做会话缓存",
        "tags": ["cache", "redis", "会话"],
        "importance": 4,
        "created_at": datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc),
        "access_count": 0,
        "source": "cli",
    }
    text = MemoryDocument.new(meta, "我们决定用 Redis。\n").render()
    fm = text.split("---\n")[1]
    assert load_simple_frontmatter(fm) is not None
    fast = parse_document(text, Path("m.md"), read_only=True)
    full = parse_document(text, Path("m.md"))
    assert fast.body == full.body and {k: plain(v) for k, v in fast.meta.items()} == {
        k: plain(v) for k, v in full.meta.items()
    }


def test_a_tab_where_yaml_refuses_one_goes_to_ruamel() -> None:
    # Found by tests/properties: `title: <tab>` read as null here, while ruamel (show, edit) refuses the file.
    assert load_simple_frontmatter("id: x\ntitle: \t\n") is None


@pytest.mark.parametrize("tag", ["?0", "-x", ":a", "#话题", " padded", "a: b", ""])
def test_list_items_that_plain_flow_style_would_change_are_quoted(tag: str) -> None:
    # Found by tests/properties: ruamel wrote ['?0'] as [?0] and read it back as a mapping.
    text = MemoryDocument.new({"id": "x", "tags": ["缓存", tag]}, "body\n").render()
    assert list(parse_document(text, Path("m.md")).meta["tags"]) == ["缓存", tag]


# -- writing: dump_frontmatter must write exactly what ruamel writes ------------------------------------

TRICKY = "ab 中文：，。 -?:#,[]{}&*!|>'\"%@`.~0123456789tTfFnNyY\t\n…"


def ruamel_text(meta: dict[str, Any]) -> str:
    doc = MemoryDocument.new(meta, "")
    stream = io.StringIO()
    _YAML.dump(doc.meta, stream)
    return stream.getvalue()


WRITTEN = [
    {"id": "3f2a9c1e-1111", "title": "选用 Redis 做会话缓存", "tags": ["cache", "会话"], "importance": 4},
    {"title": "Use: colons # and 'quotes'", "source": "it's", "note": "a #b", "x": "a#b", "y": "a:b", "z": "a:"},
    {"t": "true", "n": None, "i": -3, "b": False, "num": "0123", "date": "2026-01-01", "dots": "...x"},
    {"dash": "- x", "d2": "-x", "q": "?", "q2": "?x", "c": ":", "c2": ":x", "pct": "%x", "lead": " x", "tail": "x "},
    {"tags": ["1", "a b", "c++", "数据库", "-x", "?0", " pad", "x,y"], "empty": [], "e": "", "nl": "a\nb"},
    {"created_at": datetime(2026, 3, 1, 9, 0, 5, 123456, tzinfo=timezone.utc), "naive": datetime(2026, 1, 2, 3, 4)},
    {"f": 1.5, "anchors": [{"path": "a.py", "symbol": "f"}], "tab": "a\tb", "long": "word " * 900, "emoji": "ok 🙂"},
    {"null": "x", "True": "y", "on": "yes", "a-b": 1, "long_title": "标题" * 1200},
]


@pytest.mark.parametrize("meta", WRITTEN)
def test_the_fast_writer_writes_what_ruamel_writes(meta: dict[str, Any]) -> None:
    assert dump_frontmatter(MemoryDocument.new(meta, "").meta) == ruamel_text(meta)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True),
        st.one_of(
            st.text(TRICKY, max_size=12),
            st.lists(st.text(TRICKY, max_size=6), max_size=3),
            st.integers(-5, 5),
            st.booleans(),
            st.none(),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_the_fast_writer_agrees_with_ruamel_on_any_simple_mapping(meta: dict[str, Any]) -> None:
    assert dump_frontmatter(MemoryDocument.new(meta, "").meta) == ruamel_text(meta)


def test_a_file_read_with_comments_is_written_by_ruamel_keeping_them() -> None:
    text = "---\n# kept\nid: x  # here too\ntitle: 标题\n---\nbody\n"
    doc = parse_document(text, Path("m.md"))
    doc.set("title", "new 新")
    assert doc.render() == "---\n# kept\nid: x  # here too\ntitle: new 新\n---\nbody\n"
