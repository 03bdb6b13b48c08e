"""A choice among the assistant's options, through the real classifier and USE (issue 39; docs/design.md,
"Choices among the assistant's options"): a session's end proposes the option the person picked, in their words
and the option's text, pending like any capture; a pick whose option the transcript does not spell out leaves
nothing to review. Chinese and English."""

from __future__ import annotations

import pytest

from aimate_memory.system import MemorySystem

pytestmark = pytest.mark.slow  # the first call builds USE's ready-to-load copy (~15 s)

OPTIONS_EN = """The layer reference goes stale after a rotation. Options:

## Option 1: Pass the layer as a parameter to each function call
## Option 2: Pass the layers object to the factory and read layers.drawingLayer at each call
## Option 3: Recreate the color system after every rotation

Which one do you want?"""
OPTIONS_ZH = """数据库有两种做法：
1. 每个爬虫使用独立的数据库文件
2. 所有爬虫共用 data/db/finance_news.db 一个数据库
你倾向哪一种？"""


@pytest.mark.parametrize(
    ("offer", "pick", "decision"),
    [
        (
            OPTIONS_EN,
            "Let's go with option 2",
            "Let's go with option 2: Pass the layers object to the factory and read layers.drawingLayer at each call",
        ),
        (OPTIONS_ZH, "就用第二种方案", "就用第二种方案：所有爬虫共用 data/db/finance_news.db 一个数据库"),
    ],
)
def test_a_pick_is_proposed_as_the_option_it_names(system: MemorySystem, offer: str, pick: str, decision: str) -> None:
    turns = [("user", "How should we handle this?"), ("assistant", offer), ("user", pick)]
    results = system.capture.propose_from_session("choice-session", turns)
    bodies = {result.memory.body.strip(): result for result in results if result.memory is not None}
    assert decision in bodies
    chosen = bodies[decision]
    assert chosen.action == "pending" and chosen.memory is not None
    assert chosen.memory.category == "decision" and chosen.memory.status == "pending"


@pytest.mark.parametrize(
    ("offer", "pick"),
    [(OPTIONS_EN[:60], "Let's go with option 2"), (OPTIONS_ZH[:12], "就用第二种方案")],
)
def test_a_pick_of_an_option_cut_from_the_transcript_is_not_proposed(
    system: MemorySystem, offer: str, pick: str
) -> None:
    turns = [("user", "How should we handle this?"), ("assistant", offer), ("user", pick)]
    results = system.capture.propose_from_session("cut-session", turns)
    assert [result.memory.body for result in results if result.memory is not None] == []
