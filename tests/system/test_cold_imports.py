"""What a cold command loads (docs/design.md, "What a cold command loads"): the facade builds each collaborator on
first use, so a cold `aimate mem list` (no daemon) never imports numpy, capture's rule tables, the sessions or
the conflict check — and a `remember`, which needs them, does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from aimate_memory.system import MemorySystem
from tests.conftest import Result, built_seeded_home
from tests.zygote import run_aimate

# `cli.main` as `aimate` runs it, reporting at exit which of the heavy parts it imported.
HEAVY = (
    "numpy",
    "aimate_memory.capture.rules",
    "aimate_memory.sessions",
    "aimate_memory.system.conflicts",
    "aimate_memory.system.capture",
)
# Reported too, for the commands that must not load them (a note's `add`, a plain `search`).
ALSO = ("onnxruntime", "typer", "rich")
# What a command's start no longer loads (docs/design.md, "What a command no longer loads for nothing"): GitPython
# (git runs as one process per question), numpy's masked arrays (`np.unique`), and for a read `uuid` (it imports
# `platform`), `tempfile` and `importlib.resources` (both import `shutil` and the compression modules).
LIGHTER = ("git", "numpy.ma", "uuid", "tempfile", "importlib.resources")
REPORTED = HEAVY + ALSO + LIGHTER
REPORTING_MAIN = (
    "import atexit, sys\n"
    f"atexit.register(lambda: sys.stderr.write('IMPORTED ' + ' '.join(m for m in {REPORTED!r} if m in sys.modules)"
    " + '\\n'))\n"
    "from aimate_memory.cli import main; sys.argv[0] = 'aimate'; sys.exit(main())"
)


def cold(home: Path, workdir: Path, *args: str) -> tuple[str, set[str]]:
    """`aimate ARGS…` in a fresh process without a daemon: its output and the heavy modules it imported."""
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_NO_DAEMON": "1", "AIMATE_EMBEDDING__ENABLED": "false"}
    proc = subprocess.run(
        [sys.executable, "-c", REPORTING_MAIN, *args],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    reported = [line for line in proc.stderr.splitlines() if line.startswith("IMPORTED")]
    assert len(reported) == 1, proc.stderr
    return proc.stdout, set(reported[0].split()[1:])


def _two_memories(cli: Callable[..., Result]) -> None:
    for title in ("Use pnpm, not npm, in every repository", "部署脚本统一放在 scripts 目录"):
        added = cli("mem", "add", title)
        assert added.code == 0, added.err


@pytest.fixture
def vault(home: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A home with one English and one Chinese memory; the English one's id. Added through the real CLI once per
    run and copied (`built_seeded_home`): the twelve tests that start from it each ran `init` and two `add`s first
    (~0.8 s of wall each at load ~1, 2026-11-29), and every one of them is about the cold command it runs
    next; `init` and `add` are tested in tests/cli."""
    shutil.copytree(built_seeded_home(tmp_path_factory, "cold-imports", _two_memories), home, symlinks=True)
    english = next(
        file for file in (home / "memory").rglob("*.md") if "title: Use pnpm, not npm" in file.read_text("utf-8")
    )
    [memory_id] = re.findall(r"^id: ([0-9a-f]{8})-", english.read_text("utf-8"), flags=re.MULTILINE)
    return memory_id


@pytest.mark.parametrize("command", [["list"], ["stale"], ["review"], ["timeline"]])
def test_a_cold_read_loads_no_rules_sessions_or_conflict_check(
    vault: str, home: Path, workdir: Path, command: list[str]
) -> None:
    out, imported = cold(home, workdir, "mem", *command)
    assert not imported & {*HEAVY, *ALSO, "git"}, f"`aimate mem {' '.join(command)}` imported {sorted(imported)}"
    if command == ["list"]:
        assert "pnpm" in out and "部署脚本" in out
        assert not imported & set(LIGHTER), imported


