"""Choices among the assistant's options (capture/choice.py, pure): which option a turn of the person's picks,
what the option says, and how a session's proposals carry the decision. Chinese and English."""

from __future__ import annotations

import pytest

from aimate_memory.capture.choice import Choice, choices, chosen, offered, resolve, with_choices
from aimate_memory.capture.classify import Classification, classify
from aimate_memory.capture.distill import Proposal, distill

OPTIONS_EN = """Great catch! Let me analyze the options:

## Option 1: Pass the layer as a parameter to each function call
```javascript
colorSystem.setFillMode(layers.drawingLayer, xPos)
```
**Pros:**
- Always uses the current layer

## Option 2
Pass the layers object itself to the factory, which reads layers.drawingLayer at each call.

## Option 3: Recreate the color system after every rotation
"""
OPTIONS_ZH = """有两种做法：
1. 每个爬虫使用独立的数据库文件，互不干扰。
2. 所有爬虫共用 data/db/finance_news.db 一个数据库。
你倾向哪一种？"""
LETTERED = "Two ways:\nA) Keep SQLite for now.\nB) Move to PostgreSQL before launch.\nWhich do you prefer?"
QUESTIONS_THEN_OPTIONS = """## Questions
1. Where should the module live?
2. What should it be called?

我建议的方案：
方案一：把配置放进 config.yaml
方案二：用环境变量覆盖配置
"""


def test_the_options_of_a_reply_are_read_from_headings_lists_and_letters() -> None:
    assert [option.text for option in offered(OPTIONS_EN)] == [
        "Pass the layer as a parameter to each function call",
        "Pass the layers object itself to the factory, which reads layers.drawingLayer at each call.",
        "Recreate the color system after every rotation",
    ]
    assert [option.label for option in offered(LETTERED)] == ["a", "b"]
    assert [option.text for option in offered(OPTIONS_ZH)][1] == "所有爬虫共用 data/db/finance_news.db 一个数据库。"
    # Options named as options win over an earlier numbered list of questions.
    named = ["把配置放进 config.yaml", "用环境变量覆盖配置"]
    assert [option.text for option in offered(QUESTIONS_THEN_OPTIONS)] == named
    assert offered("Done: I fixed the import and ran the tests.") == []


@pytest.mark.parametrize(
    ("turn", "reference"),
    [
        ("Let's go with option 2", 2),
        ("option 3 it is", 3),
        ("A, please", "a"),
        ("I'll take the second approach", 2),
        ("the latter", -1),
        ("就用第二种方案", 2),
        ("用你说的第一个", 1),
        ("选B", "b"),
        ("后者吧", -1),
        ("方案二", 2),
    ],
)
def test_a_turn_that_picks_names_its_option(turn: str, reference: int | str) -> None:
    assert chosen(turn) == reference


@pytest.mark.parametrize(
    "turn",
    [
        "What are the pros and cons of option 2?",
        "Please fix the first one",
        "Let's move on to #2, improving copilot instructions.",
        "方案二和方案三有什么区别",
        "第二个问题好像没解决",
        "用2个线程跑测试",
        "Use ruff for linting.",
    ],
)
def test_asking_about_an_option_or_naming_a_number_is_no_choice(turn: str) -> None:
    assert chosen(turn) is None


def test_the_decision_is_the_persons_words_and_the_options_text() -> None:
    assert resolve("Let's go with option 2", OPTIONS_EN) == (
        "Let's go with option 2: Pass the layers object itself to the factory, which reads layers.drawingLayer "
        "at each call."
    )
    assert resolve("就用第二种方案", OPTIONS_ZH) == "就用第二种方案：所有爬虫共用 data/db/finance_news.db 一个数据库。"
    assert resolve("A, please", LETTERED) == "A, please: Keep SQLite for now."
    assert resolve("用你说的第一个", OPTIONS_ZH) == "用你说的第一个：每个爬虫使用独立的数据库文件，互不干扰。"
    # The reply was cut before option 4: nothing a later session could read.
    assert resolve("Let's go with option 4", OPTIONS_EN) is None


def test_a_choice_is_read_against_the_reply_just_before_it() -> None:
    turns = [
        ("user", "How should the crawlers keep their data?"),
        ("assistant", OPTIONS_ZH),
        ("user", "就用第二种方案"),
        ("user", "用你说的第一个"),  # no reply between: nothing to pick from
    ]
    decided = "就用第二种方案：所有爬虫共用 data/db/finance_news.db 一个数据库。"
    assert choices(turns) == {3: Choice(3, decided), 4: Choice(4, None)}


def test_proposals_carry_the_option_and_a_bare_reference_is_dropped() -> None:
    bare = Proposal("Let's go with option 2", 3, "decision", 0.8)
    unreadable = Proposal("Let's go with option 4", 5, "decision", 0.8)
    other = Proposal("Always run the tests before a commit.", 5, "rule", 0.9)
    picked = {
        3: Choice(3, "Let's go with option 2: Pass the layers object to the factory"),
        5: Choice(5, None),
        7: Choice(7, "A, please: Keep SQLite for now."),
    }
    assert [(p.turn, p.text, p.kind) for p in with_choices([bare, unreadable, other], picked)] == [
        (3, "Let's go with option 2: Pass the layers object to the factory", "decision"),
        (5, "Always run the tests before a commit.", "rule"),
        (7, "A, please: Keep SQLite for now.", "decision"),
    ]


def _file(sentence: str) -> Classification:
    return classify(sentence, has_project=True)


@pytest.mark.parametrize(
    ("reply", "pick", "other"),
    [
        (OPTIONS_EN, "Let's go with option 4", "We decided to keep the undo history in memory."),
        (OPTIONS_ZH, "我们决定用第三种方案", "我们决定把撤销历史保存在内存里。"),
    ],
)
def test_a_pick_whose_option_cannot_be_read_takes_no_slot_of_the_session(reply: str, pick: str, other: str) -> None:
    """The session's cap counts what is proposed: a pick said twice (ranked first, as said again) whose option the
    reply never offered is dropped before the cap, and the slot goes to the next statement (capture/distill.py)."""
    turns = [("assistant", reply), ("user", pick), ("assistant", reply), ("user", pick), ("user", other)]
    assert [p.text for p in distill(turns, _file, min_confidence=0.0, limit=1)] == [other]
    # A pick whose option can be read is the decision, and takes its slot as that option.
    readable = pick.replace("4", "2").replace("三", "二")
    (decided,) = distill([("assistant", reply), ("user", readable)], _file, min_confidence=0.0, limit=1)
    assert decided.text.startswith(readable) and len(decided.text) > len(readable) and decided.kind == "decision"


@pytest.mark.parametrize(
    ("reply", "text"),
    [
        (
            "1. Send the agent string (Mozilla/5.0; Win64) with every request. Then retry.\n2. Drop the header.",
            "Send the agent string (Mozilla/5.0; Win64) with every request.",
        ),
        ("方案一：用配置文件（如 A；B）统一管理。其余不变\n方案二：写死在代码里", "用配置文件（如 A；B）统一管理。"),
    ],
)
def test_an_options_first_sentence_is_cut_by_the_one_splitter(reply: str, text: str) -> None:
    """The sentence splitter of capture/heard.py: a mark inside brackets ends no sentence."""
    assert offered(reply)[0].text == text
