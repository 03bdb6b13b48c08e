"""Turn blocks round-trip exactly; trimming plans never lose a turn (hypothesis properties)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from aimate_memory.sessions import Turn, parse_turns, plan_trim, render_turn, render_turns, usage, usage_level, warnings
from aimate_memory.sessions.trimming import protected_start

T0 = datetime(2026, 11, 24, 10, 0, tzinfo=timezone(timedelta(hours=8)))
TRICKY = [
    "---",
    "### 2 · user · 2026-11-24T10:00:00+00:00 · 5 tokens",
    "\\### 3 · assistant · x · 1 tokens",
    "```python\nprint('hi')\n```",
    "# 标题",
    "<<<<<<< HEAD",
    ">>>>>>> branch",
    "=======",
    "\\",
    "",
    "我们决定用 Redis 做会话缓存。",
    "We chose SQLite.",
    "  indented",
]
texts = st.lists(st.one_of(st.sampled_from(TRICKY), st.text(max_size=30)), max_size=6).map("\n".join)
roles = st.sampled_from(["user", "assistant", "system", "tool"])


@given(st.lists(st.tuples(roles, st.integers(0, 10_000), texts), max_size=8))
@settings(max_examples=300, deadline=None)
def test_turn_blocks_round_trip_exactly(specs: list[tuple[str, int, str]]) -> None:
    turns = [Turn(role, T0 + timedelta(seconds=i), tokens, text) for i, (role, tokens, text) in enumerate(specs)]
    body = "# 会话 session\n\n" + render_turns(turns)
    assert parse_turns(body) == turns


def test_block_format_is_readable() -> None:
    block = render_turn(3, Turn("user", T0, 12, "明天修复登录 bug\nfix it"))
    assert block == "### 3 · user · 2026-11-24T10:00:00+08:00 · 12 tokens\n\n明天修复登录 bug\nfix it\n\n"
    # Appending a block never changes what came before: the file diffs as added lines only.
    first = render_turns([Turn("user", T0, 1, "a")])
    assert render_turns([Turn("user", T0, 1, "a"), Turn("assistant", T0, 1, "b")]).startswith(first)


def _turns(specs: list[tuple[str, int]]) -> list[Turn]:
    return [Turn(role, T0 + timedelta(seconds=i), tokens, f"turn {i}") for i, (role, tokens) in enumerate(specs)]


@given(
    specs=st.lists(st.tuples(roles, st.integers(0, 400)), max_size=30),
    window_seed=st.integers(0, 30),
    max_tokens=st.integers(100, 3000),
    ratios=st.tuples(st.floats(0.3, 1.0), st.floats(0.05, 0.9)),
    protected_rounds=st.integers(0, 4),
)
@settings(max_examples=500, deadline=None)
def test_trimming_moves_the_window_forward_and_reaches_the_target(
    specs: list[tuple[str, int]],
    window_seed: int,
    max_tokens: int,
    ratios: tuple[float, float],
    protected_rounds: int,
) -> None:
    turns = _turns(specs)
    window_start = min(window_seed, len(turns))
    critical, target = max(ratios), min(ratios)
    plan = plan_trim(turns, window_start, max_tokens, critical, target, protected_rounds)
    assert plan.new_window_start >= window_start  # only forward
    assert plan.usage_before == usage(turns, window_start)
    assert plan.usage_after == usage(turns, plan.new_window_start)
    limit = protected_start(turns, protected_rounds)
    if plan.trimmed_range is None:
        assert plan.new_window_start == window_start
        assert (
            plan.usage_before < critical * max_tokens
            or window_start >= limit
            or plan.usage_before <= target * max_tokens
        )
        return
    start, end = plan.trimmed_range
    assert (start, end) == (window_start, plan.new_window_start) and start < end  # contiguous
    assert end <= limit  # the last rounds are protected
    assert plan.usage_after <= target * max_tokens or end == limit  # target, unless only protected turns remain
    assert all(turns[i].role != "system" for i in plan.trimmed_turn_indexes(turns))
    assert end == len(turns) or turns[end].role == "user" or end == limit  # whole rounds


def test_trim_example_protects_system_turns_and_last_rounds() -> None:
    turns = _turns([("system", 50)] + [("user", 100), ("assistant", 100)] * 5)
    plan = plan_trim(turns, 0, max_tokens=1000, critical_ratio=0.85, target_ratio=0.5, protected_rounds=2)
    assert plan.usage_before == 1050 and plan.trimmed_range == (0, 7)
    assert plan.usage_after == 450 == usage(turns, 7)  # the system turn (50) stays in the window
    assert plan.trimmed_turn_indexes(turns) == [1, 2, 3, 4, 5, 6]
    below = plan_trim(turns[:7], 0, max_tokens=1000, critical_ratio=0.85, target_ratio=0.5, protected_rounds=2)
    assert not below.needed and below.new_window_start == 0


def test_usage_levels_and_warnings() -> None:
    assert usage_level(600, 1000, 0.7, 0.85).level == "ok"
    assert usage_level(700, 1000, 0.7, 0.85).level == "warning"
    assert usage_level(850, 1000, 0.7, 0.85).level == "critical"
    turns = _turns([("user", 400), ("assistant", 350)])
    assert warnings(turns, 0, 1000, 0.7, 0.85) == ["session window at 75% of 1000 tokens: approaching the limit"]
    assert warnings(turns, 1, 1000, 0.7, 0.85) == []
