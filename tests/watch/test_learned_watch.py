"""The daemon's watch of the assistants' own memories (`watch/learned.py`; docs/agents.md, "The assistants'
own memories"): a real daemon on a temp `HOME`; off by default it imports nothing; with `learned.watch` on,
what Claude Code and Codex noted while the daemon was off and a Claude topic file written while it runs
become pending captures that `review` lists, source recorded, English and Chinese — and the clients' files
stay byte-identical."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aimate_memory.vault.assistant_memories import claude_project_folder
from aimate_memory.watch.transport import daemon_request
from tests.vault.test_assistant_memories import CLAUDE_TOPICS, CODEX_MEMORY, digest
from tests.watch.test_daemon_process import wait_for

pytestmark = pytest.mark.slow

NEW_TOPIC_EN = (
    "---\nname: Release day\ndescription: releases go out on Tuesdays\ntype: project\n---\n\n"
    "Releases of this service go out on Tuesdays, never on Fridays.\n"
)


def pending_titles(cli, project: Path, env: dict[str, str]) -> dict[str, str]:
    """What `review` lists: title → id."""
    review = cli("mem", "review", "--json", cwd=project, env=env)
    assert review.code == 0, review.err
    return {item["title"]: item["id"] for item in review.json()}


def sources(cli, project: Path, env: dict[str, str]) -> dict[str, str]:
    """The pending captures' sources: title → source."""
    shown = (
        cli("mem", "show", key, "--json", cwd=project, env=env).json()
        for key in pending_titles(cli, project, env).values()
    )
    return {memory["title"]: memory["source"] for memory in shown}


def quiet_for(home: Path, seconds: float) -> bool:
    """The daemon of `home` has run `seconds` and has nothing queued or running."""
    status = daemon_request(home, {"op": "status"}, 5) or {}
    return status.get("uptime_seconds", 0) >= seconds and not status.get("queue") and status.get("current") is None


def listed(cli, project: Path, env: dict[str, str], words: str) -> bool:
    return words in " ".join(pending_titles(cli, project, env))


def test_the_daemon_turns_new_claude_and_codex_notes_into_pending_captures_only_when_asked(
    cli, home: Path, tmp_path: Path, isolated_git: None
) -> None:
    aimate_home = home  # the daemon's (`cli` runs with it); `home` below is the person's HOME
    home = tmp_path / "user"
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    claude = claude_project_folder(home / ".claude", project.resolve())
    claude.mkdir(parents=True)
    (claude / "project_cache.md").write_text(CLAUDE_TOPICS["project_cache.md"], encoding="utf-8")  # Chinese
    codex = home / ".codex" / "memories"
    codex.mkdir(parents=True)
    (codex / "MEMORY.md").write_text(CODEX_MEMORY, encoding="utf-8")
    env = {"HOME": str(home), "CODEX_HOME": ""}
    assert cli("mem", "init", cwd=project, env=env).code == 0
    # Polls of 0.2 s (0.5 before): the off phase's wait below is three polls, and a new note is seen sooner.
    assert cli("mem", "config", "set", "learned.poll", "0.2", env=env).code == 0
    try:
        # Off (the default): a running daemon, several polls' time, nothing imported.
        assert cli("mem", "daemon", "start", env=env).code == 0
        # Idle after its start-up (where a watch that was on looks first) and three polls old by its own clock.
        wait_for(lambda: quiet_for(aimate_home, seconds=0.6), timeout=60)
        assert set(sources(cli, project, env).values()) & {"claude-auto-memory", "codex-memories"} == set()
        assert cli("mem", "daemon", "stop", env=env).code == 0

        # On: what was noted while the watch was off is taken at start, a new note while it runs too.
        assert cli("mem", "config", "set", "learned.watch", "true", env=env).code == 0
        assert cli("mem", "daemon", "start", env=env).code == 0
        wait_for(lambda: listed(cli, project, env, "缓存选型") and listed(cli, project, env, "提交信息"), timeout=60)
        (claude / "project_release.md").write_text(NEW_TOPIC_EN, encoding="utf-8")
        before = {**digest(claude), **{f"codex/{k}": v for k, v in digest(codex).items()}}
        wait_for(lambda: listed(cli, project, env, "Release day"), timeout=60)
    finally:
        cli("mem", "daemon", "stop", env=env)

    taken = sources(cli, project, env)
    assert sorted(taken.values()) == ["claude-auto-memory"] * 2 + ["codex-memories"] * 4  # each note once
    claude_titles = sorted(title.split(":")[0] for title, source in taken.items() if source == "claude-auto-memory")
    assert claude_titles == ["Release day", "缓存选型"]
    for key in pending_titles(cli, project, env).values():
        assert cli("mem", "show", key, "--json", cwd=project, env=env).json()["status"] == "pending"
    after = {**digest(claude), **{f"codex/{k}": v for k, v in digest(codex).items()}}
    assert after == before  # the clients' own memory is read, never written
