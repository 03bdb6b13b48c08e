"""Context budgeting (pure): flow-over, dedupe, sentence cuts, never over budget, core never silently dropped."""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from aimate_memory.context import ContextItem, SectionRequest, allocate, build_context, cut_to_fit
from aimate_memory.context.budget import sentences
from aimate_memory.index.chunking import estimate_tokens
from aimate_memory.sessions import usage_level

ZH = "我们决定用 Redis 做会话缓存。过期时间是 30 分钟！为什么不用 Memcached？因为它不支持持久化。"
EN = "We chose SQLite for the index. It needs no server! Why not Postgres? Deployment stays simple."


def _item(ident: str, title: str, body: str, scope: str = "project", path: str = "long_term/x.md") -> ContextItem:
    return ContextItem(ident.ljust(36, "0"), title, body, scope, path, 0.5)


def test_rendered_text_has_headings_tags_and_counts_exactly() -> None:
    core = _item("3f2a1c0d", "我习惯用 Tab", "缩进用 Tab，不用空格。", "global", "core/preferences.md")
    context = build_context([SectionRequest("core", "global", [core], 1.0, required=True)], 1000)
    assert context.text == (
        "## Core memory · global\n\n### 我习惯用 Tab [3f2a1c0d global:core/preferences.md]\n\n缩进用 Tab，不用空格。\n"
    )
    assert context.total_tokens == estimate_tokens(context.text) == context.sections[0].tokens
    assert context.to_dict() == {
        "sections": [
            {
                "layer": "core",
                "scope": "global",
                "tokens": context.total_tokens,
                "items": [{"id": core.id, "title": "我习惯用 Tab", "tokens": context.total_tokens - 8, "score": 0.5}],
            }
        ],
        "total_tokens": context.total_tokens,
        "budget": 1000,
        "warnings": [],
        "text": context.text,
    }
    assert estimate_tokens("## Core memory · global") == 8


def test_unused_budget_flows_to_the_next_section() -> None:
    small = _item("a", "short", "One line.")
    big = [_item(f"b{i}", f"long {i}", EN) for i in range(6)]
    sections = allocate(
        [SectionRequest("core", "global", [small], 0.5), SectionRequest("long_term", "project", big, 0.5)], 200
    )
    assert sections[0].tokens < 100 and sections[1].allowance == 200 - sections[0].tokens
    assert sections[1].tokens > 100  # used more than its own half


def test_a_memory_reached_twice_appears_once() -> None:
    shared = _item("dup", "Redis", ZH)
    sections = allocate(
        [SectionRequest("short_term", "project", [shared], 0.5), SectionRequest("long_term", "project", [shared], 0.5)],
        1000,
    )
    assert [p.item.id for p in sections[0].items] == [shared.id] and sections[1].items == []
    assert sections[1].duplicates == [shared.id]


def test_cuts_fall_on_sentence_boundaries_zh_and_en() -> None:
    zh_cut = cut_to_fit(ZH, 22)  # 12 + 9 tokens of sentences, 1 for the …
    assert zh_cut == "我们决定用 Redis 做会话缓存。过期时间是 30 分钟！ …"
    en_cut = cut_to_fit(EN, 15)
    assert en_cut == "We chose SQLite for the index. It needs no server! …"
    assert cut_to_fit(EN, 15, keep_tail=True) == "… Why not Postgres? Deployment stays simple."
    assert cut_to_fit(EN, 3) is None
    assert "".join(sentences(ZH + "\n" + EN)) == ZH + "\n" + EN


def test_core_that_does_not_fit_is_named_in_a_warning() -> None:
    core = [
        _item("c1", "Rule one", EN, "global", "core/rules.md"),
        _item("c2", "规则二", ZH, "global", "core/rules.md"),
    ]
    context = build_context(
        [SectionRequest("core", "global", core, 0.5, required=True)],
        60,
        session_usage=usage_level(90, 100, 0.7, 0.85),
        pending_captures=2,
    )
    kinds = [warning.kind for warning in context.warnings]
    assert kinds == ["session_usage", "core_over_budget", "pending_captures"]
    core_warning = context.warnings[1].message
    assert "'规则二' (c2000000)" in core_warning or "'Rule one' (c1000000)" in core_warning
    assert context.total_tokens <= 60


bodies = st.lists(
    st.sampled_from([ZH, EN, "短句。", "Short.", "", "一行\n两行\n三行。", "x " * 40]), min_size=1, max_size=3
)
items = st.builds(
    lambda ident, title, body: _item(ident, title, "".join(body)),
    st.sampled_from(["a", "b", "c", "d", "e", "f"]),
    st.sampled_from(["标题", "Title", "决定 decision"]),
    bodies,
)
requests = st.builds(
    SectionRequest,
    layer=st.sampled_from(["core", "session", "short_term", "long_term"]),
    scope=st.sampled_from(["global", "project"]),
    items=st.lists(items, max_size=5),
    ratio=st.floats(0.0, 0.6),
    required=st.booleans(),
    keep_tail=st.booleans(),
)


@given(st.lists(requests, max_size=5), st.integers(0, 600))
@settings(max_examples=400, deadline=None)
def test_never_over_budget_no_id_twice_core_never_silently_dropped(reqs: list[SectionRequest], budget: int) -> None:
    context = build_context(reqs, budget)
    assert context.total_tokens == estimate_tokens(context.text) <= budget
    assert context.total_tokens == sum(section.tokens for section in context.sections)
    placed = [p.item.id for section in context.sections for p in section.items]
    assert len(placed) == len(set(placed))
    warned = " ".join(warning.message for warning in context.warnings)
    for request, section in zip(reqs, context.sections, strict=True):
        for placed_item in section.items:
            assert placed_item.item.id in {item.id for item in request.items}
            if placed_item.cut:
                marker = placed_item.text.replace("…", "").strip()
                assert marker in placed_item.item.body  # a run of whole sentences of the body
        if request.required:  # each core item is here whole, placed by an earlier section, or named
            whole = {p.item.id for p in section.items if not p.cut}
            for item in request.items:
                assert item.id in whole or item.id in section.duplicates or item.id[:8] in warned
        event(f"cut={any(p.cut for p in section.items)} skipped={bool(section.skipped)}")
