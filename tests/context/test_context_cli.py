"""The context through the real CLI and the real session-start hook (subprocesses, temp AIMATE_HOME and HOME),
Chinese and English: core first and whole, named when left out, title-only memories present, compact text.

Memories are written as Markdown files into the vaults (the files are the truth; the CLI syncs them), so a
test with 30 memories does not spend a minute on 30 `aimate mem add` processes; the title-only ones go
through `aimate mem add` as a person would type them."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

RULES_EN = [
    "Never commit directly to main",
    "Use uv for Python environments",
    "Write commit messages in English, imperative mood",
    "Prefer concise, direct responses",
    "Run the tests before every commit",
]
RULES_ZH = [
    "回复时先给结论再给理由",
    "所有交互使用简体中文",
    "我习惯用 Tab 缩进",
    "不要在生产数据库上直接执行迁移",
    "提交信息不超过七十二个字符",
]
NOTE_EN = "The staging box has 16 GB of RAM and runs Debian 12; deploys go through the blue slot first."
NOTE_ZH = "预发布环境有 16 GB 内存，运行 Debian 12；部署先走蓝色槽位，确认后再切流量。"


@pytest.fixture
def user_home(tmp_path: Path) -> Path:
    path = tmp_path / "user-home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path, cli, initialized: Path, user_home: Path) -> Path:
    """A git project with its vault, beside the person's global vault (`initialized`)."""
    path = tmp_path / "proj"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    assert cli("mem", "init", cwd=path, env={"HOME": str(user_home)}).code == 0
    return path


@pytest.fixture
def run(cli, project: Path, user_home: Path):
    def invoke(*args: str, input: str | None = None, env: dict | None = None):
        return cli(
            *args, cwd=project, input=input, env={"HOME": str(user_home), "AIMATE_NO_DAEMON": "1", **(env or {})}
        )

    return invoke


def _write(vault: Path, folder: str, n: int, title: str, body: str, layer: str, category: str) -> str:
    ident = f"{n:08x}-0000-4000-8000-{n:012x}"
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")  # recent: short-term of the last 7 days
    front = (
        f"---\nid: {ident}\ntype: {layer}\ncategory: {category}\ntitle: {json.dumps(title, ensure_ascii=False)}\n"
        f"status: active\nimportance: 3\ncreated_at: {now}\nupdated_at: {now}\n---\n"
    )
    path = vault / folder / f"m{n:03}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(front + body + "\n", encoding="utf-8")
    return ident[:8]


def _core(home: Path, titles: list[str], start: int = 1) -> list[str]:
    """Global core rules written as a person's file would hold them: the title, no body."""
    return [_write(home / "memory", "core", start + n, title, "", "core", "rule") for n, title in enumerate(titles)]


def _notes(project: Path, count: int, start: int = 100) -> None:
    """Recent project short-term notes, each a real paragraph (the newest would crowd core out before)."""
    for n in range(count):
        body = NOTE_ZH if n % 2 else NOTE_EN
        title = f"预发布环境说明 {n}" if n % 2 else f"Staging notes {n}"
        _write(project / ".aimate" / "memory", "short_term/notes", start + n, title, body, "short_term", "note")


def _trust(run) -> None:
    """Files made by hand in the project vault are trusted as any file the tool did not write: by the person's
    `aimate mem trust` (docs/reliability.md, "Trust model")."""
    assert run("mem", "trust").code == 0


def _hook(run, project: Path, env: dict | None = None) -> dict:
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
    result = run("mem", "hook", "session-start", input=json.dumps(payload), env=env)
    assert result.code == 0 and result.err == ""
    return json.loads(result.out)


def test_title_only_memories_reach_the_context_and_the_hook(run, project: Path) -> None:
    """The issue's reproduction: a rule added by its title alone was listed and searchable but in no context."""
    assert run("mem", "add", "Never commit directly to main", "--layer", "core", "--category", "rule").code == 0
    assert run("mem", "add", "所有交互使用简体中文", "--layer", "core", "--category", "rule").code == 0
    assert run("mem", "add", "缓存命中率大约 80%", "--layer", "short_term").code == 0
    text = run("mem", "context").out
    assert "- Never commit directly to main (" in text and "- 所有交互使用简体中文 (" in text
    assert "- 缓存命中率大约 80% (" in text and "<!--" not in text and "Preferences" not in text  # no templates
    context = _hook(run, project)["hookSpecificOutput"]["additionalContext"]
    assert "Never commit directly to main" in context and "所有交互使用简体中文" in context


