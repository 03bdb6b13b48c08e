"""The prompt hook's "remember: …" when it may contradict an active core memory, through `aimate mem hook`
as a subprocess with the real models: the assistant is told which memory, as a fact (docs/agents.md)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import linked_models, make_runner

pytestmark = pytest.mark.slow


def test_remember_in_a_prompt_names_what_it_may_contradict(
    home: Path, workdir: Path, tmp_path: Path, isolated_git: None, model_cache: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    cli = make_runner(home, workdir, vectors=True)
    # The run's model cache, linked (`init` built it again here: 5.5-7 s of CPU; tests/embedding test the build).
    models = linked_models(model_cache, tmp_path / "models")
    env = {"AIMATE_EMBEDDING__CACHE_DIR": str(models), "AIMATE_NO_DAEMON": "1"}
    assert cli("mem", "init", cwd=project, env=env).code == 0
    first = cli("mem", "remember", "We use pytest for all tests", "--kind", "decision", "--json", cwd=project, env=env)
    old_id = first.json()["memory"]["id"]
    payload = {
        "session_id": "s1",
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "记住：测试框架改用 unittest",
    }
    said = cli("mem", "hook", "prompt", input=json.dumps(payload, ensure_ascii=False), cwd=project, env=env)
    assert said.code == 0, said.err
    context = json.loads(said.out)["hookSpecificOutput"]["additionalContext"]
    assert "may contradict an active memory" in context
    assert f'[{old_id[:8]}] "We use pytest for all tests" (test runner: unittest here, pytest there)' in context
    again = cli("mem", "hook", "prompt", input=json.dumps(payload, ensure_ascii=False), cwd=project, env=env)
    said_again = json.loads(again.out)["hookSpecificOutput"]["additionalContext"]
    assert "queued for review" in said_again and "may contradict" not in said_again  # one proposal, said twice
    english = {**payload, "prompt": "remember: switch the test runner to unittest"}
    for _ in range(2):
        told = cli("mem", "hook", "prompt", input=json.dumps(english), cwd=project, env=env)
        assert "queued for review" in json.loads(told.out)["hookSpecificOutput"]["additionalContext"]
    pending = cli("mem", "list", "--status", "pending", "--json", cwd=project, env=env).json()
    assert sorted(item["title"] for item in pending) == ["switch the test runner to unittest", "测试框架改用 unittest"]