def test_a_cold_init_runs_git_without_gitpython_typer_or_rich(home: Path, workdir: Path, tmp_path: Path) -> None:
    """`init` is answered without typer or rich (cli/served.py) and makes the vault a repository through `git`
    itself (git/repo.py `find_repo`): those imports were half of its CPU (issue 38). It prints what the typer
    app prints, and the commit is there, so the check can fail."""
    out, imported = cold(home, workdir, "mem", "init")
    assert not imported & {"git", "typer", "rich"}, imported
    log = subprocess.run(["git", "log", "--format=%s"], cwd=home / "memory", capture_output=True, text=True)
    assert "memory: initialize the vault repository" in log.stdout
    other = tmp_path / "typer-home"
    # The typer app's answer to compare with, forked from the zygote (tests/zygote.py): its imports are not
    # what this test is about (`AIMATE_NO_FASTPATH=1` sends every command to the typer app, tests/cli/test_fastpath.py).
    typer_app = run_aimate(
        ["mem", "init"],
        cwd=workdir,
        env={**os.environ, "AIMATE_HOME": str(other), "AIMATE_NO_FASTPATH": "1", "AIMATE_EMBEDDING__ENABLED": "false"},
        input=None,
        timeout=120,
    )
    assert typer_app.returncode == 0, typer_app.stderr
    assert out.replace(str(home), "HOME") == typer_app.stdout.replace(str(other), "HOME")
    assert out.startswith("global vault: ")


def test_a_cold_show_loads_none_of_them_either(vault: str, home: Path, workdir: Path) -> None:
    out, imported = cold(home, workdir, "mem", "show", vault)
    assert "pnpm" in out
    assert not imported & {*HEAVY, *ALSO, *LIGHTER}, imported


@pytest.mark.parametrize("text", ["Redis keeps the session cache", "会话缓存放在 Redis 里"])
def test_a_cold_add_of_a_note_loads_no_conflict_check_models_or_git(
    vault: str, home: Path, workdir: Path, text: str
) -> None:
    """Only a core memory or decision is checked for conflicts (vault/layout.py `takes_sides`): a note is written
    without numpy, the models or the conflict check — 0.2 s of a cold `add` (issue 38)."""
    out, imported = cold(home, workdir, "mem", "add", text, "--body", "TTL support / 支持过期")
    assert out.startswith("added ")
    assert not imported & {"numpy", "onnxruntime", "aimate_memory.system.conflicts", "git"}, imported


def test_a_cold_add_of_a_rule_does_check_conflicts(vault: str, home: Path, workdir: Path) -> None:
    """The check above can fail: a core rule is checked, and that loads the conflict check."""
    out, imported = cold(home, workdir, "mem", "add", "始终用 pnpm 安装依赖", "--layer", "core", "--category", "rule")
    assert out.startswith("added ")
    assert {"numpy", "aimate_memory.system.conflicts"} <= imported


@pytest.mark.parametrize("query", ["pnpm", "部署脚本"])
def test_a_cold_search_loads_no_typer_rich_sessions_or_rules(vault: str, home: Path, workdir: Path, query: str) -> None:
    """A plain search is served without typer or rich (cli/served.py), and without the sessions package and
    capture's rules when no session is among its hits (system/search.py). It does load numpy: ranking is
    array work, also by keywords alone."""
    out, imported = cold(home, workdir, "mem", "search", query)
    assert query in out
    assert "numpy" in imported  # the report sees what was loaded
    assert not imported & {"typer", "rich", "aimate_memory.sessions", "aimate_memory.capture.rules"}, imported
    assert not imported & {"numpy.ma", "uuid", "git"}, imported


def test_a_cold_context_reads_the_sessions_without_building_capture(cli, vault: str, home: Path, workdir: Path) -> None:
    """A context (what session-start prints) reads the running session and past episodes: the sessions package,
    not capture — its kind model, numpy, rule tables and conflict check load when a session ends (issue 38)."""
    for rule in ("Always use pnpm", "提交说明始终用中文"):
        assert cli("mem", "add", rule, "--layer", "core", "--category", "rule").code == 0
    out, imported = cold(home, workdir, "mem", "context")
    assert "Always use pnpm" in out and "提交说明始终用中文" in out
    assert "aimate_memory.sessions" in imported  # the report sees what was loaded
    assert not imported & {"numpy", "aimate_memory.capture.rules", "aimate_memory.system.capture"}, imported
    assert not imported & {"aimate_memory.system.conflicts", "typer", "rich"}, imported


def test_a_cold_remember_loads_what_it_needs(vault: str, home: Path, workdir: Path) -> None:
    """The check above can fail: the command that captures does import the rules and the conflict check."""
    _, imported = cold(home, workdir, "mem", "remember", "我们决定缓存改用 Redis 集群")
    assert {"numpy", "aimate_memory.capture.rules", "aimate_memory.system.conflicts"} <= imported


def test_each_part_is_built_once_even_by_threads_asking_at_once(home: Path, workdir: Path) -> None:
    with MemorySystem.open(cwd=workdir) as system:
        assert "capture" not in vars(system)  # not built by opening
        seen = []
        threads = [threading.Thread(target=lambda: seen.append(system.capture)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(seen) == 8 and all(part is system.capture for part in seen)
        assert system.git is system.git and system.conflicts is system.conflicts
