"""What a session leaves for review, through the Python API with the real models, in English and Chinese
(issue 39; docs/design.md, "Capture from a conversation"): a statement the person says again in a later turn
with a slip of wording is one proposal that counts as said twice and comes first; a long working session may
leave more proposals than a short question, one more for every ten of the person's turns."""

from __future__ import annotations

import pytest

from aimate_memory.system import MemorySystem
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
            ],
        ),
        (
            "以后都使用中文回答。",
            "以后请都使用中文回答我。",
            ["我们决定用 Redis 做会话缓存。", "不要在日志里打印访问令牌。", "统一使用 UTC 时间。"],
        ),
    ],
)
def test_said_again_with_a_slip_is_one_proposal_asked_first(
    system: MemorySystem, first: str, again: str, others: list[str]
) -> None:
    turns = [("user", others[0]), ("user", first), ("user", others[1]), ("user", others[2]), ("user", again)]
    proposed = system.capture.propose_from_session("slip-session", turns)
    assert len(proposed) == 3  # four statements heard, three asked: the one said twice among them
    waiting = _waiting(system)
    assert first in waiting and again not in waiting


@pytest.mark.parametrize(
    "statements",
    [
        [
            "Always run the linter before committing.",
            "Keep the API handlers thin.",
            "Use httpx instead of requests for the API client.",
            "Never log the access tokens.",
            "We decided to use Redis for the session cache.",
        ],
        [
            "以后接口都返回统一的错误格式。",
            "使用 httpx 替代 requests。",
            "不要在日志里打印访问令牌。",
            "我们决定用 Redis 做会话缓存。",
            "统一使用 UTC 时间。",
        ],
    ],
)
def test_a_long_session_leaves_more_to_review_than_a_short_one(system: MemorySystem, statements: list[str]) -> None:
    chat = [("user", "ok, go on") if n % 2 == 0 else ("assistant", "done") for n in range(20)]
    long = [*chat, *[("user", text) for text in statements]]
    # 15 turns of the person's: one more than `capture.distill_max` (3); a short session asks for 3 (test_heard.py).
    assert len(system.capture.propose_from_session("long-session", long)) == 4
    assert len(_waiting(system)) == 4
