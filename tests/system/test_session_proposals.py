"""What a session's end proposes from the person's turns (system/capture.py `propose_from_session`, through the
real classifier and USE): the person's own clauses, verbatim — a fact with the decision it explains, an item of
a list numbered inline, a requirement they set — and never a question or a problem named. Chinese and English."""

from __future__ import annotations

import pytest

from aimate_memory.system import MemorySystem

pytestmark = pytest.mark.slow  # the first call builds USE's ready-to-load copy (~15 s)


@pytest.mark.parametrize(
    ("turns", "proposed"),
    [
        (
            [
                "更具真实网站修复网易爬虫，我们根本没有api获取渠道，去掉api获取部分，在原有文件修复",
                "哪些功能只是创建出来却不能使用",
                "@netease.py 1 链接有问题 ，2 去掉api结构选项3 重构该爬虫",
            ],
            {"我们根本没有api获取渠道，去掉api获取部分", "去掉api结构选项"},
        ),
        (
            [
                "Fix the netease crawler; we have no API access, so never call the API.",
                "Which features were created but never worked",
                "1. the links are broken\n2. Avoid the API option\n3. refactor the crawler",
            ],
            {"we have no API access, so never call the API.", "Avoid the API option"},
        ),
    ],
)
def test_a_session_proposes_the_persons_own_clauses(system: MemorySystem, turns: list[str], proposed: set[str]) -> None:
    results = system.capture.propose_from_session("hear-session", [("user", turn) for turn in turns])
    assert {result.memory.body.strip() for result in results if result.memory is not None} == proposed
    assert all(result.action in ("pending", "conflict") for result in results)
