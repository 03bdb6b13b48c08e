"""What a session leaves for review, through the Python API with the real models, in English and Chinese
(issue 39; docs/design.md, "Capture from a conversation"): a statement the person says again in a later turn
with a slip of wording is one proposal that counts as said twice and comes first; a long working session may
leave more proposals than a short question, one more for every ten of the person's turns."""

from __future__ import annotations

import pytest

from aimate_memory.system import MemorySystem
from aimate_memory.system.capture import SAID_FIELD
from aimate_memory.vault.filters import MemoryFilter

pytestmark = pytest.mark.slow


def _waiting(system: MemorySystem) -> list[str]:
    system.refresh()
    return sorted(system.get(memory.id).body.strip() for memory in system.list(MemoryFilter(statuses=("pending",))))


@pytest.mark.parametrize(
    ("first", "again", "others"),
    [
        (
            "Use context7 for Playwright.",
            "Use context7 fro Playwright and p5js as needed.",
            [
                "We decided to use Redis for the session cache.",
                "Never log the access tokens.",
                "Keep the API handlers thin.",
                "Store the uploads in S3.",
            ],
        ),
        (
            "以后都使用中文回答。",
            "以后请都使用中文回答我。",
            [
                "我们决定用 Redis 做会话缓存。",
                "不要在日志里打印访问令牌。",
                "统一使用 UTC 时间。",
                "上传的文件存放在 S3。",
            ],
        ),
    ],
)
def test_said_again_with_a_slip_is_one_proposal_asked_first(
    system: MemorySystem, first: str, again: str, others: list[str]
) -> None:
    turns = [("user", others[0]), ("user", first), *[("user", other) for other in others[1:]], ("user", again)]
    proposed = system.capture.propose_from_session("slip-session", turns)
    assert (
        len(proposed) == 4
    )  # five statements heard, four asked (`capture.distill_max`): the one said twice among them
    waiting = _waiting(system)
    assert first in waiting and again not in waiting


@pytest.mark.parametrize(
    ("decision", "again", "others"),
    [
        (
            "We decided to use Pinia for state management in the frontend.",
            "From now on we use Pinia for state management.",
            [
                "We decided to use Redis for the session cache.",
                "Never log the access tokens.",
                "Keep the API handlers thin.",
                "Store the uploads in S3.",
            ],
        ),
        (
            "我们决定前端的状态管理使用 Pinia。",
            "以后前端的状态管理都使用 Pinia。",
            [
                "我们决定用 Redis 做会话缓存。",
                "不要在日志里打印访问令牌。",
                "统一使用 UTC 时间。",
                "上传的文件存放在 S3。",
            ],
        ),
    ],
)
def test_a_statement_already_waiting_takes_no_place_of_the_sessions_few(
    system: MemorySystem, decision: str, again: str, others: list[str]
) -> None:
    """Said twice in the next session, the waiting proposal ranks first; it is counted as said again, not
    proposed, and the session still asks about four new statements (`capture.distill_max`)."""
    [first] = system.capture.propose_from_session("first-session", [("user", decision)])
    assert first.memory is not None
    system.refresh()
    turns = [("user", again), ("assistant", "ok"), ("user", again), *[("user", other) for other in others]]
    proposed = system.capture.propose_from_session("second-session", turns)
    assert sorted(result.memory.body.strip() for result in proposed if result.memory is not None) == sorted(others)
    assert system.get(first.memory.id).doc.get(SAID_FIELD) == 2


