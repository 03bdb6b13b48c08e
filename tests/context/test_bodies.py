"""A memory's body put back together from its index chunks: headings once (from their own column), comments
gone — whatever the title holds, ` › ` included."""

from __future__ import annotations

from pathlib import Path

import pytest

from aimate_memory.context.bodies import body_from_chunks
from aimate_memory.index.chunking import chunk_memory
from aimate_memory.system import MemorySystem

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
    chunks = [(chunk.text, chunk.heading) for chunk in chunk_memory(title, body)]
    assert body_from_chunks(chunks) == expected


def test_long_sections_are_one_heading_and_templates_are_empty() -> None:
    long_body = "## 背景 Background\n\n" + "\n\n".join(f"第 {n} 段 paragraph {n} " + "词 word " * 60 for n in range(6))
    chunks = [(chunk.text, chunk.heading) for chunk in chunk_memory("长文 long", long_body)]
    assert len(chunks) > 1
    rebuilt = body_from_chunks(chunks)
    assert rebuilt.count("#### 背景 Background") == 1 and "第 5 段 paragraph 5" in rebuilt
    template = chunk_memory("Preferences", "# Preferences\n\n<!-- e.g. I prefer tabs -->\n")
    assert body_from_chunks([(c.text, c.heading) for c in template]) == ""


ARROW_TITLES = [
    # (title, body, what the context must show of it)
    (
        "部署 › 生产环境",
        "## 步骤 › 回滚\n\n先回滚数据库。\n\n## 检查\n\n看日志。\n",
        "#### 步骤 › 回滚\n\n先回滚数据库。\n\n#### 检查\n\n看日志。",
    ),
    ("Deploy › prod", "Build first.\n\n## Steps\n\nShip it.\n", "Build first.\n\n#### Steps\n\nShip it."),
    ("Ends with ›", "## Why\n\nBecause.\n", "#### Why\n\nBecause."),
]


@pytest.mark.parametrize(("title", "body", "expected"), ARROW_TITLES)
def test_a_title_holding_the_heading_separator_keeps_its_headings_through_the_index(
    title: str, body: str, expected: str, cli, initialized, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    with MemorySystem.open(global_only=True) as system:
        memory = system.add(title, body)
        system.refresh()
        (index,) = [index for index in system.store.indexes if index.exists]
        assert body_from_chunks(index.memory_chunks([memory.id])[memory.id]) == expected
        context = system.build_context(title, budget=4000)
    assert expected in context.text
