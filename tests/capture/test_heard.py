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
from aimate_memory.capture.distill import distill
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
