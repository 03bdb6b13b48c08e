# ruff: noqa: F811  (the fixtures `hook` and `project` are imported from test_hook_sessions and taken by name)
"""Sessions carry over (issue 39, seeds 002/004): a session that ends — by SessionEnd, or because its client
died — leaves an episode (asked, files changed, commits, decided, open) that the next session start in the
project shows; Codex's rollout transcript is read like Claude Code's. Through `aimate mem hook …` as a
subprocess with the clients' own payloads and transcript formats, in English and Chinese."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.integrations.test_hook_sessions import (  # noqa: F401  (fixtures used by name)
    CLAUDE_SID,
    CODEX_SID,
    OTHER_SID,
    claude,
    codex,
    context_of,
    git_identity,
    hook,
    project,
)

pytestmark = pytest.mark.slow  # a few hook subprocesses per case

STAMP = "2026-01-01T00:00:00.000Z"  # before anything the test commits: the session began before its commits


def claude_records(project: Path, *turns: tuple[str, str]) -> list[dict]:
    """Claude Code's JSONL: a user string, or an assistant text with a Write tool call when it says `EDIT path`."""
    records: list[dict] = []
    for role, text in turns:
        content: object = text
        if role == "assistant":
            blocks: list[dict] = [{"type": "text", "text": text}]
            if text.startswith("EDIT "):
                blocks.append({"type": "tool_use", "name": "Write", "input": {"file_path": str(project / text[5:])}})
            content = blocks
        records.append({"type": role, "timestamp": STAMP, "message": {"role": role, "content": content}})
    return records


def codex_records(said: list[str], patch_files: list[str]) -> list[dict]:
    """Codex's rollout: session_meta, user_message events, one apply_patch custom tool call, an agent reply."""
    patch = "*** Begin Patch\n" + "".join(f"*** Update File: {path}\n@@\n-a\n+b\n" for path in patch_files)
    records = [{"timestamp": STAMP, "type": "session_meta", "payload": {"id": CODEX_SID, "cwd": "/x"}}]
    for text in said:
        records.append({"timestamp": STAMP, "type": "event_msg", "payload": {"type": "user_message", "message": text}})
    call = {"type": "custom_tool_call", "name": "apply_patch", "input": patch + "*** End Patch", "call_id": "c1"}
    records.append({"timestamp": STAMP, "type": "response_item", "payload": call})
    records.append({"timestamp": STAMP, "type": "event_msg", "payload": {"type": "agent_message", "message": "OK"}})
    return records


