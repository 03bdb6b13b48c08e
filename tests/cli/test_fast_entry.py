"""The fast entry point (`cli.fast`): which command lines it serves, that it answers exactly as the typer
app does, and that it does so without importing typer, rich or the facade on the way."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aimate_memory import __version__
from aimate_memory.cli.fast import FastArgs, fast_command, parse
from tests.conftest import in_process
from tests.zygote import run_aimate

PYTHON = str(Path(sys.executable))
# `cli.main` as `aimate` runs it, reporting afterwards which heavy packages it imported.
FAST_MAIN = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write('IMPORTED ' + ' '.join(sorted(m for m in "
    "('typer', 'rich', 'click', 'aimate_memory.cli.app', 'aimate_memory.system', 'numpy', 'mcp') "
    "if m in sys.modules)) + '\\n'))\n"
    "from aimate_memory.cli import main; sys.argv[0] = 'aimate'; main()"
)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["mem", "hook", "prompt"], FastArgs("hook", "prompt")),
        (["mem", "hook", "session-start", "--client", "kimi"], FastArgs("hook", "session-start", "kimi")),
        (["mem", "hook", "session-end", "--client=kimi"], FastArgs("hook", "session-end", "kimi")),
        (
            ["mem", "--project", "/p", "--global", "hook", "prompt"],
            FastArgs("hook", "prompt", project=Path("/p"), global_only=True),
        ),
        (["mem", "--debug", "mcp"], FastArgs("mcp", debug=True)),
        (["mem", "mcp", "--project", "/p"], FastArgs("mcp", project=Path("/p"))),
        (["mem", "--project=/p", "mcp"], FastArgs("mcp", project=Path("/p"))),
    ],
)
def test_served_command_lines(argv: list[str], expected: FastArgs) -> None:
    assert parse(argv) == expected
    assert fast_command(argv) is not None


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["mem"],
        ["mem", "--help"],
        ["mem", "hook"],
        ["mem", "hook", "--help"],
        ["mem", "hook", "prompt", "--help"],
        ["mem", "hook", "prompt", "-h"],
        ["mem", "hook", "nonsense"],
        ["mem", "hook", "prompt", "--client", "cursor"],  # not a hook client: typer says so
        ["mem", "hook", "prompt", "--client"],
        ["mem", "hook", "prompt", "extra"],
        ["mem", "hook", "prompt", "--project", "/p"],  # --project belongs before the command
        ["mem", "mcp", "--client", "kimi"],
        ["mem", "--project"],
        ["mem", "--unknown", "mcp"],
        ["mem", "search", "--since", "7d", "redis"],  # a filter: the typer app (a plain search is served)
        ["mem", "list", "--layer", "core"],  # a filter: the typer app (cli/served.py serves the plain shapes)
        ["--version", "extra"],
    ],
)
def test_everything_else_goes_to_the_typer_app(argv: list[str]) -> None:
    assert fast_command(argv) is None


def run(code: str, *args: str, input: str = "", cwd: Path, env: dict[str, str] | None = None):
    return subprocess.run(
        [PYTHON, "-c", code, *args], input=input, capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


@pytest.fixture
def vault(cli, initialized: Path, home: Path, tmp_path: Path, isolated_git: None) -> Path:
    """A project with memories in Chinese and English, global and project scope; the project folder. Its vault
    made by `aimate mem init` (the person's own project, trusted as theirs); the memories added in process
    as `aimate mem add` adds them (`in_process`): the tests are about what the hooks print."""
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert cli("mem", "init", cwd=project).code == 0
    with in_process(home, project) as system:
        system.add("Package manager", "Always use pnpm", layer="core", category="rule")
        system.add("提交说明", "始终用中文写提交说明", layer="core", category="rule")
        system.add("We chose Redis as the session cache", "Low latency, TTL support.")
        system.add("决定：会话缓存用 Redis", "延迟低，支持过期。")
    return project


def payload(project: Path, event: str, **fields: str) -> str:
    return json.dumps({"session_id": "s1", "cwd": str(project), "hook_event_name": event, **fields}, ensure_ascii=False)


@pytest.mark.parametrize(
    ("args", "event", "fields"),
    [
        (("prompt",), "UserPromptSubmit", {"prompt": "which session cache did we choose? Redis"}),
        (("prompt",), "UserPromptSubmit", {"prompt": "会话缓存用什么？Redis"}),
        (("session-start",), "SessionStart", {"source": "startup"}),
        (("prompt", "--client", "kimi"), "UserPromptSubmit", {"prompt": "会话缓存 Redis"}),
    ],
)
def test_fast_hook_prints_what_the_typer_hook_prints(
    vault: Path, home: Path, tmp_path: Path, args: tuple[str, ...], event: str, fields: dict[str, str]
) -> None:
    # A copy of the home and the project for the typer run: a Kimi prompt writes a session turn.
    twin = tmp_path / "twin"
    shutil.copytree(home, twin / "home", symlinks=True)
    shutil.copytree(vault, twin / "proj", symlinks=True)
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_NO_DAEMON": "1", "AIMATE_EMBEDDING__ENABLED": "false"}
    fast = run(FAST_MAIN, "mem", "hook", *args, input=payload(vault, event, **fields), cwd=vault, env=env)
    # The typer app's hook (`AIMATE_NO_FASTPATH=1`: `cli.main` hands every command to it) forked from the zygote
    # (tests/zygote.py): its imports are not what this test is about, ~0.2 s of CPU less a call.
    twin_env = {**env, "AIMATE_HOME": str(twin / "home"), "AIMATE_NO_FASTPATH": "1"}
    # Trust is per project folder: the copy is a checkout the person has not trusted yet.
    assert run_aimate(["mem", "trust"], cwd=twin / "proj", env=twin_env, input=None, timeout=120).returncode == 0
    hook = ["mem", "hook", *args]
    typer_run = run_aimate(
        hook, cwd=twin / "proj", env=twin_env, input=payload(twin / "proj", event, **fields), timeout=120
    )
    assert fast.returncode == typer_run.returncode == 0, (fast.stderr, typer_run.stderr)
    assert fast.stdout == typer_run.stdout
    assert "Redis" in fast.stdout or "始终用中文写提交说明" in fast.stdout
    if "--client" in args:
        assert fast.stdout.startswith("Memory from AIMate")  # Kimi: plain text, the session context first
    else:
        assert json.loads(fast.stdout)["hookSpecificOutput"]["hookEventName"] == event
    imported = set(fast.stderr.rsplit("IMPORTED ", 1)[1].split())
    assert "aimate_memory.system" in imported  # cold: the facade, never the CLI app
    assert not imported & {"typer", "rich", "click", "aimate_memory.cli.app"}, imported
    # A prompt searches (ranking is array work); a session start builds its context without numpy (issue 38).
    assert ("numpy" in imported) == (event == "UserPromptSubmit"), imported


@pytest.mark.parametrize("garbage", ["", "not json", "[1, 2]", '{"prompt": 3}'])
def test_fast_hook_given_garbage_prints_nothing_and_exits_0(workdir: Path, home: Path, garbage: str) -> None:
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_NO_DAEMON": "1"}
    for kind in ("session-start", "prompt", "session-end"):
        result = run(FAST_MAIN, "mem", "hook", kind, input=garbage, cwd=workdir, env=env)
        assert (result.returncode, result.stdout) == (0, ""), result.stderr
        if not garbage.startswith("{"):
            assert "IMPORTED \n" in result.stderr  # not a payload: nothing heavy imported to print nothing


def test_version_and_help(cli) -> None:
    assert cli("--version").out == f"aimate {__version__}\n"
    helped = cli("mem", "hook", "prompt", "--help")
    assert helped.code == 0 and "UserPromptSubmit" in helped.out  # the typer app's help text
    wrong = cli("mem", "hook", "prompt", "--client", "cursor")
    assert wrong.code == 2 and "cursor" in wrong.err


def test_the_apps_table_of_command_modules_names_what_each_declares() -> None:
    """`cli.app` mounts only the module of the command it runs (issue 38): its table must name every command
    and group of every module, each in the module that declares it."""
    import importlib

    from aimate_memory.cli.app import COMMAND_MODULES

    for name, listed in COMMAND_MODULES.items():
        group = importlib.import_module(f"aimate_memory.cli.{name}").commands
        declared = {
            info.name or (info.callback.__name__.rstrip("_").replace("_", "-")) for info in group.registered_commands
        }  # type: ignore[union-attr]
        declared |= {info.name for info in group.registered_groups if info.name}
        assert declared == set(listed), name


def test_a_command_imports_only_its_own_command_module(home: Path, workdir: Path) -> None:
    code = FAST_MAIN.replace(
        "'mcp') ", "'mcp', 'aimate_memory.cli.git_commands', 'aimate_memory.cli.memory_commands') "
    )
    # The typer app's own lazy loading is what is checked: without a daemon the fast path would answer `list` in
    # process and load no command module at all (cli/served.py), so it is switched off here.
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_NO_DAEMON": "1", "AIMATE_NO_FASTPATH": "1"}
    listed = run(code, "mem", "list", cwd=workdir, env=env)
    assert "no memory vault yet" in listed.stderr
    assert "aimate_memory.cli.memory_commands" in listed.stderr and "git_commands" not in listed.stderr
    helped = run(code, "mem", "--help", cwd=workdir, env=env)
    assert "timeline" in helped.stdout and "remember" in helped.stdout and "git_commands" in helped.stderr
