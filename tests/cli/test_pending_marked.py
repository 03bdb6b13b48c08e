"""Nothing unreviewed is presented as memory (issue 39): a capture waiting for review is marked pending in every
search (CLI text, `--json`), and neither the prompt hook nor the context carries it. Chinese and English."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import in_process, make_runner

CASES = [
    ("Use black for formatting", "black formatting"),
    ("代码格式化统一使用 black 工具", "black 工具"),
]


@pytest.fixture
def project_cli(home: Path, workdir: Path, tmp_path: Path, isolated_git: None):
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    run = make_runner(home, workdir, vectors=False)
    assert run("mem", "init", cwd=project).code == 0
    return run, project, home


@pytest.mark.parametrize(("sentence", "query"), CASES)
def test_a_pending_capture_is_marked_in_search_and_left_out_of_hooks(project_cli, sentence: str, query: str) -> None:
    cli, project, home = project_cli
    # The agent's capture and the reviewed rule written in process, as `remember --confidence 0.7 --source
    # claude` and `add` write them (their faces have tests of their own; two CLI processes were ~0.9 s of CPU):
    # this test is about what the searches and hooks below show of them.
    with in_process(home, project) as system:
        assert system.remember(sentence, confidence=0.7, source="claude").action == "pending"
        system.add(f"{sentence} (reviewed)", category="rule")

    found = cli("mem", "search", query, "--json", cwd=project).json()
    statuses = {hit["title"]: hit["status"] for hit in found}
    assert statuses == {sentence: "pending", f"{sentence} (reviewed)": "active"}

    text = cli("mem", "search", query, cwd=project).out
    titles = [line for line in text.splitlines() if line[:2] in ("1.", "2.")]
    marks = {"(reviewed)" in line: "pending review, not yet a memory" in line for line in titles}
    assert marks == {False: True, True: False}  # the capture marked, the reviewed memory not

    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "UserPromptSubmit", "prompt": query}
    said = cli("mem", "hook", "prompt", input=json.dumps(payload, ensure_ascii=False), cwd=project)
    context = json.loads(said.out)["hookSpecificOutput"]["additionalContext"]
    assert f"{sentence} (reviewed)" in context
    assert f"- {sentence} [" not in context

    start = {"session_id": "s1", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
    opened = cli("mem", "hook", "session-start", input=json.dumps(start), cwd=project)
    start_context = json.loads(opened.out)["hookSpecificOutput"]["additionalContext"]
    assert f"{sentence} (reviewed)" in start_context
    assert start_context.count(sentence) == 1  # the reviewed one only
