"""What later requests build on (capture/heard.py, capture/rules.py, capture/distill.py; issue 39): the project's
state as the person tells it — what it is built with, where it runs, a change they made, where a file lives — is
heard even when said in passing (in brackets, with a typo, inside a long turn), while the request around it is
not. Chinese and English, with the real kind model."""

from __future__ import annotations

import pytest

from aimate_memory.capture.classify import classify
from aimate_memory.capture.distill import distill
from aimate_memory.capture.heard import LONG_TURN_CHARS, heard, matches
from aimate_memory.capture.rules import PERSONAL_CUES


def _file(sentence: str):
    return classify(sentence, has_project=True)


def _heard(turn: str) -> list[str]:
    return [statement.text for statement in heard(1, turn)]


@pytest.mark.parametrize(
    ("turn", "aside"),
    [
        (
            "Please create a commit message for these changes (added basic testing framework with vitest)",
            "added basic testing framework with vitest",
        ),
        ("帮我写一下这次修改的提交信息（我们目前使用 vitest 做测试）", "我们目前使用 vitest 做测试"),
    ],
)
def test_a_fact_said_in_brackets_beside_a_request_for_now_is_heard_without_the_request(turn: str, aside: str) -> None:
    assert _heard(turn) == [aside]
    # An aside that states nothing is not heard, and neither is the request.
    assert _heard(turn.replace(aside, "see the diff above" if aside.isascii() else "见上面的改动")) == []


@pytest.mark.parametrize(
    ("turn", "fact"),
    [
        (
            "I need to debug a Nuxt 2 project. I'm not sure what server it uses, but it's not Live Server.",
            "I need to debug a Nuxt 2 project.",
        ),
        ("The MCP server for filesystem access is runnning within Docker.", None),
        ("这个项目是用 Nuxt 2 写的，帮我看一下为什么启动失败", "这个项目是用 Nuxt 2 写的"),
    ],
)
def test_what_the_project_is_and_where_it_runs_are_heard_typo_and_all(turn: str, fact: str | None) -> None:
    assert _heard(turn) == [fact or turn]
    # A project named without its stack, or a plain word, says nothing about the project.
    assert _heard("I need to debug a new project.") == []


@pytest.mark.parametrize(
    "sentence",
    [
        "Please also create a new file, docs/src/color/color-system.md with a similar format to sketch.md.",
        "Create `docs/plans/drawing-modes-refactor.md` with:",
    ],
)
def test_a_file_created_at_a_path_of_the_project_is_a_decision_of_where_it_lives(sentence: str) -> None:
    (proposal,) = distill([("user", sentence)], _file, min_confidence=0.2, limit=4)
    assert (proposal.text, proposal.kind) == (sentence, "decision")
    assert _heard("Please create a new file.") == []  # no path: a request for now


def _long_turn(*sentences: str) -> str:
    """A long turn (over `LONG_TURN_CHARS`): the person's sentences among lines of a pasted plan."""
    plan = "\n".join(f"- step {n}: the modules are extracted and the tests are run again" for n in range(1, 9))
    turn = "\n".join([*sentences, plan])
    assert len(turn) > LONG_TURN_CHARS
    return turn


@pytest.mark.parametrize(
    ("made", "plan_line"),
    [
        (
            'I\'ve made a new directory "src/color" - please place the module there.',
            "Each mode should go into its own file.",
        ),
        ("以后所有的爬虫都必须使用异步请求。", "每个模式应该放进自己的文件。"),
    ],
)
def test_of_a_long_turn_the_persons_own_change_or_standing_rule_is_proposed_and_its_plan_is_not(
    made: str, plan_line: str
) -> None:
    """A long turn is mostly a paste: of its sentences only what stands, a change the person made or where a
    file lives is proposed (docs/design.md, "Turn by turn")."""
    proposals = distill([("user", _long_turn(made, plan_line))], _file, min_confidence=0.0, limit=4)
    assert [p.text for p in proposals] == [made]
    assert proposals[0].in_paste


@pytest.mark.parametrize(
    ("personal", "not_personal"),
    [
        ("Answer my questions in English.", "User agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64)"),
        ("用中文回答我的问题。", "用户代理：Mozilla/5.0 (Windows NT 10.0; Win64; x64)"),
    ],
)
def test_the_reply_language_is_about_the_person_and_a_user_agent_is_not(personal: str, not_personal: str) -> None:
    assert matches(PERSONAL_CUES, personal) and _heard(personal) == [personal]
    assert not matches(PERSONAL_CUES, not_personal) and _heard(not_personal) == []


