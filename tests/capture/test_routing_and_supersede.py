"""Confidence routing, supersede decisions and the result's JSON shape (pure, Chinese and English)."""

from __future__ import annotations

import pytest

from aimate_memory.capture import Candidate, CaptureResult, decide, jaccard, normalize, route
from aimate_memory.vault.layout import Layer


@pytest.mark.parametrize(
    ("confidence", "outcome", "status"),
    [
        (None, "written", "active"),
        (0.95, "written", "active"),
        (0.85, "written", "active"),
        (0.84, "pending", "pending"),
        (0.60, "pending", "pending"),
        (0.59, "dropped", None),
        (0.0, "dropped", None),
    ],
)
def test_route(confidence: float | None, outcome: str, status: str | None) -> None:
    decision = route(confidence, write_threshold=0.85, pending_threshold=0.60)
    assert (decision.outcome, decision.status) == (outcome, status)
    assert decision.reason


@pytest.mark.parametrize(
    ("confidence", "source", "layer", "status"),
    [
        # A person typing `aimate mem remember` keeps writing active, core included.
        (None, "cli", Layer.CORE, "active"),
        (None, "manual", Layer.CORE, "active"),
        # Nothing a model says becomes core without a person's accept, however sure it is.
        (0.99, "mcp", Layer.CORE, "pending"),
        (None, "mcp", Layer.CORE, "pending"),
        (0.95, "cli", Layer.CORE, "pending"),  # an agent calling the CLI states a confidence
        (None, "session", Layer.CORE, "pending"),
        (None, "claude", Layer.CORE, "pending"),
        # Outside core an agent's confident capture is written as before; low confidence still drops.
        (0.95, "mcp", Layer.LONG_TERM, "active"),
        (None, "mcp", Layer.SHORT_TERM, "active"),
        (0.70, "mcp", Layer.LONG_TERM, "pending"),
        (0.30, "mcp", Layer.CORE, None),
    ],
)
def test_route_consent_keeps_model_captures_out_of_core(
    confidence: float | None, source: str, layer: Layer, status: str | None
) -> None:
    decision = route(confidence, 0.85, 0.60, layer=layer, source=source)
    assert decision.status == status
    if status == "pending" and layer is Layer.CORE and (confidence or 1.0) >= 0.85:
        assert "review" in decision.reason and source in decision.reason


def test_normalize_ignores_case_punctuation_and_spacing() -> None:
    assert normalize("我喜欢用 Tab。") == normalize("我喜欢用tab")
    assert normalize("  I prefer   TABS! ") == normalize("i prefer tabs")
    assert normalize("I prefer tabs") != normalize("I prefer spaces")
    assert normalize("我们决定用 Redis") != normalize("我们决定用 Memcached")


def test_identical_restatement_exists() -> None:
    decision = decide("We chose Redis.", [("a" * 36, "we chose redis", 0.99)], 0.85, 0.5)
    assert (decision.action, decision.target_id) == ("exists", "a" * 36)
    zh = decide("我们决定用 Redis。", [Candidate("b" * 36, "我们决定用redis", None)], 0.85, 0.5)
    assert zh.action == "exists"


def test_supersede_the_most_similar_over_the_threshold() -> None:
    candidates = [("old-1", "we use redis", 0.86), ("old-2", "redis cache", 0.93), ("old-3", "x", 0.40)]
    decision = decide("we use redis 7 for the cache", candidates, 0.85, 0.5)
    assert (decision.action, decision.target_id) == ("supersede", "old-2")
    assert "cosine 0.93" in decision.reason
    assert decide("something else", [("old-3", "x", 0.40)], 0.85, 0.5).action == "new"
    assert decide("anything", [], 0.85, 0.5).action == "new"


def test_keyword_overlap_when_there_is_no_cosine() -> None:
    old = "会话缓存使用 Redis，过期时间 30 分钟"
    new = "会话缓存使用 Redis，过期时间改为 60 分钟"
    assert jaccard(old, new) >= 0.5
    decision = decide(new, [("zh-old", old, None)], 0.85, 0.5)
    assert decision.action == "supersede" and "keyword overlap" in decision.reason
    english = decide("Deploy on Fridays", [("en-old", "The cat sleeps in the sun", None)], 0.85, 0.5)
    assert english.action == "new"


def test_capture_result_to_dict() -> None:
    result = CaptureResult("written", {"id": "new"}, "old", "cosine 0.9 ≥ 0.85")
    assert result.to_dict(lambda memory: dict(memory)) == {
        "action": "written",
        "memory": {"id": "new"},
        "supersedes": "old",
        "reason": "cosine 0.9 ≥ 0.85",
        "conflicts": [],
    }
    assert CaptureResult("dropped", None, None, "low").to_dict(dict)["memory"] is None
