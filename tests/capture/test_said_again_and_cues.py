"""What an English speaker states that a session hears, and how a session aggregates what it heard (issue 39's
second round; capture/rules.py, capture/heard.py, capture/distill.py; docs/design.md, "Capture from a
conversation"): classes of wording that stand — a thing left for later, how the thing behaves by default, a
change the person made, where things live, how to work on any task, a conditional instruction — and git
housekeeping that does not; a wording with a slip said again counts as said again unless it negates or changes
the other; a long session may propose more. Chinese and English, with the real kind model."""

from __future__ import annotations

import pytest

from aimate_memory.capture.classify import classify
from aimate_memory.capture.distill import distill, session_limit
from aimate_memory.capture.heard import heard


def _file(sentence: str):
    return classify(sentence, has_project=True)


@pytest.mark.parametrize(
    "sentence",
    [
        # something left for later
        "I will have to fix that at some point.",
        "TODO：回头把 --no-verify 去掉。",
        # how the thing behaves unless told, and a change the person made to it themselves
        "All of the settings panels start collapsed by default.",
        "I updated the font loader's path to include the router base.",
        "本项目的设置面板默认是折叠的。",
        # where things of a kind live
        "Please save the plan as a markdown file in `notes/plans`.",
        "计划文件统一存放在 docs/plans 目录。",
        # how the person wants the assistant to work on any task
        "First, explain your plan to me.",
        "Then ask any questions you might have.",
        "以后先说明你的计划，再动手。",
        # a conditional instruction
        "If your plan changes during implementation, append the reasons to the plan file.",
        # emphasis markup does not hide the words
        "The correct file _should_ be src/transforms/index.js",
        # a preference said as a leaning; a fact with an aside or after a connective
        "TBH, I'd lean more towards ramda because I'd like to use it more.",
        "以后工具函数都优先用 ramda。",
        "My main file, sketch.js, is far too large.",
        "However, this app is all about painting with text on the canvas.",
        "这个项目的核心是用文字在画布上作画。",
    ],
)
def test_what_stands_in_other_words_is_heard(sentence: str) -> None:
    assert [statement.text for statement in heard(1, sentence)] == [sentence]


@pytest.mark.parametrize(
    "sentence",
    [
        "I have added all files to stage.",
        "I made a WIP git commit without a good message.",
        "I no longer recall why the function is called dry.",
        "If that does not help, try the other branch.",
        "我已经把文件都暂存了，帮我提交。",
    ],
)
def test_housekeeping_of_the_moment_is_not_heard(sentence: str) -> None:
    assert heard(1, sentence) == []


@pytest.mark.parametrize(
    ("first", "again", "other"),
    [
        (
            "Use context7 for Playwright.",
            "Use context7 fro Playwright and p5js as needed.",
            "We decided to use Redis for the session cache.",
        ),
        ("以后都使用中文回答。", "以后请都使用中文回答我。", "我们决定用 Redis 做会话缓存。"),
    ],
)
def test_said_again_with_a_slip_of_wording_counts_as_said_again(first: str, again: str, other: str) -> None:
    turns = [("user", other), ("user", first), ("assistant", "ok"), ("user", again)]
    proposals = distill(turns, _file, min_confidence=0.2, limit=10)
    assert [(p.text, p.turn, p.said) for p in proposals if p.said > 1] == [(first, 2, 2)]
    assert not any(p.text == again for p in proposals)  # one proposal, at its first wording
    assert [p.text for p in distill(turns, _file, 0.2, 1)] == [first]


@pytest.mark.parametrize(
    ("one", "another"),
    [
        ("Always limit your fixes to `sketch.js`.", "Always limit your changes to `index.vue` only."),
        ("将日志配置拆分为独立的模块。", "将数据库配置拆分为独立的文件。"),
        # nearly the same words, but one changes or negates what the other says
        (
            "We use Naive UI as the UI component library.",
            "Switch the UI component library to Element Plus instead of Naive UI.",
        ),
        ("前端组件库统一使用 Naive UI。", "前端组件库统一不再使用 Naive UI。"),
    ],
)
def test_two_statements_built_alike_stay_two(one: str, another: str) -> None:
    keys = [statement.key for text in (one, another) for statement in heard(1, text)]
    proposals = distill([("user", one), ("user", another)], _file, min_confidence=0.0, limit=10)
    assert len(keys) == 2 and [p.said for p in proposals] == [1] * len(proposals)


def test_a_long_session_may_propose_more_than_a_short_one() -> None:
    assert session_limit(3, 1) == 3 and session_limit(3, 10) == 3
    assert session_limit(3, 11) == 4 and session_limit(3, 41) == 7
    assert session_limit(0, 50) == 0  # off stays off
    statements = [
        "Always run the linter before committing.",
        "以后接口都返回统一的错误格式。",
        "Keep the API handlers thin.",
        "使用 httpx 替代 requests。",
        "Never log the access tokens.",
    ]
    short = [("user", text) for text in statements]
    long = short + [("user", "ok, continue") for _ in range(10)]
    assert len(distill(short, _file, 0.0, 3)) == 3
    assert len(distill(long, _file, 0.0, 3)) == 4


@pytest.mark.parametrize(
    "sentence", ["I used --no-verify. I will have to fix that at some point.", "这次用了 --no-verify，回头记得修好。"]
)
def test_an_open_task_is_proposed_as_a_task_whatever_the_models_confidence(sentence: str) -> None:
    (proposal,) = distill([("user", sentence)], _file, min_confidence=0.99, limit=3)
    assert proposal.kind == "task", proposal
