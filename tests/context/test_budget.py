"""Context budgeting (pure): flow-over, dedupe, sentence cuts, never over budget, core never silently dropped."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from aimate_memory.context import ContextItem, SectionRequest, allocate, build_context, cut_to_fit
from aimate_memory.context.budget import NAMED_IN_WARNING, core_left_out, sentences
from aimate_memory.context.render import render_item, shown_text
from aimate_memory.sessions import usage_level
from aimate_memory.text.estimate import prompt_tokens
from aimate_memory.vault.anchors import Staleness

ZH = "我们决定用 Redis 做会话缓存。过期时间是 30 分钟！为什么不用 Memcached？因为它不支持持久化。"
EN = "We chose SQLite for the index. It needs no server! Why not Postgres? Deployment stays simple."


def _item(ident: str, title: str, body: str, scope: str = "project", path: str = "long_term/x.md") -> ContextItem:
    return ContextItem(ident.ljust(36, "0"), title, body, scope, path, 0.5)


def test_rendered_text_is_compact_and_counts_exactly() -> None:
    core = _item("3f2a1c0d", "我习惯用 Tab", "缩进用 Tab，不用空格。", "global", "core/preferences.md")
    context = build_context([SectionRequest("core", "global", [core], required=True)], 1000)
    assert context.text == "## Core memory · global\n\n- 我习惯用 Tab: 缩进用 Tab，不用空格。 (3f2a1c0d)\n"
    assert context.total_tokens == prompt_tokens(context.text) == context.sections[0].tokens
    item = {
        "id": core.id,
        "title": "我习惯用 Tab",
        "scope": "global",
        "path": "core/preferences.md",  # paths are in the JSON, not in the text
        "tokens": context.total_tokens - 8,
        "score": 0.5,
        "stale": None,  # anchors (docs/anchors.md): what changed in the code it cites, when something did
        "cut": False,
    }
    assert context.to_dict() == {
        "sections": [
            {
                "layer": "core",
                "scope": "global",
                "tokens": context.total_tokens,
                "allowance": 1000,
                "items": [item],
                "left_out": [],
            }
        ],
        "total_tokens": context.total_tokens,
        "budget": 1000,
        "warnings": [],
        "text": context.text,
    }
    assert prompt_tokens("## Core memory · global") == 8


@pytest.mark.parametrize(
    ("title", "body", "rendered"),
    [
        # Added by its title alone (no body), or a body that only repeats the title: the title is the text.
        ("Never commit directly to main", "", "- Never commit directly to main (0a1b2c3d)\n"),
        ("我习惯用 Tab 缩进", "", "- 我习惯用 Tab 缩进 (0a1b2c3d)\n"),
        ("我习惯用 Tab 缩进", "我习惯用 Tab 缩进", "- 我习惯用 Tab 缩进 (0a1b2c3d)\n"),
        ("Use uv", "# Use uv", "- Use uv (0a1b2c3d)\n"),
        # A title cut from the sentence (capture does that to long ones) is not printed again.
        (
            "We decided to use Redis for the session cache because…",
            "We decided to use Redis for the session cache because Memcached has no persistence.",
            "- We decided to use Redis for the session cache because Memcached has no persistence. (0a1b2c3d)\n",
        ),
        (
            "测试数据库在每次运行前…",
            "测试数据库在每次运行前会被清空。",
            "- 测试数据库在每次运行前会被清空。 (0a1b2c3d)\n",
        ),
        # A title that says something else leads the line.
        ("Always use pnpm", "始终用 pnpm，不用 npm。", "- Always use pnpm: 始终用 pnpm，不用 npm。 (0a1b2c3d)\n"),
        # Several lines: the title, then the body (without a first line repeating the title).
        (
            "部署流程",
            "# 部署流程\n\n先跑测试。\n\n再打 tag。",
            "### 部署流程 (0a1b2c3d)\n\n先跑测试。\n\n再打 tag。\n\n",
        ),
        ("Deploy", "Build first.\n\nThen tag.", "### Deploy (0a1b2c3d)\n\nBuild first.\n\nThen tag.\n\n"),
    ],
)
def test_a_memory_renders_as_one_line_or_title_and_body(title: str, body: str, rendered: str) -> None:
    item = _item("0a1b2c3d", title, body)
    assert render_item(item, shown_text(item)) == rendered
    context = build_context([SectionRequest("long_term", "project", [item], 1.0)], 500)
    assert rendered.strip() in context.text and "long_term/x.md" not in context.text
    assert context.total_tokens == prompt_tokens(context.text)


def test_core_comes_first_and_whole_then_ratios_share_the_rest() -> None:
    """10 core memories (zh and en) and 20 notes at the hook's default budget: every core memory is there,
    whole; the notes fill what is left."""
    rules = [_item(f"c{i}", f"Rule {i}: never push to main on a Friday.", "", "global") for i in range(5)]
    rules += [_item(f"z{i}", f"规则 {i}：提交前必须先跑测试。", "", "global") for i in range(5)]
    notes = [_item(f"n{i:02}", f"note {i}", EN + " " + EN + " " + EN) for i in range(20)]  # ~90 tokens each
    requests = [
        SectionRequest("core", "global", rules, required=True),
        SectionRequest("short_term", "project", notes, 0.25),
        SectionRequest("long_term", "project", [], 0.25),
    ]
    context = build_context(requests, 2000, core_cap=3000)
    core, short, _ = context.sections
    assert [p.item.id for p in core.items] == [r.id for r in rules] and not any(p.cut for p in core.items)
    assert context.warnings == []
    # long-term had nothing: its share went to the notes, and they used the budget (what is free is
    # less than one more note)
    assert short.tokens > 2000 * 0.5 and context.total_tokens <= 2000
    assert 2000 - context.total_tokens < short.items[0].tokens


def test_core_cap_leaves_out_whole_memories_and_names_them() -> None:
    rules = [_item(f"c{i}", f"Rule {i}", EN, "global") for i in range(4)]  # ~24 tokens each
    rules.append(_item("zz", "规则", "提交前必须先跑测试。", "project"))
    requests = [
        SectionRequest("core", "global", rules[:4], required=True),
        SectionRequest("core", "project", rules[4:], required=True),
        SectionRequest("long_term", "project", [_item("l1", "Note", "Short.")], 1.0),
    ]
    context = build_context(requests, 800, core_cap=60)
    placed = [p.item.id for s in context.sections if s.required for p in s.items]
    assert sum(s.tokens for s in context.sections if s.required) <= 60
    assert not any(p.cut for s in context.sections if s.required for p in s.items)  # core is never cut
    left_out = [r for r in rules if r.id not in placed]
    assert left_out  # the cap was too small for all
    (warning,) = context.warnings
    assert warning.kind == "core_over_budget" and warning.message.startswith(f"{len(left_out)} core memor")
    for item in left_out:
        assert f"({item.id[:8]})" in warning.message
    assert "context.core_max_tokens" in warning.message  # the cap, not the budget, was the limit
    assert context.sections[2].items  # core's cap left the rest of the budget to the others


def test_core_left_out_by_a_small_budget_says_how_to_see_it() -> None:
    rules = [_item(f"c{i}", f"规则 {i}", ZH, "global") for i in range(3)]
    context = build_context([SectionRequest("core", "global", rules, required=True)], 40, core_cap=3000)
    (warning,) = context.warnings
    assert "run `aimate mem context` to see them" in warning.message and context.total_tokens <= 40


def test_an_unused_share_flows_to_the_sections_before_and_after() -> None:
    many = [_item(f"a{i}", f"long {i}", EN) for i in range(8)]
    few = [_item("b0", "short", "One line.")]
    more = [_item(f"c{i}", f"其他 {i}", ZH) for i in range(8)]
    sections = allocate(
        [
            SectionRequest("short_term", "project", many, 1 / 3),
            SectionRequest("long_term", "project", few, 1 / 3),
            SectionRequest("long_term", "global", more, 1 / 3),
        ],
        300,
    )
    first, middle, last = sections
    assert middle.tokens < 30 and len(middle.items) == 1
    # the middle's unused share went both ways: backwards to the first section, forwards to the last
    assert first.tokens > 100 and last.tokens > 100 - 30
    assert first.tokens + last.tokens > 200
    assert 300 - sum(s.tokens for s in sections) < 20  # nothing fits in what is left


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
        [SectionRequest("core", "global", core, required=True)],
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
    st.sampled_from(["标题", "Title", "决定 decision", "Short.", "短句。", "x", "We chose SQLite for the index…", ""]),
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


@given(st.lists(requests, max_size=5), st.integers(0, 600), st.none() | st.integers(0, 300))
@settings(max_examples=400, deadline=None)
def test_never_over_budget_no_id_twice_core_never_silently_dropped(
    reqs: list[SectionRequest], budget: int, core_cap: int | None
) -> None:
    context = build_context(reqs, budget, core_cap=core_cap)
    assert context.total_tokens == prompt_tokens(context.text) <= budget
    assert sum(s.tokens for s in context.sections if s.required) <= (budget if core_cap is None else core_cap)
    assert context.total_tokens == sum(section.tokens for section in context.sections)
    placed = [p.item.id for section in context.sections for p in section.items]
    assert len(placed) == len(set(placed))
    warned = " ".join(warning.message for warning in context.warnings)
    left_out = {item.id: item for item in core_left_out(context.sections)}
    for request, section in zip(reqs, context.sections, strict=True):
        for placed_item in section.items:
            assert placed_item.item.id in {item.id for item in request.items}
            if placed_item.cut:
                marker = placed_item.text.replace("…", "").strip()
                assert marker in shown_text(placed_item.item)  # a run of whole sentences of its text
        if request.required:  # each core item is here whole, placed by another section, or named
            assert not any(p.cut for p in section.items)
            for item in request.items:
                assert item.id in placed or item.id in left_out
    if left_out:
        assert warned.startswith(f"{len(left_out)} core memor")
        assert all(f"({ident[:8]})" in warned for ident in list(left_out)[:NAMED_IN_WARNING])
    free = budget - context.total_tokens
    for request, section in zip(reqs, context.sections, strict=True):
        if request.required:
            continue
        opening = 0 if section.items else prompt_tokens(section.heading)
        for item in section.skipped:  # nothing waits that would fit whole in what is free
            assert item.id in placed or opening + prompt_tokens(render_item(item, shown_text(item))) > free
        event(f"cut={any(p.cut for p in section.items)} skipped={bool(section.skipped)}")


@pytest.mark.parametrize(("title", "body"), [("令牌刷新", "令牌刷新在 auth/session.py 里。"), ("Token refresh", EN)])
def test_stale_memories_are_listed_under_a_heading_that_states_a_fact(title: str, body: str) -> None:
    stale = Staleness("auth/session.py", "changed", "2026-11-20", 3)
    fresh = _item("aaaaaaaa", "Other", "Nothing cited.")
    cited = replace(_item("7f10ca5b", title, body), stale=stale)
    context = build_context([SectionRequest("long_term", "project", [fresh, cited], ratio=1.0)], 2000)
    heading = "## Possibly out of date · the code these memories cite changed since they were verified"
    assert context.text.endswith(
        f"{heading}\n\n- {title} (7f10ca5b): auth/session.py changed in 3 commits since 2026-11-20\n"
    )
    assert context.text.count("(aaaaaaaa)") == 1  # the fresh memory is not listed again
    assert context.total_tokens == prompt_tokens(context.text)  # the lines are counted (outside the budget)
    items = context.to_dict()["sections"][0]["items"]
    assert [item["stale"] for item in items] == [None, stale.to_dict()]
