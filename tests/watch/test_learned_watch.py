"""The daemon's watch of the assistants' own memories (`watch/learned.py`; docs/agents.md, "The assistants'
own memories"): a real daemon on a temp `HOME`; off by default it imports nothing; with `learned.watch` on,
what Claude Code noted while the daemon was off and a topic file written while it runs become pending
captures that `review` lists, source recorded, English and Chinese — and the client's files stay
byte-identical."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from aimate_memory.vault.assistant_memories import claude_project_folder
from tests.vault.test_assistant_memories import CLAUDE_TOPICS, digest
from tests.watch.test_daemon_process import wait_for

pytestmark = pytest.mark.slow

NEW_TOPIC_EN = (
    "---\nname: Release day\ndescription: releases go out on Tuesdays\ntype: project\n---\n\n"
    "Releases of this service go out on Tuesdays, never on Fridays.\n"
)


def learned_titles(cli, project: Path, env: dict[str, str]) -> dict[str, str]:
    """Pending captures the Claude importer made: title → id."""
    review = cli("mem", "review", "--json", cwd=project, env=env)
    assert review.code == 0, review.err
    shown = {
        item["id"]: cli("mem", "show", item["id"], "--json", cwd=project, env=env).json() for item in review.json()
    }
    return {memory["title"]: key for key, memory in shown.items() if memory["source"] == "claude-auto-memory"}


def test_the_daemon_turns_new_claude_notes_into_pending_captures_only_when_asked(
    cli, tmp_path: Path, isolated_git: None
) -> None:
    home = tmp_path / "user"
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    claude = claude_project_folder(home / ".claude", project.resolve())
    claude.mkdir(parents=True)
    (claude / "project_cache.md").write_text(CLAUDE_TOPICS["project_cache.md"], encoding="utf-8")  # Chinese
    env = {"HOME": str(home), "CODEX_HOME": ""}
    assert cli("mem", "init", cwd=project, env=env).code == 0
    assert cli("mem", "config", "set", "learned.poll", "0.5", env=env).code == 0
    try:
        # Off (the default): a running daemon, several polls' time, nothing imported.
        assert cli("mem", "daemon", "start", env=env).code == 0
        time.sleep(3)
        assert learned_titles(cli, project, env) == {}
        assert cli("mem", "daemon", "stop", env=env).code == 0

        # On: what was noted while the watch was off is taken at start, a new note while it runs too.
        assert cli("mem", "config", "set", "learned.watch", "true", env=env).code == 0
        assert cli("mem", "daemon", "start", env=env).code == 0
        wait_for(lambda: "缓存选型" in " ".join(learned_titles(cli, project, env)), timeout=60)
        (claude / "project_release.md").write_text(NEW_TOPIC_EN, encoding="utf-8")
        before = digest(claude)
        wait_for(lambda: "Release day" in " ".join(learned_titles(cli, project, env)), timeout=60)
    finally:
        cli("mem", "daemon", "stop", env=env)

    titles = learned_titles(cli, project, env)
    assert len(titles) == 2  # each note once, however many polls saw the folder
    for key in titles.values():
        assert cli("mem", "show", key, "--json", cwd=project, env=env).json()["status"] == "pending"
    assert digest(claude) == before  # the client's own memory is read, never written
