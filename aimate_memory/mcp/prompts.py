"""The MCP prompts — the slash commands a person types in the assistant (Claude Code shows an MCP server's
prompts as `/mcp__<server>__<prompt>`): `recall`, `remember`, `review` (docs/agents.md, "Slash commands").

Each prompt's answer is the text the client puts into the conversation as the person's message, so it says
what memory holds and what the model should do with it. The wording is a table (`WORDS`, English and
Chinese); an answer is in the language of the argument the person typed (`script_of`), and in both when
there is none. The data comes from the same tool methods the model calls (`mcp/tools.py`): one rule, one
place."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from aimate_memory.errors import NotFoundError
from aimate_memory.mcp.errors import failure_from
from aimate_memory.text.scripts import script_of

if TYPE_CHECKING:
    from aimate_memory.mcp.tools import MemoryTools
    from aimate_memory.system.records import ConflictRecord

RECALL_LIMIT = 8

# key → (English, 中文)
WORDS: dict[str, tuple[str, str]] = {
    "recall.found": (
        "From my long-term memory (AIMate) about “{query}”:",
        "我的长期记忆（AIMate）中关于“{query}”的内容：",
    ),
    "recall.none": (
        "My long-term memory (AIMate) holds nothing about “{query}”.",
        "我的长期记忆（AIMate）中没有关于“{query}”的内容。",
    ),
    "recall.use": (
        "Use these memories in your answer where they apply; memory_get reads one whole by its id.",
        "回答时用上相关的记忆；memory_get 可按 id 读取整条记忆。",
    ),
    "recall.context": (
        "What my long-term memory (AIMate) holds for this conversation — rules, preferences, this session, "
        "recent notes:",
        "我的长期记忆（AIMate）中与这次对话相关的内容——规则、偏好、本次会话、近期笔记：",
    ),
    "recall.more": (
        "Search it (memory_search) for the topics of our conversation so far, and tell me what relates to them.",
        "请用 memory_search 搜索我们目前对话涉及的主题，并告诉我有哪些相关的记忆。",
    ),
    "remember.written": ("Remembered: “{title}” ({id}, {location}).", "已记住：“{title}”（{id}，{location}）。"),
    "remember.pending": (
        "Saved for my review, not yet in effect: “{title}” ({id}). I accept or reject it with `aimate mem review`.",
        "已保存，等待我审阅后才生效：“{title}”（{id}）。我用 `aimate mem review` 接受或拒绝。",
    ),
    "remember.exists": ("Already in memory: “{title}” ({id}).", "记忆中已有：“{title}”（{id}）。"),
    "remember.dropped": ("Not saved: {reason}", "未保存：{reason}"),
    "remember.ack": (
        "Acknowledge this in one sentence; do not accept or approve it yourself.",
        "请用一句话确认；不要自行接受或批准它。",
    ),
    "review.none": ("Nothing waits for my review in AIMate memory.", "AIMate 记忆中没有等待我审阅的内容。"),
    "review.some": (
        "{count} change(s) wait for my review in AIMate memory:",
        "AIMate 记忆中有 {count} 项改动等待我审阅：",
    ),
    "review.retires": ("accepting it retires", "接受将取代"),
    "review.how": (
        "Show me this list. I accept or reject each with `aimate mem review` (or on the page, `aimate mem ui`); "
        "you cannot accept them for me.",
        "请把这个列表给我看。我用 `aimate mem review`（或网页 `aimate mem ui`）逐项接受或拒绝；你不能替我接受。",
    ),
}


@dataclass(frozen=True)
class PromptSpec:
    title: str
    description: str


PROMPT_SPECS: dict[str, PromptSpec] = {
    "recall": PromptSpec(
        "Recall from memory · 回忆",
        "What long-term memory holds about a topic; without one, what relates to this conversation so far. "
        "查询长期记忆中关于某个主题的内容；不给主题时，给出与当前对话相关的记忆。",
    ),
    "remember": PromptSpec(
        "Remember · 记住",
        "Save one sentence to long-term memory (kind: rule, preference, decision, knowledge, project, task, note); "
        "rules and preferences wait for your review. 把一句话存入长期记忆（可选类别）；规则和偏好需经你审阅才生效。",
    ),
    "review": PromptSpec(
        "What waits for review · 待审阅",
        "List the memory changes and captures waiting for you to accept or reject. "
        "列出等待你接受或拒绝的记忆改动和捕获。",
    ),
}
PROMPT_NAMES = tuple(PROMPT_SPECS)


def languages_for(argument: str | None) -> tuple[int, ...]:
    """The wording columns to use: Chinese for a Chinese argument, English for another, both for none."""
    if not argument or not argument.strip():
        return (0, 1)
    return (1,) if script_of(argument) == "cjk" else (0,)


def say(key: str, columns: tuple[int, ...], **values: Any) -> str:
    return "\n".join(WORDS[key][column].format(**values) for column in columns)


def answered(method: Callable[..., str], name: str) -> Callable[..., str]:
    """`method`, failing as the tools do — the `error:`/`hint:` text as the answer, a bug's traceback in
    `mcp.log` — instead of an SDK error the client logs (and a line on stderr)."""

    @functools.wraps(method)
    def prompt(**kwargs: Any) -> str:
        try:
            return method(**kwargs)
        except Exception as exc:
            return failure_from(exc, f"prompt {name}").text

    return prompt


class MemoryPrompts:
    """The prompts' answers as text, over the tool methods (called on the server's worker thread)."""

    def __init__(self, tools: MemoryTools) -> None:
        self._tools = tools

    def recall(
        self,
        query: Annotated[
            str | None, Field(description="The topic, in any language (optional). 主题，任何语言（可选）。")
        ] = None,
    ) -> str:
        columns = languages_for(query)
        if not query or not query.strip():
            context = self._tools.memory_context()
            return "\n\n".join([say("recall.context", columns), context["text"].strip(), say("recall.more", columns)])
        found = self._tools.memory_search(query, limit=RECALL_LIMIT)
        if not found["results"]:
            return say("recall.none", columns, query=query.strip())
        lines = [f"- {hit['title']} ({hit['id'][:8]}, {hit['location']}): {hit['snippet']}" for hit in found["results"]]
        return "\n".join([say("recall.found", columns, query=query.strip()), *lines, "", say("recall.use", columns)])

    def remember(
        self,
        text: Annotated[str, Field(description="What to remember, one sentence. 要记住的一句话。")],
        kind: Annotated[
            str | None,
            Field(
                description="rule, preference, decision, knowledge, project, task or note (optional). "
                "类别（可选）：rule、preference、decision、knowledge、project、task、note。"
            ),
        ] = None,
    ) -> str:
        columns = languages_for(text)
        result = self._tools.memory_remember(text, kind=kind or None)
        memory = result["memory"] or {}
        key = {"written": "remember.written", "exists": "remember.exists"}.get(result["action"], "remember.pending")
        if result["action"] == "dropped" or not memory:
            line = say("remember.dropped", columns, reason=result["reason"])
        else:
            fields = {"title": memory.get("title", ""), "id": str(memory.get("id", ""))[:8]}
            line = say(key, columns, **fields, location=f"{memory.get('scope', '')}:{memory.get('path', '')}")
        return f"{line}\n{say('remember.ack', columns)}"

    def review(self) -> str:
        columns = languages_for(None)
        try:
            items = self._tools.refreshed().git.pending_changes(with_diff=False)
        except NotFoundError:  # no vault in git: nothing can wait for review
            items = []
        if not items:
            return say("review.none", columns)
        lines = [
            f"- [{item.scope}] {item.change.title or item.change.path} ({item.change.describe()})"
            + _retired(item.conflicts, columns)
            for item in items
        ]
        return "\n".join([say("review.some", columns, count=len(items)), *lines, "", say("review.how", columns)])


def _retired(conflicts: Sequence[ConflictRecord], columns: tuple[int, ...]) -> str:
    """What accepting a capture retires, said before the person accepts (issue 39): the memories it may
    contradict, by title and id (`review --accept ID --replace OLD` retires only one)."""
    if not conflicts:
        return ""
    named = "; ".join(f"“{conflict.title}” ({conflict.id[:8]})" for conflict in conflicts)
    return f" — {' / '.join(WORDS['review.retires'][column] for column in columns)}: {named}"
