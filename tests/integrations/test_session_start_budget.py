# ruff: noqa: F811  (the fixtures `hook` and `project` are imported from test_hook_sessions and taken by name)
"""A session start keeps its own budget (issue 39's goal: ≤ 1,500 tokens): the whole of what the client
receives — the preface, the memories, the notice of what was left out — counted by `prompt_tokens`, the count
docs/agents.md ("The hooks") states, through `aimate mem hook session-start` as a subprocess with Claude Code's
payload, on a project vault far larger than the budget, in English and Chinese."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aimate_memory.text.estimate import prompt_tokens
from tests.integrations.test_hook_sessions import (  # noqa: F401  (fixtures used by name)
    CLAUDE_SID,
    claude,
    context_of,
    git_identity,
    hook,
    project,
)

pytestmark = pytest.mark.slow  # an import and a few hook subprocesses per case

RULES = {
    "en": "Rule {i}: always run the formatter and the linter on module {i} before committing any change",
    "zh": "规则 {i}：提交模块 {i} 的任何改动之前，一定要先运行格式化工具和代码检查",
}
NOTES = {
    "en": "The crawler of source {i} times out after 30 seconds and retries three times, logging each failure",
    "zh": "爬虫模块 {i} 的超时时间设为 30 秒，失败后重试三次，并把每次错误写入日志",
}


def _import_vault(cli, project: Path, lang: str, count: int) -> None:
    """`count` core rules and `count` long-term notes of the project, in one `aimate mem import`."""
    lines = []
    for i in range(count):
        for layer, category, texts, base in (("core", "rule", RULES, 0), ("long_term", "knowledge", NOTES, 500)):
            text = texts[lang].format(i=i)
            identity = {"id": f"{base + i:08d}-0000-4000-8000-000000000000", "title": text}
            frontmatter = {**identity, "layer": layer, "category": category}
            record = {"scope": "project", "path": f"{layer}/{layer}-{i}.md", "frontmatter": frontmatter}
            lines.append(json.dumps({**record, "body": text + "\n"}, ensure_ascii=False))
    source = project.parent / f"vault-{lang}.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli("mem", "import", str(source), cwd=project).code == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_session_start_keeps_its_budget_and_names_what_it_left_out(cli, hook, project: Path, lang: str) -> None:
    _import_vault(cli, project, lang, 60)
    start = claude(project, CLAUDE_SID, "SessionStart", source="startup")

    output = json.loads(hook("session-start", start))
    context = output["hookSpecificOutput"]["additionalContext"]
    assert 1_000 < prompt_tokens(context) <= 1_500, prompt_tokens(context)  # filled, and within the default
    assert RULES[lang].format(i=0) in context  # core first
    assert "core memories did not fit" in output["systemMessage"]  # what it left out is named to the person
    assert "core memories did not fit" in context  # …and to the assistant

    assert cli("mem", "config", "set", "hooks.context_budget", "2500", cwd=project).code == 0
    larger = context_of(hook("session-start", {**start, "source": "resume"}))
    assert 1_500 < prompt_tokens(larger) <= 2_500  # the person's setting is the bound, whatever it is
