"""Session distillation (capture/distill.py, pure): only the person's typed sentences, filed with high
confidence as a rule, preference, decision, knowledge or task, become proposals. Chinese and English; the
real classifier (its cue-feature weights) files them."""

from __future__ import annotations

from aimate_memory.capture import classify
from aimate_memory.capture.distill import DISTILLED_KINDS, distill, sentences
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
    assert distill(turns, _file, min_confidence=1.01, limit=10) == []
    top = distill(turns, _file, min_confidence=0.0, limit=1)
    assert len(top) == 1 and top[0].confidence == max(p.confidence for p in everything)
    # The same sentence said twice is proposed once.
    twice = distill([turns[0], ("assistant", "ok"), turns[0]], _file, min_confidence=0.0, limit=10)
    assert [p.turn for p in twice] == [1]
