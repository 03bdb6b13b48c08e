"""What a session start shows of a long memory, and what it says it left out (issue 39: the largest Chinese
session start of the replay, 1,569 tokens, held whole 150-character notes while the budget never bound; docs/
design.md, "What a session start shows of a long memory"). Pure: the builder, in Chinese and English."""

from __future__ import annotations

import pytest

from aimate_memory.context import ContextItem, SectionRequest, build_context
from aimate_memory.context.budget import clauses
from aimate_memory.context.build import LEFT_OUT_KIND

ZH = (
    "当前项目存在多种爬虫架构（BaseCrawler、UnifiedCrawler 等），建议统一使用新的核心爬虫架构"
    "（app/crawlers/core/base_crawler.py），它支持同步和异步模式，实现了更好的分离关注点的设计模式。"
)
EN = (
    "We keep the cache in Redis, because the sessions need it across workers; the old Memcached setup lost "
    "keys on every restart, and nobody could tell why for weeks until we read the eviction logs."
)


def _item(ident: str, text: str, title: str | None = None) -> ContextItem:
    return ContextItem(ident * 2, title or text[:20] + "…", text, "project", f"long_term/{ident}.md")


@pytest.mark.parametrize(("text", "first"), [(ZH, "当前项目存在多种爬虫架构"), (EN, "We keep the cache in Redis")])
def test_a_long_note_is_its_summary_line_and_its_id_finds_the_rest(text: str, first: str) -> None:
    short = _item("aaaa", "跳过广告版块" if first.startswith("当前") else "Skip the ad sections")
    long = _item("bbbb", text)
    request = SectionRequest("long_term", "project", [short, long], ratio=1.0, summary_tokens=40)
    context = build_context([request], 3000)
    [section] = context.sections
    shown = {placed.item.id: placed for placed in section.items}
    assert not shown[short.id].cut and shown[short.id].text == short.body  # short: whole
    summary = shown[long.id]
    assert summary.cut and summary.text.startswith(first) and summary.text.endswith("…")
    assert len(summary.text) < len(text) * 3 / 4 and summary.tokens <= 40
    assert f"{summary.text} (bbbbbbbb)" in context.text  # no title label gained back: the id finds the rest
    whole = build_context([SectionRequest("long_term", "project", [short, long], ratio=1.0)], 3000)
    assert f"{text} (bbbbbbbb)" in whole.text  # without a summary bar (a query's context): whole


@pytest.mark.parametrize("text", [ZH, EN])
def test_core_is_never_summarized(text: str) -> None:
    core = SectionRequest("core", "project", [_item("cccc", text)], required=True, summary_tokens=40)
    [section] = build_context([core], 3000).sections
    assert [placed.text for placed in section.items] == [text]


def test_clauses_concatenate_back_and_never_cut_inside_brackets() -> None:
    for text in (ZH, EN, "一句话。Two sentences. 第三，第四；第五：end"):
        pieces = clauses(text)
        assert "".join(pieces) == text and len(pieces) > 1
    # Never inside brackets, never after a label's colon: "复杂场景： …" would say nothing.
    assert clauses("复杂场景：选 Pinia（Vue 3）或 Zustand（React，轻量状态管理库），避免引入完整 Redux。") == [
        "复杂场景：选 Pinia（Vue 3）或 Zustand（React，轻量状态管理库），",
        "避免引入完整 Redux。",
    ]
    english = clauses("Use a store (e.g. Pinia, or Vuex), not globals.")
    assert english == ["Use a store (e.g. Pinia, or Vuex),", " not globals."]


@pytest.mark.parametrize(
    "notes",
    [
        [f"第{index}条笔记：爬虫的数据库文件放在子文件夹里，每天备份一次。" for index in range(40)],
        [f"Note {index}: the crawler databases live in a subfolder, backed up daily." for index in range(40)],
    ],
)
def test_what_the_budget_leaves_out_is_counted_and_findable(notes: list[str]) -> None:
    items = [_item(f"{index:04d}", note) for index, note in enumerate(notes)]
    context = build_context([SectionRequest("long_term", "project", items, ratio=1.0, summary_tokens=40)], 300)
    [section] = context.sections
    assert section.skipped and context.total_tokens <= 300
    [warning] = [warning for warning in context.warnings if warning.kind == LEFT_OUT_KIND]
    assert f"Long-term memory · project (team notes): {len(section.skipped)}" in warning.message
    assert "aimate mem list --layer" in warning.message and "aimate mem show ID" in warning.message
    roomy = build_context([SectionRequest("long_term", "project", items, ratio=1.0)], 100_000)
    assert not [warning for warning in roomy.warnings if warning.kind == LEFT_OUT_KIND]  # nothing left out
