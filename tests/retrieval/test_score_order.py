"""One order (issue 36): a search's results are in the order of the score they show, and `--explain`'s parts add
up to that score — over random vaults and queries in Chinese and English, with the real models, through the
record every face shows (CLI text and `--json`, MCP, hooks and the page all print `HitRecord`s)."""

from __future__ import annotations

import tempfile
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aimate_memory.clock import FixedClock
from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.system.records import SCORE_PARTS, HitRecord
from aimate_memory.vault.layout import Layer
from tests.retrieval.conftest import system_with

START = datetime(2026, 5, 1, 9, 0, tzinfo=timezone.utc)
LINES = [
    "The retry logic lives in net/retry.py",
    "Retries wait 2 seconds, doubling up to 30 seconds",
    "We decided to use PostgreSQL for orders",
    "I prefer pytest over unittest for new tests",
    "Use Kafka as the event broker between services",
    "TODO: add pagination to /users",
    "Never commit secrets or .env files",
    "Deploy with the smoke tests first",
    "我们决定用 FastAPI 而不是 Flask",
    "回复请使用简体中文",
    "函数命名使用 snake_case",
    "我更喜欢用 pytest 写测试",
    "事件总线使用 Kafka",
    "订单服务用 PostgreSQL 存储",
    "重试逻辑在 net/retry.py 里，最多重试五次",
    "部署前先跑冒烟测试",
    "Redis 做会话缓存，过期时间 30 分钟",
]
QUERIES = [
    "重试逻辑在哪里",
    "订单用什么数据库",
    "where does the retry logic live",
    "event broker",
    "web framework choice",
    "分页",
    "密钥",
    "重试的时候等待多久？",
    "pytest",
    "deploy smoke tests",
    "会话缓存 Redis",
    "what did we decide about tests in June 2026",  # a date named: its part is in the score (retrieval/when.py)
    "2026年5月3日 重试",
]

memories = st.lists(
    st.tuples(
        st.sampled_from(LINES),
        st.integers(1, 5),  # importance
        st.integers(0, 400),  # days between this memory and the next (recency differs)
        st.sampled_from([None, "chat:a", "chat:b"]),  # conversations: neighbours support and are placed
    ),
    min_size=2,
    max_size=14,
)


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(vault=memories, queries=st.lists(st.sampled_from(QUERIES), min_size=1, max_size=3), k=st.integers(1, 12))
def test_the_order_shown_is_the_order_of_the_score_shown(
    loaded: LazyEmbedder, vault: list[tuple[str, int, int, str | None]], queries: list[str], k: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        clock = FixedClock(START)
        with system_with(home, loaded, clock) as system:
            for number, (line, importance, gap, thread) in enumerate(vault):
                clock.advance(days=gap)
                title = f"{line} #{number}"
                system.add(title, line, layer=Layer.LONG_TERM, importance=importance, thread=thread)
            system.refresh()
            for query in queries:
                found = system.search(query, k)
                assert found.mode == "hybrid"
                shown = [HitRecord.of(hit).to_dict(explain=True) for hit in found.results]
                scores = [hit["score"] for hit in shown]
                assert scores == sorted(scores, reverse=True), (query, [(h["title"], h["score"]) for h in shown])
                for hit in shown:
                    parts = sum(hit["factors"].get(key, 0.0) for key, _ in SCORE_PARTS)
                    assert parts == pytest.approx(hit["score"], abs=1e-5), (query, hit["factors"])