def write(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")


def commit(project: Path, name: str, message: str) -> None:
    (project / name).write_text("x\n", encoding="utf-8")
    subprocess.run(["git", "-C", str(project), "add", name], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-q", "-m", message], check=True)


def last_sessions(context: str) -> str:
    assert "## Last sessions · project" in context, context
    return context.split("## Last sessions · project", 1)[1]


def joined(lang: str, *sentences: str) -> str:
    """Sentences of one turn as a person types them: a space after each English one, none after Chinese."""
    return ("" if lang == "zh" else " ").join(sentences)


# Each language in each client: what was asked, the decision and the open item, the commit's subject.
CLAUDE_SESSIONS = {
    "en": (
        "Add pagination to the /users endpoint",
        "Let's use cursor pagination instead of offsets.",
        "TODO: tests for the last page later.",
        "Add cursor pagination to /users",
    ),
    "zh": ("给 /users 接口加分页", "决定用游标分页，不用偏移量。", "回头再补最后一页的测试。", "给 /users 加游标分页"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_claude_session_leaves_an_episode_the_next_start_shows(hook, project: Path, lang: str) -> None:
    asked, decided, later, subject = CLAUDE_SESSIONS[lang]
    end = claude(project, CLAUDE_SID, "SessionEnd", reason="prompt_input_exit")
    said = (("user", asked), ("assistant", "EDIT api/users.py"), ("user", joined(lang, decided, later)))
    write(Path(end["transcript_path"]), claude_records(project, *said))
    commit(project, "users.py", subject)
    (project / "notes.txt").write_text("draft\n", encoding="utf-8")  # left uncommitted

    assert hook("session-end", end) == ""
    shown = last_sessions(
        context_of(hook("session-start", claude(project, OTHER_SID, "SessionStart", source="startup")))
    )
    assert shown.count(asked) == 1  # the title says what was asked first
    assert "changed: api/users.py; users.py" in shown
    assert subject in shown  # the commit made during the session
    assert f"decided: {decided}" in shown
    assert later in shown and "uncommitted: notes.txt" in shown


CODEX_SESSIONS = {
    "en": (
        ["Add pagination to the /users endpoint", "Add pagination to the /users endpoint"],
        "We decided to use cursor pagination, not offsets.",
        "TODO: tests for the last page later.",
        "Add cursor pagination to /users",
    ),
    "zh": (
        ["给 /users 接口加分页", "给 /users 接口加分页"],
        "决定用游标分页，不用偏移量。",
        "回头再补最后一页的测试。",
        "给 /users 加游标分页",
    ),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_codex_session_is_recorded_and_carried_over(cli, hook, project: Path, lang: str) -> None:
    asked, decided, later, subject = CODEX_SESSIONS[lang]
    end = codex(project, "SessionEnd", reason="other")
    transcript = project.parent / ".codex" / "sessions" / "rollout-2026-01-01.jsonl"
    end["transcript_path"] = str(transcript)
    write(transcript, codex_records([*asked, joined(lang, decided, later)], CODEX_FILES))
    commit(project, "users.py", subject)

    assert hook("session-end", end, "--client", "codex") == ""
    ended = [item for item in cli("mem", "session", "list", "--json", cwd=project).json() if item["status"] == "ended"]
    assert [item["key"] for item in ended] == [f"codex:{CODEX_SID}"]  # recorded, then ended
    start = codex(project, "SessionStart", source="startup")
    shown = last_sessions(context_of(hook("session-start", {**start, "session_id": "other"}, "--client", "codex")))
    assert shown.count(asked[0]) == 1  # asked twice: in the title, not again after "asked:"
    assert "changed: api/users.py; tests/test_users.py; users.py" in shown
    assert subject in shown
    assert f"decided: {decided}" in shown and f"open: {later}" in shown


CODEX_FILES = ["api/users.py", "tests/test_users.py"]
DIED = {"en": "Rename the config loader to settings.py", "zh": "把配置加载器改名为 settings.py"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_session_whose_client_died_is_closed_at_the_next_start(cli, hook, project: Path, lang: str) -> None:
    dead = claude(project, CLAUDE_SID, "SessionStart", source="startup")
    said = (("user", DIED[lang]), ("assistant", "EDIT settings.py"))
    write(Path(dead["transcript_path"]), claude_records(project, *said))
    hook("session-start", dead)  # the window opens … and dies: no SessionEnd ever comes
    quiet = time.time() - 5 * 3600  # past session.idle_timeout_minutes (240)
    os.utime(dead["transcript_path"], (quiet, quiet))

    alive = claude(project, OTHER_SID, "SessionStart", source="startup")
    Path(alive["transcript_path"]).write_text("", encoding="utf-8")
    shown = last_sessions(context_of(hook("session-start", alive)))
    assert DIED[lang] in shown and "changed: settings.py" in shown
    ended = [item for item in cli("mem", "session", "list", "--json", cwd=project).json() if item["status"] == "ended"]
    assert [item["key"] for item in ended] == [f"claude:{CLAUDE_SID}"]
    hook("session-start", {**alive, "source": "resume"})  # the live window is never taken for dead
    assert len([i for i in cli("mem", "session", "list", "--json", cwd=project).json() if i["status"] == "ended"]) == 1


@pytest.mark.parametrize(
    ("said", "reply", "decided", "prompt"),
    [
        (
            "Add pagination to the /users endpoint",
            "I used offset pagination with SQL LIMIT and OFFSET.",
            "Let's use cursor pagination instead of offsets.",
            "How does the /users pagination work again?",
        ),
        (
            "给 /users 接口加分页",
            "我用了 SQL 的 LIMIT 和 OFFSET 做偏移分页。",
            "决定用游标分页，不用偏移量。",
            "/users 接口的分页是怎么做的？",
        ),
    ],
)
def test_a_past_session_reaches_a_prompt_through_its_episode(
    hook, project: Path, said: str, reply: str, decided: str, prompt: str
) -> None:
    """No memory answers the prompt: the past session that does comes back as its episode — what was asked
    and decided, labelled as a past session — never as the assistant's words (docs/design.md "Episodes")."""
    end = claude(project, CLAUDE_SID, "SessionEnd", reason="prompt_input_exit")
    write(
        Path(end["transcript_path"]), claude_records(project, ("user", said), ("assistant", reply), ("user", decided))
    )
    assert hook("session-end", end) == ""
    given = context_of(hook("prompt", claude(project, OTHER_SID, "UserPromptSubmit", prompt=prompt)))
    assert given.startswith("From past sessions (AIMate;"), given
    assert f"asked: {said}" in given and f"decided: {decided}" in given and "[session " in given
    assert reply not in given and "LIMIT" not in given
