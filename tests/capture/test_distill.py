"""Session distillation (capture/distill.py, pure): only the person's typed sentences, filed with high
confidence as a rule, preference, decision, knowledge or task, become proposals. Chinese and English; the
real classifier (its cue-feature weights) files them."""

from __future__ import annotations

from aimate_memory.capture import classify
from aimate_memory.capture.distill import DISTILLED_KINDS, distill
from aimate_memory.capture.heard import sentences, worth_keeping
from aimate_memory.text.typed import typed_lines


def _file(sentence: str):
    return classify(sentence, has_project=True)


def test_typed_lines_leave_out_code_quotes_and_indented_blocks() -> None:
    turn = (
        "先看这个报错：\n```python\n# TODO: never do this\nprint(1)\n```\n"
        "> TODO: 引用里的待办\n    indented = code\n以后都用中文回复"
    )
    assert typed_lines(turn) == ["先看这个报错：", "以后都用中文回复"]


def test_sentences_split_and_skip_short_turns_and_pastes() -> None:
    assert sentences("ok") == [] and sentences("好的") == []
    assert sentences("TODO: add a retry to the uploader. Thanks!") == ["TODO: add a retry to the uploader."]
    assert sentences("记得明天更新部署文档。谢谢") == ["记得明天更新部署文档。"]
    assert sentences("x " * 200) == []  # one line longer than anyone types: a paste


def test_distill_takes_only_user_turns_and_records_the_turn() -> None:
    turns = [
        ("user", "TODO: add rate limiting to the login endpoint."),
        ("assistant", "TODO: I will also refactor the whole auth module."),
        ("user", "```\nTODO: this is pasted code\n```\nthanks!"),
        ("user", "TODO：给导出功能加上进度条。"),
    ]
    proposals = distill(turns, _file, min_confidence=0.5, limit=10)
    assert [(p.turn, p.kind) for p in proposals] == [(1, "task"), (4, "task")]
    assert all(p.kind in DISTILLED_KINDS and p.confidence >= 0.5 for p in proposals)
    assert not any("refactor" in p.text or "pasted" in p.text for p in proposals)


def test_distill_keeps_only_confident_kinds_and_the_limit() -> None:
    turns = [("user", "TODO: write the migration guide."), ("user", "TODO: 补上接口文档。"), ("user", "谢谢，辛苦了！")]
    everything = distill(turns, _file, min_confidence=0.0, limit=10)
    assert {p.kind for p in everything} <= DISTILLED_KINDS and len(everything) == 2  # thanks is dropped
    # An open task's own words settle it, as a decision's do (docs/design.md): no confidence bar drops a TODO;
    # a fact about the setup still has to pass it.
    assert [p.kind for p in distill(turns, _file, min_confidence=1.01, limit=10)] == ["task", "task"]
    facts = [("user", "Our staging server runs on port 8080."), ("user", "本项目的测试服务器运行在 8080 端口。")]
    assert distill(facts, _file, min_confidence=1.01, limit=10) == []
    assert len(distill(facts, _file, min_confidence=0.0, limit=10)) == 2
    top = distill(turns, _file, min_confidence=0.0, limit=1)
    assert len(top) == 1 and top[0].confidence == max(p.confidence for p in everything)
    # The same sentence said twice is proposed once.
    twice = distill([turns[0], ("assistant", "ok"), turns[0]], _file, min_confidence=0.0, limit=10)
    assert [p.turn for p in twice] == [1]


def test_typed_lines_leave_out_log_and_trace_lines() -> None:
    turn = (
        "Why does the worker stop?\n2025-06-13 10:00:01 INFO worker: job 1 finished\n"
        "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\nKeyError: 'id'\n"
        '为什么会这样？\n{"id": 1, "items": [1, 2, 3], "ok": true}'
    )
    assert typed_lines(turn) == ["Why does the worker stop?", "为什么会这样？"]


def test_one_off_requests_questions_and_guesses_are_not_worth_keeping() -> None:
    for sentence in (
        "Please create a commit message for these changes.",
        "Fix this error in the uploader.",
        "请你修改 README 文件并修复报错。",
        "继续完成剩下的部分。",
        "Should we always run the tests first?",
        "以后是不是都要先跑测试？",
        "I think the cache should stay in memory.",
    ):
        assert not worth_keeping(sentence), sentence
    for sentence in (
        "Always run the tests before committing.",
        "以后都用中文回复。",
        "We decided to use Pinia for state management.",
        "我们决定用 Pinia 做状态管理。",
        "I'm running on a MacBook Pro with zsh.",
        "TODO: 给导出功能加上进度条。",
    ):
        assert worth_keeping(sentence), sentence


def test_a_session_proposes_decisions_as_decisions_and_only_the_person_in_general_as_global() -> None:
    turns = [
        ("user", "Please create a commit message for these changes."),
        ("user", "Yes, let's go with the factory approach."),
        ("user", "请你帮我修复这个报错。"),
        ("user", "我们决定前端改用 Element Plus。"),
        ("user", "使用中文回答。"),
    ]
    proposals = {p.text: p for p in distill(turns, _file, min_confidence=0.2, limit=10)}
    assert set(proposals) == {
        "Yes, let's go with the factory approach.",
        "我们决定前端改用 Element Plus。",
        "使用中文回答。",
    }
    assert proposals["Yes, let's go with the factory approach."].kind == "decision"
    assert proposals["我们决定前端改用 Element Plus。"].kind == "decision"
    assert [p.text for p in proposals.values() if p.personal] == ["使用中文回答。"]


def test_a_rejected_sentence_is_not_proposed_and_the_limit_keeps_standing_instructions_first() -> None:
    turns = [("user", "We decided to use Redis for the session cache."), ("user", "Never push to main directly.")]
    assert [p.text for p in distill(turns, _file, 0.2, 10, rejected=lambda s: "Redis" in s)] == [turns[1][1]]
    assert [p.text for p in distill(turns, _file, 0.2, 1)] == [turns[1][1]]


def test_a_choice_the_team_lives_with_and_a_change_of_it_are_decisions() -> None:
    turns = [
        ("user", "We use Naive UI as the UI component library."),
        ("user", "Switch the UI component library to Element Plus instead of Naive UI."),
        ("user", "我们用的是 Vue 3 和 Naive UI。"),
        ("user", "前端组件库改用 Element Plus，不再用 Naive UI。"),
    ]
    proposals = distill(turns, _file, min_confidence=0.0, limit=10)
    assert [(p.turn, p.kind) for p in proposals] == [(1, "decision"), (2, "decision"), (3, "decision"), (4, "decision")]
