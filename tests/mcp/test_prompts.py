"""The MCP prompts (`recall`, `remember`, `review`: the slash commands a person types in the assistant),
through the SDK's client against `aimate mem mcp`, in Chinese and English (docs/agents.md, "Slash commands")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aimate_memory.mcp.prompts import PROMPT_NAMES, WORDS
from tests.conftest import in_process, make_runner


def prompt_text(server: Any, name: str, **arguments: str) -> str:
    result = server.run(server.session.get_prompt(name, arguments))
    assert len(result.messages) == 1 and result.messages[0].role == "user"
    return str(result.messages[0].content.text)


def test_the_prompts_are_listed_with_their_arguments(shared: Any) -> None:
    listed = shared.run(shared.session.list_prompts()).prompts
    assert tuple(prompt.name for prompt in listed) == PROMPT_NAMES
    arguments = {prompt.name: [(a.name, a.required) for a in prompt.arguments or []] for prompt in listed}
    assert arguments == {"recall": [("query", False)], "remember": [("text", True), ("kind", False)], "review": []}
    assert all("记忆" in (prompt.description or "") or "审阅" in (prompt.description or "") for prompt in listed)


def test_recall_finds_memories_in_the_language_asked(shared: Any) -> None:
    chinese = prompt_text(shared, "recall", query="会话缓存")
    assert chinese.startswith("我的长期记忆（AIMate）中关于“会话缓存”的内容：") and "选用 Redis 做会话缓存" in chinese
    english = prompt_text(shared, "recall", query="pytest fixtures")
    assert english.startswith("From my long-term memory (AIMate) about “pytest fixtures”:")
    assert "Tests run with pytest" in english and "memory_get" in english
    nothing = prompt_text(shared, "recall", query="kubernetes helm chart")
    assert nothing == WORDS["recall.none"][0].format(query="kubernetes helm chart")


def test_recall_without_a_query_gives_what_relates_to_the_conversation(shared: Any) -> None:
    text = prompt_text(shared, "recall")
    assert WORDS["recall.context"][0] in text and WORDS["recall.context"][1] in text  # no argument: both languages
    assert WORDS["recall.more"][0] in text and "memory_search" in text


def test_remember_then_review_show_what_waits_for_the_person(
    spawn: Any, initialized: Path, home: Path, workdir: Path
) -> None:
    cli = make_runner(home, workdir, vectors=False)
    server = spawn()
    assert WORDS["review.none"][0] in prompt_text(server, "review")

    decision = prompt_text(server, "remember", text="我们决定用 PostgreSQL 作为主数据库", kind="decision")
    assert decision.startswith("已记住：“") and "请用一句话确认" in decision
    rule = prompt_text(server, "remember", text="Always squash commits before merging", kind="rule")
    # A rule saved through MCP waits for the person, as memory_remember's does (a model never approves itself).
    assert rule.startswith("Saved for my review, not yet in effect:") and "aimate mem review" in rule

    review = prompt_text(server, "review")
    assert "1 change(s) wait for my review" in review and "1 项改动等待我审阅" in review
    assert "Always squash commits before merging" in review and "PostgreSQL" not in review
    listed = cli("mem", "review", "--json")
    assert "Always squash commits before merging" in listed.out


def test_review_names_what_accepting_a_conflicting_capture_retires(
    spawn: Any, initialized: Path, home: Path, isolated_git: None
) -> None:
    """Issue 39: the person sees before accepting which memories a capture would retire, in both languages. The
    two sentences are remembered in process, as `aimate mem remember` files them (`in_process`; its CLI face is
    tested in tests/cli/test_cli_conflicts.py): the test is about the prompt."""
    with in_process(home) as system:
        old = system.remember("I prefer 4-space indentation").memory
        held = system.remember("我习惯用 Tab 缩进")
    assert old is not None and held.action == "conflict", held
    review = prompt_text(spawn(), "review")
    line = next(line for line in review.splitlines() if "我习惯用 Tab 缩进" in line)
    assert f"accepting it retires / 接受将取代: “I prefer 4-space indentation” ({old.id[:8]})" in line
