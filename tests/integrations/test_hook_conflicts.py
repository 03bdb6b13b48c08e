"""The prompt hook's "remember: …" when it may contradict an active core memory, through `aimate mem hook`
as a subprocess with the real models: the assistant is told which memory, as a fact (docs/agents.md)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Result, linked_models, make_runner

pytestmark = pytest.mark.slow

HANG = 600  # seconds: a process still running after this is stuck, not slow


def test_remember_in_a_prompt_names_what_it_may_contradict(
    home: Path, workdir: Path, tmp_path: Path, isolated_git: None, model_cache: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    runner = make_runner(home, workdir, vectors=True)
    # The run's model cache, linked (`init` built it again here: 5.5-7 s of CPU; tests/embedding test the build).
    models = linked_models(model_cache, tmp_path / "models")
    env = {"AIMATE_EMBEDDING__CACHE_DIR": str(models), "AIMATE_NO_DAEMON": "1"}

    def cli(*args: str, **kwargs: Any) -> Result:
        """Each call waits for its process to end: every one loads the models (~1.5 s of CPU), which took
        minutes of wall at load ~25, so the bound is for a hang, not a speed check (scripts/bench.py is)."""
        return runner(*args, env=env, timeout=HANG, **kwargs)

    made = cli("mem", "init", cwd=project)
    assert made.code == 0, made.err
    # The cache was found, not built again: that build is what pushed `init` past its bound under load.
    assert "preparing the embedding models" not in made.out + made.err, made.out
    first = cli("mem", "remember", "We use pytest for all tests", "--kind", "decision", "--json", cwd=project)
    old_id = first.json()["memory"]["id"]
    payload = {
        "session_id": "s1",
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "记住：测试框架改用 unittest",
    }
    said = cli("mem", "hook", "prompt", input=json.dumps(payload, ensure_ascii=False), cwd=project)
    assert said.code == 0, said.err
    context = json.loads(said.out)["hookSpecificOutput"]["additionalContext"]
    assert "may contradict an active memory" in context
    assert f'[{old_id[:8]}] "We use pytest for all tests" (test runner: unittest here, pytest there)' in context
    again = cli("mem", "hook", "prompt", input=json.dumps(payload, ensure_ascii=False), cwd=project)
    said_again = json.loads(again.out)["hookSpecificOutput"]["additionalContext"]
    assert "queued for review" in said_again and "may contradict" not in said_again  # one proposal, said twice
    english = {**payload, "prompt": "remember: switch the test runner to unittest"}
    for _ in range(2):
        told = cli("mem", "hook", "prompt", input=json.dumps(english), cwd=project)
        assert "queued for review" in json.loads(told.out)["hookSpecificOutput"]["additionalContext"]
    pending = cli("mem", "list", "--status", "pending", "--json", cwd=project).json()
    assert sorted(item["title"] for item in pending) == ["switch the test runner to unittest", "测试框架改用 unittest"]
