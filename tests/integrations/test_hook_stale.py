"""What the hooks give an assistant about a memory whose cited code changed (issue 27): the session-start
context lists it under a heading that states the fact, and the prompt hook's line for it says what changed.
In Chinese and English; the facade in process as the client, keyword-only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aimate_memory.context.render import STALE_HEADING
from aimate_memory.integrations.hook_events import Client, HookKind
from aimate_memory.integrations.hooks import run_hook
from aimate_memory.system import MemorySystem
from aimate_memory.system.client import LocalClient
from tests.repos import committed_project, git


@pytest.mark.parametrize(
    ("title", "body", "prompt"),
    [
        ("Token refresh", "Token refresh happens in auth/session.py via refresh_token().", "token refresh"),
        ("令牌刷新", "令牌刷新在 auth/session.py 的 refresh_token() 里", "令牌刷新"),
    ],
)
def test_session_start_and_prompt_hooks_say_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_git: None, title: str, body: str, prompt: str
) -> None:
    monkeypatch.setenv("AIMATE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    project = committed_project(tmp_path / "proj", {"auth/session.py": "def refresh_token():\n    pass\n"})
    with MemorySystem.open(cwd=project) as system:
        system.init()
        memory = system.add(title, body, scope="project")
        (project / "auth" / "session.py").write_text("def refresh_token():\n    return 1\n", encoding="utf-8")
        git(project, "commit", "-qam", "rewrite", later_s=2)
        system.refresh()
        connect = lambda cwd: LocalClient(lambda: system)  # noqa: E731
        said = f"({memory.id[:8]}): auth/session.py changed in 1 commit since"

        payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
        start = run_hook(HookKind.SESSION_START, json.dumps(payload), connect, client=Client.CLAUDE, home=tmp_path)
        context = json.loads(start)["hookSpecificOutput"]["additionalContext"]
        assert STALE_HEADING in context and said in context

        payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
        output = run_hook(HookKind.PROMPT, json.dumps(payload), connect, client=Client.CLAUDE, home=tmp_path)
        line = next(
            line
            for line in json.loads(output)["hookSpecificOutput"]["additionalContext"].splitlines()
            if memory.id[:8] in line
        )
        assert "(possibly stale: auth/session.py changed in 1 commit since" in line