def test_ten_core_and_twenty_notes_at_the_default_hook_budget(run, project: Path, home: Path) -> None:
    ids = _core(home, RULES_EN + RULES_ZH)
    _notes(project, 20)
    _trust(run)
    output = _hook(run, project)
    context = output["hookSpecificOutput"]["additionalContext"]
    for rule, ident in zip(RULES_EN + RULES_ZH, ids, strict=True):
        assert f"- {rule} ({ident})" in context  # one line each, 8-character id, no path
    assert "systemMessage" not in output  # nothing was left out
    assert "Staging notes 0" in context  # what core left went to the notes
    assert ".md" not in context and len(context) < 10_000
    data = run("mem", "context", "--budget", "2000", "--json").json()
    assert data["total_tokens"] <= 2000 and [w["kind"] for w in data["warnings"]] == []
    core_items = [item for s in data["sections"] if s["layer"] == "core" for item in s["items"]]
    assert len(core_items) == 10 and all(item["path"].startswith("core/") for item in core_items)


def test_four_core_memories_with_a_query_at_budget_800(run, project: Path, home: Path) -> None:
    """Before: an empty text (each heading carried id and path, ~30 tokens, against a 40-token core share)."""
    _core(home, RULES_EN[:2] + RULES_ZH[:2])
    _notes(project, 6)
    _trust(run)
    data = run("mem", "context", "staging 部署", "--budget", "800", "--json").json()
    text = data["text"]
    for rule in RULES_EN[:2] + RULES_ZH[:2]:
        assert rule in text
    assert data["total_tokens"] <= 800 and data["warnings"] == []
    assert text.index("Never commit") < text.index("Staging notes")


def test_the_issue_scenario_four_core_and_six_notes_in_the_hook(run, project: Path, home: Path) -> None:
    _core(home, RULES_EN[:2] + RULES_ZH[:2])
    _notes(project, 6)
    _trust(run)
    context = _hook(run, project)["hookSpecificOutput"]["additionalContext"]
    assert all(rule in context for rule in RULES_EN[:2] + RULES_ZH[:2])
    assert all(f"Staging notes {n}" in context for n in (0, 2, 4))


def test_a_cap_too_small_names_what_was_left_out_to_the_person(run, project: Path, home: Path) -> None:
    ids = _core(home, RULES_EN + RULES_ZH)
    small = {"AIMATE_CONTEXT__CORE_MAX_TOKENS": "60"}
    output = _hook(run, project, env=small)
    context = output["hookSpecificOutput"]["additionalContext"]
    notice = output["systemMessage"]  # Claude Code shows it to the person
    shown = [ident for ident in ids if f"({ident})" in context.split("AIMate:")[0]]
    left_out = [ident for ident in ids if ident not in shown]
    assert shown and left_out
    assert notice.startswith(f"AIMate: {len(left_out)} core memories did not fit:")
    assert all(f"({ident})" in notice for ident in left_out) and "context.core_max_tokens" in notice
    assert notice in context  # the assistant is told too

    cli_run = run("mem", "context", env=small)
    assert cli_run.code == 0 and f"{len(left_out)} core memories did not fit" in cli_run.err
    assert all(f"({ident})" in cli_run.err for ident in left_out)
    data = run("mem", "context", "--json", env=small).json()
    (warning,) = [w for w in data["warnings"] if w["kind"] == "core_over_budget"]
    assert all(f"({ident})" in warning["message"] for ident in left_out)

    # A hook budget smaller than the core: the hint says where to see them.
    tight = _hook(run, project, env={"AIMATE_HOOKS__CONTEXT_BUDGET": "50"})
    assert "run `aimate mem context` to see them" in tight["systemMessage"]


def test_the_hook_stays_under_claude_codes_output_cap(run, project: Path, home: Path) -> None:
    _core(home, RULES_EN + RULES_ZH)
    for n in range(40):  # long multi-paragraph memories, far over 10,000 characters in all
        body = "\n\n".join([NOTE_EN * 3, NOTE_ZH * 3])
        _write(
            project / ".aimate" / "memory", "short_term/notes", 200 + n, f"Long note {n}", body, "short_term", "note"
        )
    _trust(run)
    output = _hook(run, project, env={"AIMATE_HOOKS__CONTEXT_BUDGET": "8000"})
    context = output["hookSpecificOutput"]["additionalContext"]
    assert len(context) + len(output.get("systemMessage", "")) <= 10_000
    assert all(rule in context for rule in RULES_EN + RULES_ZH) and "Long note" in context


def test_a_retired_core_ratio_in_a_config_file_still_loads(run, project: Path, home: Path) -> None:
    (home / "config.yaml").write_text("context:\n  core_ratio: 0.2\n", encoding="utf-8")
    assert run("mem", "context").code == 0
    refused = run("mem", "config", "set", "context.core_ratio", "0.3")
    assert refused.code == 1 and "retired" in refused.err and "core_max_tokens" in refused.err