@pytest.mark.parametrize(
    "statements",
    [
        [
            "Always run the linter before committing.",
            "Keep the API handlers thin.",
            "Use httpx instead of requests for the API client.",
            "Never log the access tokens.",
            "We decided to use Redis for the session cache.",
            "Store the uploads in S3.",
        ],
        [
            "以后接口都返回统一的错误格式。",
            "使用 httpx 替代 requests。",
            "不要在日志里打印访问令牌。",
            "我们决定用 Redis 做会话缓存。",
            "统一使用 UTC 时间。",
            "上传的文件存放在 S3。",
        ],
    ],
)
def test_a_long_session_leaves_more_to_review_than_a_short_one(system: MemorySystem, statements: list[str]) -> None:
    chat = [("user", "ok, go on") if n % 2 == 0 else ("assistant", "done") for n in range(20)]
    long = [*chat, *[("user", text) for text in statements]]
    # 16 turns of the person's: one more than `capture.distill_max` (4); a short session asks for 4.
    assert len(system.capture.propose_from_session("long-session", long)) == 5
    assert len(_waiting(system)) == 5


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("I prefer pytest for the tests.", "preference"),
        ("我更喜欢用 pytest 写测试。", "preference"),
        ("All modules must read the database path from settings.py.", "rule"),
        ("强制所有模块从 settings.py 读取数据库路径。", "rule"),
        ("Use the same approach for the Sina crawler as for the Eastmoney crawler.", "decision"),
        ("新浪爬虫使用和东方财富爬虫相同的方式爬取。", "decision"),
        ("Add connection pooling at some point, once the structure is stable.", "task"),
        ("连接池等当前结构稳定后再考虑。", "task"),
        ("Never commit secrets to the repository.", "rule"),
        ("严禁把密钥提交到仓库。", "rule"),
        ("We decided to write unit tests first.", "decision"),
        ("决定先编写单元测试。", "decision"),
        ("Prefer shell commands over long explanations.", "decision"),
        ("优先使用 Shell 命令解决。", "rule"),
    ],
)
def test_a_preference_a_rule_a_decision_a_shared_convention_and_a_deferred_task_are_heard(
    system: MemorySystem, sentence: str, kind: str
) -> None:
    turns = [("user", "修复 sina.py 里的报错" if "\u4e00" <= sentence[0] <= "\u9fff" else "fix the error in sina.py")]
    proposed = system.capture.propose_from_session("cues-session", [*turns, ("assistant", "done"), ("user", sentence)])
    assert [(result.memory.body.strip(), result.memory.category) for result in proposed] == [(sentence, kind)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Send every request with the user agent Mozilla/5.0 (Windows NT 10.0; Win64; x64) from now on.",
        "爬虫请求以后都带这个用户代理（Mozilla/5.0；Windows NT 10.0；Win64）。",
    ],
)
def test_a_sentence_is_not_cut_where_a_bracket_holds_a_semicolon(system: MemorySystem, sentence: str) -> None:
    proposed = system.capture.propose_from_session("bracket-session", [("user", sentence)])
    assert [result.memory.body.strip() for result in proposed] == [sentence]


@pytest.mark.parametrize("statement", ["Always answer in English.", "中文回答我的问题", "以后不要在日志里打印令牌。"])
def test_the_clients_own_words_around_a_request_are_not_the_persons_instruction(
    system: MemorySystem, statement: str
) -> None:
    fix = (
        "For the code present, we get this error:\n```\n{}\n```\n"
        "How can I resolve this? If you propose a fix, please make it concise."
    )
    turns = [("user", fix.format(error)) for error in ("Instance of 'dict' has no 'save' member", "未定义的变量 'db'")]
    proposed = system.capture.propose_from_session("template-session", [*turns, ("user", statement)])
    assert [result.memory.body.strip() for result in proposed] == [statement]


@pytest.mark.parametrize(
    ("turns", "proposed_as"),
    [
        (
            ["网易爬虫也没注册，请你检查这个爬虫是否正确注册", "还是无法启动，请找到相关问题"],
            [("网易爬虫也没注册", "knowledge")],
        ),
        (["The NetEase crawler is not registered either, please check it.", "It still does not start, fix it."], []),
    ],
)
def test_a_problem_of_the_project_is_proposed_as_a_fact_in_the_persons_words(
    system: MemorySystem, turns: list[str], proposed_as: list[tuple[str, str]]
) -> None:
    """A problem the person reports as a fact ("网易爬虫也没注册") is what the next day's request builds on ("请你检查
    这个爬虫是否正确注册"): proposed as knowledge of the project, the clause the person typed, not the request
    beside it; the follow-up ("还是无法启动") is not a second one. In English the report stays a request for now
    (docs/design.md, "Capture from a conversation")."""
    said = [turn for text in turns for turn in (("user", text), ("assistant", "好的 / done"))]
    proposed = system.capture.propose_from_session("problem-session", said)
    assert [(result.memory.body.strip(), result.memory.category) for result in proposed] == proposed_as
