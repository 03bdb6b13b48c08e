"""A memory's body put back together from its index chunks (pure): headings once, comments gone."""

from __future__ import annotations

import pytest

from aimate_memory.context.bodies import body_from_chunks, chunk_heading
from aimate_memory.index.chunking import chunk_memory

BODIES = [
    (
        "选用 Redis 做会话缓存",
        "# 选用 Redis 做会话缓存\n\n延迟低，支持过期。\n\n## 为什么不用 Memcached\n\n没有持久化。\n\n<!-- 备注 -->\n",
        "延迟低，支持过期。\n\n#### 为什么不用 Memcached\n\n没有持久化。",
    ),
    (
        "Deploy checklist",
        "Build first.\n\n## Steps\n\n1. build\n2. ship\n\n### Rollback\n\nRevert the tag.\n",
        "Build first.\n\n#### Steps\n\n1. build\n2. ship\n\n#### Steps › Rollback\n\nRevert the tag.",
    ),
]


@pytest.mark.parametrize(("title", "body", "expected"), BODIES)
def test_body_from_the_chunks_keeps_text_and_headings(title: str, body: str, expected: str) -> None:
    chunks = [(chunk.text, chunk.embed_text) for chunk in chunk_memory(title, body)]
    assert body_from_chunks(title, chunks) == expected


def test_long_sections_are_one_heading_and_templates_are_empty() -> None:
    long_body = "## 背景 Background\n\n" + "\n\n".join(f"第 {n} 段 paragraph {n} " + "词 word " * 60 for n in range(6))
    chunks = [(chunk.text, chunk.embed_text) for chunk in chunk_memory("长文 long", long_body)]
    assert len(chunks) > 1
    rebuilt = body_from_chunks("长文 long", chunks)
    assert rebuilt.count("#### 背景 Background") == 1 and "第 5 段 paragraph 5" in rebuilt
    template = chunk_memory("Preferences", "# Preferences\n\n<!-- e.g. I prefer tabs -->\n")
    assert body_from_chunks("Preferences", [(c.text, c.embed_text) for c in template]) == ""
    assert chunk_heading("T", "text", "T\ntext") == "" and chunk_heading("", "text", "H\ntext") == "H"