@pytest.mark.parametrize(
    ("for_now", "standing"),
    [
        ("Please limit your fixes to `sketch.js`.", "Always limit your changes to the files the task names."),
        ("One file, canvas-transforms.md should be enough.", "Each transform should go into its own file."),
        ("The arrow keys should undo and redo as expected.", "The arrow keys must always undo and redo."),
        (
            "This would allow the user to paint in a zone, instead of the whole canvas.",
            "Zones should keep their coordinates when cleared.",
        ),
        # A change that points at the chat ("them") tells nothing of the project; one that names what moved does.
        ("I moved them higher up, as we discussed.", "I moved the font tests to a new folder `test/fonts/`."),
        ("请你只修复 sketch.js 里的错误。", "以后只修改任务里提到的文件。"),
    ],
)
def test_a_request_bounded_or_judged_for_now_is_not_heard_and_the_standing_one_is(for_now: str, standing: str) -> None:
    assert _heard(for_now) == []
    assert _heard(standing) == [standing]


@pytest.mark.parametrize(
    ("instruction", "question"),
    [
        (
            'When I said "rename" - we should probably use `git mv` instead of mv to retain history.',
            "When will the build be fixed",
        ),
        ("When you add a test, always run ruff first.", "When is the release planned"),
        ("每次添加测试的时候，都要先运行 ruff。", "什么时候能修好构建"),
    ],
)
def test_a_clause_opened_by_when_is_an_instruction_and_a_when_question_is_not(instruction: str, question: str) -> None:
    assert _heard(instruction) == [instruction]
    assert _heard(question) == []


@pytest.mark.parametrize(
    ("proposed", "guessed", "for_now"),
    [
        (
            "Functions like `rotateCanvas`, `flip` and `mirror` seem like they could form a canvas transforms module.",
            "Maybe `flip` and `mirror` could form a module.",
            "Please extract `flip` into a module.",
        ),
        (
            "`rotateCanvas`、`flip` 和 `mirror` 这些函数可以组成一个画布变换模块。",
            "这些函数也许可以组成一个模块。",
            "请把 `flip` 提取出来。",
        ),
    ],
)
def test_how_the_code_is_to_be_divided_is_a_decision_even_softened_by_its_modal(
    proposed: str, guessed: str, for_now: str
) -> None:
    """Parts the person names becoming a unit of their own (`rules.STRUCTURE_CUES`): the structure later requests
    build on ("extract the canvas transforms"), though said with "could" / 可以 — a guess's maybe / 也许 is none."""
    (proposal,) = distill([("user", f"{proposed} {for_now}")], _file, min_confidence=0.2, limit=4)
    assert (proposal.text, proposal.kind) == (proposed, "decision")
    assert _heard(guessed) == [] and _heard(for_now) == []


@pytest.mark.parametrize(
    ("state", "instruction"),
    [
        ('I\'ve made a new directory "src/color" - please place the module there.', "Please do not do any work yet."),
        ("ESLint 对这个文件不满意，它不认识测试里的全局变量。", "先不要修改任何文件。"),
    ],
)
def test_of_a_long_turn_the_projects_state_is_asked_before_an_instruction(state: str, instruction: str) -> None:
    """In a long turn an instruction is as often about the task at hand; the person's word on how the project
    stands is what later requests build on, so with one place left it goes to the state (capture/distill.py)."""
    turn = _long_turn(instruction, state)
    assert sorted(p.text for p in distill([("user", turn)], _file, min_confidence=0.0, limit=4)) == sorted(
        [instruction, state]
    )
    assert [p.text for p in distill([("user", turn)], _file, min_confidence=0.0, limit=1)] == [state]


@pytest.mark.parametrize(
    ("behaviour", "outcome"),
    [
        (
            "Unfortunately, the drawingLayer is disposed of and recreated at various times - such as rotation.",
            "The cache is cleared.",
        ),
        ("画布在每次旋转之后都会被销毁并重新创建。", "缓存被清空了。"),
        ("And so the external code is responsible for disposing of the copy.", "The external code disposed of it."),
        ("复制出来的画布由调用方负责释放。", "调用方释放了画布。"),
    ],
)
def test_how_the_code_behaves_over_time_is_heard_and_a_bare_outcome_is_not(behaviour: str, outcome: str) -> None:
    """`rules.BEHAVIOUR_CUES`: an object of the code made, dropped or rebuilt at the moments the person names,
    which part answers for what — proposed as knowledge though the model reads a description of code as a
    remark."""
    assert _heard(behaviour) == [behaviour]
    assert _heard(outcome) == []
    (proposal,) = distill([("user", behaviour)], _file, min_confidence=0.7, limit=4)
    assert (proposal.text, proposal.kind) == (behaviour, "knowledge")
