"""Episodes (issue 39; docs/design.md "Episodes"): built from a session's turns and git facts with no model,
in English and Chinese; the transcripts' tool calls say which files changed (Claude Code and Codex); a
running session whose client died is ended by maintenance after `session.idle_timeout_minutes`."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.git.activity import Commit, commits_between, recent_commits
from aimate_memory.integrations.claude_transcript import parse_records
from aimate_memory.integrations.codex_transcript import CODEX
from aimate_memory.sessions.episode import Episode, activity_since, activity_turn, build_episode
from aimate_memory.sessions.transcript import Turn
from aimate_memory.system import MemorySystem
from aimate_memory.system.sessions import CAPTURE_READER

T0 = datetime(2026, 11, 24, 10, 0, tzinfo=timezone.utc)


def turns(*said: tuple[str, str]) -> list[Turn]:
    return [Turn(role, T0, 1, text) for role, text in said]


@pytest.mark.parametrize(
    ("said", "decided", "still_open"),
    [
        (
            [
                "Add pagination to /users",
                "Let's use cursor pagination instead of offsets. TODO: tests for the last page.",
            ],
            "Let's use cursor pagination instead of offsets.",
            "TODO: tests for the last page.",
        ),
        (
            ["给 /users 接口加分页", "决定用游标分页，不用偏移量。回头再补最后一页的测试。"],
            "决定用游标分页，不用偏移量。",
            "回头再补最后一页的测试。",
        ),
    ],
)
def test_an_episode_says_what_was_asked_changed_decided_and_left(
    said: list[str], decided: str, still_open: str
) -> None:
    session = turns(
        ("user", said[0]),
        ("assistant", "Done / 完成"),
        ("tool", activity_turn("2026-11-24T09:00:00Z", ["api/users.py"])),
        ("user", said[1] + "\n" + "Traceback (most recent call last):\n" * 10),  # a paste: only its head is read
    )
    commit = Commit("a1b2c3d4e5f6", "Add cursor pagination", ("api/users.py", "tests/test_users.py"))
    episode = build_episode(session, CAPTURE_READER, [commit], [".aimate/memory/x.md", "notes.txt"])
    assert episode.asked == [said[0], said[1].split("\n")[0]]
    assert episode.files == ["api/users.py", "tests/test_users.py"]
    assert episode.commits == ["a1b2c3d Add cursor pagination"]
    assert episode.decided == [decided]
    assert episode.open == [still_open, "uncommitted: notes.txt"]  # the tool's own state is not the code's
    assert Episode.from_frontmatter(episode.to_frontmatter()) == episode
    assert episode.title() == said[0]
    assert activity_since(session) == datetime(2026, 11, 24, 9, 0, tzinfo=timezone.utc)


def test_small_talk_makes_no_episode_and_the_transcripts_name_edited_files() -> None:
    assert build_episode(turns(("assistant", "Hello")), CAPTURE_READER).empty
    claude = {
        "type": "assistant",
        "timestamp": "2026-11-24T09:00:00Z",
        "message": {"content": [{"type": "tool_use", "name": "Edit", "input": {"file_path": "/p/app.py"}}]},
    }
    read = parse_records((json.dumps(claude) + "\n").encode())
    assert (read.edited, read.started, read.turns) == (["/p/app.py"], "2026-11-24T09:00:00Z", [])
    patch = "*** Begin Patch\n*** Add File: 新文件.py\n+x\n*** Update File: a.py\n*** Move to: b.py\n*** End Patch"
    records = [
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "user_message", "message": "改一下 a.py"}},
        {"timestamp": "t", "type": "response_item", "payload": {"type": "function_call", "name": "apply_patch",
                                                                "arguments": json.dumps({"input": patch})}},
        {"timestamp": "t", "type": "response_item", "payload": {"type": "message", "role": "user", "content": []}},
    ]  # fmt: skip
    codex = parse_records("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode(), CODEX)
    assert [(turn.role, turn.content) for turn in codex.turns] == [("user", "改一下 a.py")]
    assert codex.edited == ["新文件.py", "a.py", "b.py"]


def test_commits_between_reads_the_sessions_commits(tmp_path: Path, isolated_git: None) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text("x\n", encoding="utf-8")
    subprocess.run(["git", "-C", str(tmp_path), "add", "a.py"], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-q", "-m", "加上 a.py"], check=True)
    now = datetime.now(timezone.utc)
    [commit] = commits_between(tmp_path, now - timedelta(minutes=5), now + timedelta(minutes=1))
    assert (commit.subject, commit.files) == ("加上 a.py", ("a.py",))
    assert commits_between(tmp_path, now - timedelta(days=2), now - timedelta(days=1)) == []


@pytest.mark.parametrize(
    ("code", "memory"),
    [("Add cursor pagination", "memory: accept 2 reviewed change(s)"), ("加上游标分页", "记忆：接受 2 条审阅过的改动")],
)
def test_a_commit_of_the_projects_memory_is_not_the_sessions_work(
    tmp_path: Path, isolated_git: None, code: str, memory: str
) -> None:
    """Issue 39's audit: a session that accepted captures (a commit of `.aimate/memory/…`) had "changed:
    .aimate/memory/long_term/…" and "commits: … memory: accept …" in its episode, and the session start's work
    query searched with them. Only the code's commits and files count."""
    project = tmp_path / "proj"  # tmp_path holds isolated_git's gitconfig
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    kept = project / ".aimate" / "memory" / "long_term"
    kept.mkdir(parents=True)
    (kept / "decision.md").write_text("---\ntitle: x\n---\n", encoding="utf-8")
    subprocess.run(["git", "-C", str(project), "add", ".aimate"], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-q", "-m", memory], check=True)
    (project / "users.py").write_text("x\n", encoding="utf-8")
    (kept / "decision.md").write_text("---\ntitle: y\n---\n", encoding="utf-8")
    subprocess.run(["git", "-C", str(project), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(project), "commit", "-q", "-m", code], check=True)
    now = datetime.now(timezone.utc)

    [commit] = commits_between(project, now - timedelta(minutes=5), now + timedelta(minutes=1))
    assert (commit.subject, commit.files) == (code, ("users.py",))
    assert [(c.subject, c.files) for c in recent_commits(project, 5)] == [(code, ("users.py",))]


@pytest.mark.parametrize("text", ["Fix the flaky login test", "修复登录的偶发失败测试"])
def test_maintenance_ends_a_session_left_running_by_a_dead_client(home: Path, monkeypatch, text: str) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    clock = FixedClock(T0)
    with MemorySystem.open(global_only=True, clock=clock) as system:
        system.init()
        system.add_conversation("user", text, session="kimi:dead")
        clock.advance(minutes=239)
        system.upkeep.maintain()
        assert [info.key for info in system.sessions.running()] == ["kimi:dead"]  # not idle long enough yet
        clock.advance(minutes=2)
        system.upkeep.maintain()
        assert system.sessions.running() == []
        [ended] = [info for info in system.sessions.list() if info.key == "kimi:dead"]
        assert ended.status in ("ended", "archived") and ended.title == text  # named by its episode


OVERVIEW = {True: "This app is a reporting dashboard built with Nuxt 2", False: "这个应用是用 Nuxt 2 做的报表看板"}


@pytest.mark.parametrize(
    ("topic", "asked", "others"),
    [
        (
            "CSV export streams rows with a generator, never the whole report in memory",
            "Continue the CSV export of the report page",
            [f"Decision number {n}: the settings page keeps option {n} behind a feature flag" for n in range(12)],
        ),
        (
            "CSV 导出用生成器逐行输出，绝不把整份报表读进内存",
            "继续做报表页的 CSV 导出",
            [f"第 {n} 个决定：设置页的第 {n} 个选项放在功能开关后面" for n in range(12)],
        ),
    ],
)
def test_a_session_start_chooses_memories_for_the_work_of_the_last_session(
    home: Path, tmp_path: Path, monkeypatch, topic: str, asked: str, others: list[str]
) -> None:
    """At a small budget the session start cannot show every memory: it shows those that bear on what the
    last session worked on (its episode), not merely the newest (docs/design.md "What a session start
    chooses")."""
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    folder = tmp_path / "proj"
    folder.mkdir()
    clock = FixedClock(T0)
    with MemorySystem.open(project=str(folder), clock=clock) as system:
        system.init()
        system.add(topic, layer="long_term", category="decision")
        for text in others:  # newer, and about something else
            clock.advance(minutes=5)
            system.add(text, layer="long_term", category="decision")
        system.refresh()
        assert topic not in system.build_context(budget=200).text  # the newest fill a small budget
        system.add_conversation("user", asked, session="cli:work")
        system.end_session(session="cli:work")
        chosen = system.build_context(budget=200)
        assert "## Last sessions · project" in chosen.text and asked in chosen.text
        assert topic in chosen.text
        assert chosen.total_tokens <= 200
        # What the project is bears on every session: its overview comes first at a session start.
        clock.advance(minutes=5)
        overview = system.add(OVERVIEW[topic.isascii()], layer="long_term", category="project")
        for text in others[1:6]:
            clock.advance(minutes=5)
            system.add(text + " (later)", layer="long_term", category="decision")
        system.refresh()
        section = system.build_context(budget=200).text.split("## Long-term memory · project", 1)[1]
        items = [line for line in section.splitlines() if line.startswith("- ")]
        assert items[0].endswith(f"({overview.id[:8]})"), section


@pytest.mark.parametrize(
    ("tasks", "said", "subject"),
    [
        (
            ["TODO: fix the flaky login test", "TODO: add pagination to /users", "TODO: write the migration guide"],
            "The flaky login test is fixed now. Next, the migration guide is done when the API settles.",
            "Add pagination to /users",
        ),
        (
            ["待办：修复登录的偶发失败测试", "待办：给 /users 接口加分页", "待办：写迁移指南"],
            "登录的偶发失败测试已经修好了。迁移指南等接口稳定了再写好了。",
            "新增 /users 接口加分页",
        ),
    ],
)
def test_a_task_the_session_finished_is_closed(
    tmp_path: Path, home: Path, isolated_git: None, monkeypatch, tasks: list[str], said: str, subject: str
) -> None:
    """A task the person says is finished, or that a commit of the session closes, is closed as `done` would
    close it; one only mentioned stays open (docs/lifecycle.md "Tasks the person finishes")."""
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    folder = tmp_path / "proj"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    clock = FixedClock(datetime.now(timezone.utc) - timedelta(minutes=1))
    with MemorySystem.open(project=str(folder), clock=clock) as system:
        system.init()
        ids = [system.add(text, layer="short_term", category="task").id for text in tasks]
        system.add_conversation("user", said, session="cli:work")
        (folder / "users.py").write_text("x\n", encoding="utf-8")
        subprocess.run(["git", "-C", str(folder), "add", "users.py"], check=True)
        subprocess.run(["git", "-C", str(folder), "commit", "-q", "-m", subject], check=True)
        clock.advance(minutes=2)
        system.end_session(session="cli:work")
        assert [system.get(task_id).status for task_id in ids] == ["done", "done", "active"]
