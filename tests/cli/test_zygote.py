"""The tests' zygote (tests/zygote.py) against the real exec: the same commands, run both ways, print the same
and exit the same (docs/reliability.md, "The zygote")."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import make_runner
from tests.zygote import EXEC_ONLY, worker_zygote

pytestmark = pytest.mark.skipif(EXEC_ONLY, reason="AIMATE_TEST_EXEC=1: no zygote to compare")

# What two runs of one command differ by whichever way they start: where they ran, new ids, timings.
_VARYING = (
    (re.compile(r"\d{4}-\d\d-\d\dT[\d:.+]+"), "<when>"),
    (re.compile(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}|[0-9a-f]{8}"), "<id>"),
    (re.compile(r"\d+ ms.*"), "<time>"),
)


def _session(root: Path, real_exec: bool) -> list[tuple[int, str, str]]:
    """English and Chinese writes with stdin, reads, an error exit, a project's cwd, and two homes in a row
    (nothing one call's imports read may leak into the next): what each call printed and its exit code."""
    homes = [root / "home-1", root / "home-2"]
    work, project = root / "work", root / "project"
    for folder in (work, project / "src"):
        folder.mkdir(parents=True)
    (project / "pyproject.toml").write_text("", encoding="utf-8")
    runners = [make_runner(home, work, vectors=False, real_exec=real_exec) for home in homes]

    def call(home: int, *args: str, cwd: Path = work, input: str | None = None) -> tuple[int, str, str]:
        done = runners[home](*args, cwd=cwd, input=input)
        return done.code, done.out, done.err

    calls = [
        call(0, "mem", "init"),
        call(1, "mem", "init"),
        call(0, "mem", "add", "Package manager", input="Use pnpm, never npm, in this repo.\n"),
        call(1, "mem", "add", "包管理器", input="这个仓库只用 pnpm，不用 npm。\n"),
        call(0, "mem", "list"),
        call(1, "mem", "list"),
        call(0, "mem", "list", "--json"),
        call(1, "mem", "search", "pnpm"),
        call(1, "mem", "search", "包管理"),
        call(0, "mem", "show", "no-such-memory"),
        call(1, "mem", "nosuch"),
        call(0, "mem", "init", cwd=project / "src"),
        call(0, "mem", "add", "项目约定", "--body", "用 uv 管理依赖", cwd=project),
        call(0, "mem", "list", cwd=project),
        call(
            0, "mem", "hook", "session-start", cwd=project, input=json.dumps({"session_id": "s1", "cwd": str(project)})
        ),
        call(1, "mem", "list"),
        call(0, "--version"),
    ]
    text = [(code, out.replace(str(root), "<root>"), err.replace(str(root), "<root>")) for code, out, err in calls]
    return [(code, _steady(out), _steady(err)) for code, out, err in text]


def _steady(text: str) -> str:
    for pattern, replacement in _VARYING:
        text = pattern.sub(replacement, text)
    return text


def test_forked_calls_print_and_exit_as_exec_ones(tmp_path: Path, isolated_git: None) -> None:
    zygote = worker_zygote()
    forked_before = zygote.forked
    forked = _session(tmp_path / "forked", real_exec=False)
    assert zygote.forked - forked_before == len(forked)  # every call was a fork, none fell back
    execed = _session(tmp_path / "execed", real_exec=True)
    assert zygote.forked - forked_before == len(forked)
    assert [code for code, _, _ in forked] == [code for code, _, _ in execed]
    for one, other in zip(forked, execed, strict=True):
        assert one == other
    assert {0, 1, 2} <= {code for code, _, _ in forked}  # successes, an error, a usage error
    assert any("包管理器" in out for _, out, _ in forked) and any("Package manager" in out for _, out, _ in forked)


def test_an_interpreter_variable_of_its_own_is_exec(tmp_path: Path) -> None:
    """A call that sets what an interpreter decides at start (here stdout's encoding) is not forked."""
    cli = make_runner(tmp_path / "home", tmp_path, vectors=False)
    zygote = worker_zygote()
    before = zygote.forked
    assert cli("--version").code == 0
    assert zygote.forked == before + 1
    assert cli("mem", "nosuch", env={"PYTHONIOENCODING": "ascii:backslashreplace"}).code == 2
    assert zygote.forked == before + 1


def test_a_timeout_kills_the_child_as_subprocess_run_does(tmp_path: Path) -> None:
    cli = make_runner(tmp_path / "home", tmp_path, vectors=False)
    with pytest.raises(subprocess.TimeoutExpired):
        cli("mem", "hook", "session-start", input='{"session_id": "s"}', timeout=0.001)
    assert cli("--version").code == 0  # the zygote still serves
    shutil.rmtree(tmp_path / "home", ignore_errors=True)
