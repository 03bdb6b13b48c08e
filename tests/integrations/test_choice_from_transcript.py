"""A choice among the assistant's options through the real hook commands (issue 39; docs/design.md, "Choices
among the assistant's options"): Claude Code's transcript carries the assistant's reply, the person answers
"Let's go with option 2" / "就用第二种方案", and the session's end proposes the option itself, pending, in the
person's words and the option's text — what a later session can read. English and Chinese."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from aimate_memory.capture.classify import title_of

# The same git identity and project as the conversation tests (their fixtures, shared rather than written again).
from tests.integrations.test_conversation_capture import Conversation, git_identity, project, proposals  # noqa: F401

if TYPE_CHECKING:
    from aimate_memory.embedding.lazy import LazyEmbedder

pytestmark = pytest.mark.slow

OFFERS = {
    "en": (
        "The layer goes stale after a rotation. How should the color system reach it?",
        "Three ways to fix it:\n\n## Option 1: Pass the layer to every call\n**Pros:** explicit\n\n"
        "## Option 2: Give the factory the layers object and read layers.drawingLayer at each call\n"
        "**Pros:** no stale reference\n\n## Option 3: Recreate the color system after every rotation\n\n"
        "Which one do you prefer?",
        "Let's go with option 2",
        "Let's go with option 2: Give the factory the layers object and read layers.drawingLayer at each call",
    ),
    "zh": (
        "爬虫的数据库该怎么放？",
        "有两种做法：\n1. 每个爬虫使用独立的数据库文件\n"
        "2. 所有爬虫共用 data/db/finance_news.db 一个数据库\n你倾向哪一种？",
        "就用第二种方案",
        "就用第二种方案：所有爬虫共用 data/db/finance_news.db 一个数据库",
    ),
}


def write_turn(conversation: Conversation, role: str, text: str) -> None:
    content: object = text if role == "user" else [{"type": "text", "text": text}]
    record = {"type": role, "sessionId": conversation.session_id, "message": {"role": role, "content": content}}
    with open(conversation.transcript, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")


@pytest.mark.parametrize("lang", sorted(OFFERS))
def test_the_option_picked_is_proposed_in_words_a_later_session_reads(
    cli_vectors,
    loaded_models: LazyEmbedder,
    home: Path,
    project: Path,  # noqa: F811  (the imported fixture)
    lang: str,
) -> None:
    question, offer, pick, decision = OFFERS[lang]
    conversation = Conversation(cli_vectors, project, f"choice-{lang}")
    write_turn(conversation, "user", question)
    write_turn(conversation, "assistant", offer)
    write_turn(conversation, "user", pick)
    conversation.end()
    waiting = {item["title"]: item for item in proposals(loaded_models, home, project)}
    assert title_of(decision) in waiting, sorted(waiting)
    assert waiting[title_of(decision)]["path"].startswith("long_term/decisions/")
    shown = cli_vectors("mem", "show", waiting[title_of(decision)]["id"], "--json", cwd=project).json()
    assert shown["body"].strip() == decision
    assert pick not in waiting  # never the bare reference


@pytest.mark.parametrize("lang", sorted(OFFERS))
def test_the_option_picked_waits_for_review_from_the_prompt_that_picks_it(
    cli_vectors,
    loaded_models: LazyEmbedder,
    home: Path,
    project: Path,  # noqa: F811  (the imported fixture)
    lang: str,
) -> None:
    """Resolved in the prompt hook's turn (the transcript holds the reply before it): pending at once, so the
    rest of the session sees it marked pending; the session's end makes no second copy."""
    question, offer, pick, decision = OFFERS[lang]
    conversation = Conversation(cli_vectors, project, f"picked-{lang}")
    write_turn(conversation, "user", question)
    write_turn(conversation, "assistant", offer)
    told = conversation.say(pick)
    assert "queued for review" in told and decision in told
    [waiting] = proposals(loaded_models, home, project)
    assert waiting["title"] == title_of(decision) and waiting["path"].startswith("long_term/decisions/")
    found = cli_vectors("mem", "search", decision, "--json", cwd=project).json()
    assert any(hit["id"] == waiting["id"] and hit["status"] == "pending" for hit in found), found
    conversation.say("Now update the tests" if lang == "en" else "现在更新测试")
    conversation.end()
    assert [item["id"] for item in proposals(loaded_models, home, project) if item["title"] == title_of(decision)] == [
        waiting["id"]
    ]
