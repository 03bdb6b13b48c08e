"""Capture turn by turn (capture/heard.py, capture/ledger.py, capture/distill.py; pure but the ledger's file):
what a prompt states is heard without a model; pastes — a tool's output, an assistant's answer pasted back —
are not the person's words; a request for now is not a statement, its standing clause is; said again, in the
session or in another one, a statement is one proposal, proposed first; a choice of how the thing is built is
filed as a decision. Chinese and English."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aimate_memory.capture.classify import classify
from aimate_memory.capture.distill import distill, session_limit
from aimate_memory.capture.heard import heard, worth_keeping
from aimate_memory.capture.ledger import LEDGER_FILE, HeardLedger
from aimate_memory.text.typed import typed_lines


def _file(sentence: str):
    return classify(sentence, has_project=True)


def test_a_tools_output_and_an_assistants_answer_pasted_back_are_not_typed() -> None:
    turn = "\n".join(
        [
            "(base) ➜  shop git:(main) ✗ npm run build",
            "npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported",
            "FAIL  src/cart.test.js > Cart > keeps items",
            '  (use "git add <file>..." to include in what will be committed)',
            "M  src/cart.js",
            "🎯 任务：统一所有模块的数据库路径",
            "✅ 所有接口返回真实数据",
            "**Critical Issues**: must fix the cart",
            "| 模块 | 状态 |",
            "The build should always run the linter first.",
            "以后构建前都先运行 lint。",
        ]
    )
    assert typed_lines(turn) == ["The build should always run the linter first.", "以后构建前都先运行 lint。"]


@pytest.mark.parametrize(
    ("one_off", "standing"),
    [
        ("Fix the error in the cart module.", "Always keep the cart state in Pinia."),
        ("Check why the tests fail on CI.", "Target Node 20 for every build."),
        ("请你修复购物车模块的报错。", "以后购物车的状态都放在 Pinia 里。"),
        ("查看一下日志为什么没有输出。", "将日志配置拆分为独立的模块。"),
    ],
)
def test_a_request_for_now_is_not_heard_and_a_standing_statement_is(one_off: str, standing: str) -> None:
    assert heard(1, one_off) == []
    assert [statement.text for statement in heard(1, standing)] == [standing]
    assert not worth_keeping(one_off) and worth_keeping(standing)


def test_of_a_request_joined_to_a_standing_instruction_the_standing_clause_is_heard() -> None:
    assert [statement.text for statement in heard(3, "修复 cart.js 中的错误，使用中文回答")] == ["使用中文回答"]
    assert [s.turn for s in heard(3, "修复 cart.js 中的错误，使用中文回答")] == [3]


@pytest.mark.parametrize(
    "sentence",
    [
        "Move the config loading into its own module.",
        "Make it an ES module with named exports.",
        "Use httpx instead of requests for the API client.",
        "将配置加载拆分为独立的模块。",
        "使用 httpx 替代 requests 作为接口客户端。",
        "为每个服务指定专属的数据库。",
    ],
)
def test_a_choice_of_how_the_thing_is_built_is_filed_as_a_decision(sentence: str) -> None:
    (proposal,) = distill([("user", sentence)], _file, min_confidence=0.2, limit=3)
    assert proposal.kind == "decision", proposal


@pytest.mark.parametrize(
    ("rule", "decision"),
    [
        ("Never commit the .env file.", "Use pnpm instead of npm in this repo."),
        ("不要提交 .env 文件。", "使用 pnpm 替代 npm。"),
    ],
)
def test_a_rule_stays_a_rule_beside_a_decision(rule: str, decision: str) -> None:
    kinds = {p.text: p.kind for p in distill([("user", rule), ("user", decision)], _file, 0.2, 3)}
    assert kinds == {rule: "rule", decision: "decision"}


@pytest.mark.parametrize(
    ("said_twice", "other"),
    [
        ("Always answer in English.", "We decided to use Redis for the session cache."),
        ("使用中文回答。", "我们决定用 Redis 做会话缓存。"),
    ],
)
def test_a_thing_said_in_two_turns_is_one_proposal_proposed_first(said_twice: str, other: str) -> None:
    turns = [("user", other), ("assistant", "ok"), ("user", f"{said_twice}"), ("user", f"Thanks. {said_twice}")]
    proposals = distill(turns, _file, min_confidence=0.2, limit=10)
    assert [(p.text, p.turn, p.said) for p in proposals if p.text == said_twice] == [(said_twice, 3, 2)]
    assert [p.text for p in distill(turns, _file, 0.2, 1)] == [said_twice]


@pytest.mark.parametrize(
    ("before", "now"),
    [
        ("Keep the API handlers thin.", "We decided to use Redis for the session cache."),
        ("保持接口处理函数简短。", "我们决定用 Redis 做会话缓存。"),
    ],
)
def test_a_statement_heard_in_another_session_is_proposed_first(tmp_path: Path, before: str, now: str) -> None:
    ledger = HeardLedger(tmp_path / "state")
    ledger.note("claude:earlier", (s.key for s in heard(1, before)))
    turns = [("user", now), ("user", before)]
    counts = ledger.sessions_besides("claude:now")
    said_before = lambda key: counts.get(HeardLedger.hashed(key), 0)  # noqa: E731
    (first,) = distill(turns, _file, 0.2, 1, said_before=said_before)
    assert (first.text, first.said) == (before, 2)
    assert [p.text for p in distill(turns, _file, 0.2, 1)] == [now]  # without the evidence the decision leads
    # The ledger keeps hashes only, never the words; the session itself is no evidence for itself.
    text = (tmp_path / "state" / LEDGER_FILE).read_text(encoding="utf-8")
    assert before.split()[0] not in text and "接口" not in text and "earlier" not in text
    assert ledger.sessions_besides("claude:earlier") == {}
    ledger.note("claude:earlier", (s.key for s in heard(1, before)))  # noted twice: still one session
    assert list(ledger.sessions_besides("claude:now").values()) == [1]


def test_a_damaged_ledger_is_no_evidence_and_is_written_over(tmp_path: Path) -> None:
    (tmp_path / LEDGER_FILE).write_text("{not json", encoding="utf-8")
    ledger = HeardLedger(tmp_path)
    assert ledger.sessions_besides("claude:a") == {}
    ledger.note("claude:a", ["以后都用中文回答"])
    assert len(json.loads((tmp_path / LEDGER_FILE).read_text(encoding="utf-8"))) == 1


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
        ("Limit your fixes to `sketch.js`.", "Limit your changes to `index.vue` only."),
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
