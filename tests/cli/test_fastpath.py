"""The commands a running daemon answers, served without typer or rich (`cli.served`): which command lines the
fast path takes, that each prints byte for byte what the typer app prints (`AIMATE_NO_FASTPATH=1`) in
Chinese and English, that it imports neither typer nor rich nor the facade, and that without a daemon the
fast path answers them in process — still byte for byte the typer app's answer, still without typer or rich."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aimate_memory.cli.fast import fast_command, parse
from aimate_memory.cli.served import parse_served, served_name
from tests.cli.test_fast_entry import vault  # noqa: F401  (the fixture)
from tests.watch.test_daemon_process import daemon  # noqa: F401  (the fixture)
from tests.zygote import run_aimate

PYTHON = str(Path(sys.executable))
# `cli.main` as `aimate` runs it, reporting afterwards which heavy modules it imported.
WATCHED = ("typer", "rich", "click", "aimate_memory.cli.app", "aimate_memory.system.facade", "numpy")
REPORTING_MAIN = (
    "import atexit, sys\n"
    "atexit.register(lambda: sys.stderr.write('IMPORTED ' + ' '.join(sorted(m for m in "
    f"{WATCHED!r} if m in sys.modules)) + '\\n'))\n"
    "from aimate_memory.cli import main; sys.argv[0] = 'aimate'; main()"
)


@pytest.mark.parametrize(
    ("argv", "fields"),
    [
        (["list"], {"as_json": False, "no_refresh": False, "limit": None, "all": False}),
        (["list", "--json", "-n", "3"], {"as_json": True, "no_refresh": False, "limit": 3, "all": False}),
        (["list", "--limit=3", "--no-sync"], {"as_json": False, "no_refresh": True, "limit": 3, "all": False}),
        (["list", "--all"], {"as_json": False, "no_refresh": False, "limit": None, "all": True}),
        (["show", "ab12", "-d"], {"as_json": False, "no_refresh": False, "details": True, "argument": "ab12"}),
        (["context"], {"as_json": False, "budget": None, "argument": None}),
        (["context", "会话缓存", "--budget", "800"], {"as_json": False, "budget": 800, "argument": "会话缓存"}),
        (
            ["timeline", "--by", "session", "-n", "5"],
            {"as_json": False, "since": None, "by": "session", "limit": 5, "scope": None},
        ),
        (
            ["search", "会话缓存", "Redis", "-n", "3", "--explain"],
            {"as_json": False, "no_refresh": False, "explain": True, "limit": 3, "argument": "会话缓存 Redis"},
        ),
        (
            ["recall", "session", "--json", "cache", "--no-sync"],
            {"as_json": True, "no_refresh": True, "explain": False, "limit": 10, "argument": "session cache"},
        ),
        (
            ["add", "部署流程", "-b", "只在冒烟测试后发布", "-t", "ops,发布", "-i", "4", "--ttl", "0.5", "--json"],
            {
                "as_json": True,
                "allow_secret": False,
                "body": "只在冒烟测试后发布",
                "file": None,
                "layer": "long_term",
                "category": None,
                "tags": "ops,发布",
                "importance": 4,
                "ttl": 0.5,
                "scope": None,
                "thread": None,
                "argument": "部署流程",
            },
        ),
        (["session", "start", "-t", "部署流程", "--replace"], {"as_json": False, "replace": True, "title": "部署流程"}),
        (
            ["session", "append", "-r", "user", "我们用 pnpm", "--tokens", "0"],
            {"as_json": False, "role": "user", "tokens": 0, "argument": "我们用 pnpm"},
        ),
        (["session", "show", "--json"], {"as_json": True, "argument": None}),
        (["session", "end", "ab12"], {"as_json": False, "argument": "ab12"}),
        (["session", "list"], {"as_json": False}),
        (["init"], {"local": False}),
        (["init", "--local"], {"local": True}),
        (
            ["remember", "我们决定用 pnpm", "-k", "decision", "--confidence", "0.9"],
            {
                "as_json": False,
                "force": False,
                "keep_both": False,
                "kind": "decision",
                "confidence": 0.9,
                "scope": None,
                "source": "cli",
                "thread": None,
                "replaces": None,
                "argument": "我们决定用 pnpm",
            },
        ),
    ],
)
def test_served_shapes(argv: list[str], fields: dict[str, object]) -> None:
    name = served_name(argv)
    assert parse_served(name, argv[len(name.split()) :]) == fields
    assert fast_command(["mem", "--global", *argv]) is not None


@pytest.mark.parametrize(
    "argv",
    [
        ["list", "--layer", "core"],  # a filter: the typer app parses it
        ["list", "-n", "0"],  # below its minimum: typer's usage error
        ["list", "-n"],
        ["list", "--json", "--json"],
        ["list", "extra"],
        ["list", "--help"],
        ["show"],
        ["show", "a", "b"],
        ["show", "--", "-a"],
        ["context", "redis", "--no-refresh"],  # in process by design
        ["timeline", "--by", "week"],
        ["timeline", "-n", "-5"],
        ["review", "--accept-all"],  # a write the typer app makes
        ["remember", "x", "--confidence", "1.5"],
        ["remember", "x", "--confidence", "nan"],
        ["remember"],
        ["search"],
        ["add"],
        ["add", "a", "b"],  # a second title word: typer's usage error
        ["add", "a", "-i", "9"],  # outside 1..5
        ["add", "a", "--ttl", "inf"],
        ["add", "a", "--body", "-x"],  # a value that looks like an option: the typer app decides
        ["search", "redis", "--layer", "core"],  # a filter: the typer app parses it
        ["search", "redis", "-n", "0"],
        ["search", "--", "-redis"],  # a query starting with "-": the typer app says how to write it
        ["recall", "-redis"],
        ["init", "--local", "--local"],
        ["init", "now"],
        ["init", "--help"],
        ["session"],  # the group's help
        ["session", "append", "turn"],  # no --role: typer's usage error
        ["session", "append", "turn", "-r", "user", "--tokens", "-1"],
        ["session", "start", "--title"],
        ["session", "show", "a", "b"],
        ["session", "stop"],
    ],
)
def test_everything_else_goes_to_the_typer_app(argv: list[str]) -> None:
    assert parse(["mem", *argv]) is None
    assert fast_command(["mem", *argv]) is None


def test_the_switch_sends_everything_to_the_typer_app(monkeypatch: pytest.MonkeyPatch) -> None:
    assert fast_command(["mem", "list"]) is not None
    monkeypatch.setenv("AIMATE_NO_FASTPATH", "1")
    assert fast_command(["mem", "list"]) is None and fast_command(["--version"]) is None


def command_env(home: Path, env: dict[str, str] | None) -> dict[str, str]:
    """The test process's environment for a command in `home`, keyword-only, a daemon allowed unless `env` says
    `AIMATE_NO_DAEMON` (the test process's own setting of it is dropped first, not `env`'s: it used to be
    dropped after, so the "without the daemon" steps of a test with a daemon running were the daemon's)."""
    full = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_EMBEDDING__ENABLED": "false"}
    full.pop("AIMATE_NO_DAEMON", None)
    return {**full, **(env or {})}


def run(*args: str, cwd: Path, home: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = command_env(home, env)
    return subprocess.run(
        [PYTHON, "-c", REPORTING_MAIN, "mem", *args],
        cwd=cwd,
        env=full,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def forked(*args: str, cwd: Path, home: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`aimate mem ARGS…` as `run` starts it (the same environment, stdin /dev/null), forked from the worker's
    zygote (tests/zygote.py): for the typer app's reference answers, for steps that only set a test up, and for
    calls whose import report no assertion reads. A fork prints and exits as the exec'd script does
    (tests/cli/test_zygote.py); what it skips is the interpreter's start and the preloaded imports, ~0.2 s of
    CPU a call."""
    return run_aimate(["mem", *args], cwd=cwd, env=command_env(home, env), input=None, timeout=120)


NO_DAEMON = {"AIMATE_NO_DAEMON": "1"}
TYPER_APP = {"typer", "rich", "click", "aimate_memory.cli.app"}


def both_ways(
    *args: str, cwd: Path, home: Path, env: dict[str, str] | None = None, reference_exec: bool = False
) -> str:
    """The command through the fast path and through the typer app: the same exit code, stdout and stderr
    (but for the import report). Through the daemon the fast one imported no typer, rich or facade; without
    one (`env` NO_DAEMON) it opened the facade here, and still imported no typer or rich. Its stdout.

    The fast one is exec'd: what a fresh interpreter imports on the way is what it is about. The typer app's
    reference is forked from the zygote (`forked`), the same answer for ~0.2 s of CPU less a call; with
    `reference_exec` (one call per test) it is exec'd too and shown to be the typer app by what it imported —
    `AIMATE_NO_FASTPATH=1` sends every command there before anything else is asked (`cli.fast.fast_command`,
    test_the_switch_sends_everything_to_the_typer_app)."""
    fast = run(*args, cwd=cwd, home=home, env=env)
    switched = {**(env or {}), "AIMATE_NO_FASTPATH": "1"}
    if reference_exec:
        typer_app = run(*args, cwd=cwd, home=home, env=switched)
        typer_err, typer_imported = typer_app.stderr.rsplit("IMPORTED ", 1)
        assert "typer" in typer_imported and "rich" in typer_imported  # the reference really was the typer app
    else:
        typer_app = forked(*args, cwd=cwd, home=home, env=switched)
        typer_err = typer_app.stderr
    fast_err, fast_imported = fast.stderr.rsplit("IMPORTED ", 1)
    fast_out, typer_out = untimed(fast.stdout), untimed(typer_app.stdout)
    assert (fast.returncode, fast_out, fast_err) == (typer_app.returncode, typer_out, typer_err), args
    if (env or {}).get("AIMATE_NO_DAEMON") == "1":
        assert not TYPER_APP & set(fast_imported.split()), (args, fast_imported)  # in process, typer-free
        assert "aimate_memory.system.facade" in fast_imported or fast.returncode  # really answered here
    else:
        assert fast_imported == "\n", (args, fast_imported)  # answered by the daemon: nothing heavy here
    return fast.stdout


def untimed(text: str) -> str:
    """`text` with the milliseconds a search says it waited left out: the one part two runs never share. The
    search's own share is named only when the rest was most of the wait (cli/answers.py `took`), which one of two
    runs can cross and the other not (a loaded CI machine did), so that clause goes too."""
    return re.sub(r"\d+ ms", "N ms", re.sub(r" in all \(the search itself \d+ ms\)", "", text))


@pytest.fixture
def project(vault: Path) -> Path:  # noqa: F811  (the imported fixture)
    """test_fast_entry's project (memories in Chinese and English), one of them edited by hand since."""
    edited = next(file for file in (vault / ".aimate" / "memory").rglob("*.md") if "延迟低" in file.read_text("utf-8"))
    edited.write_text(edited.read_text("utf-8").replace("延迟低", "延迟很低"), "utf-8")
    return vault


@pytest.mark.slow
def test_each_served_command_prints_what_the_typer_app_prints(daemon, cli, home: Path, project: Path) -> None:  # noqa: F811
    daemon()
    listed = both_ways("list", "--json", cwd=project, home=home, reference_exec=True)
    ids = {title: memory_id[:8] for title, memory_id in _titles_and_ids(listed)}
    assert {"Package manager", "提交说明", "We chose Redis as the session cache"} <= set(ids)
    table = both_ways("list", cwd=project, home=home)
    assert "提交说明" in table and "We chose Redis as the session cache" in table
    assert "提交说明" in both_ways("show", ids["提交说明"], cwd=project, home=home)
    redis = ids["We chose Redis as the session cache"]
    assert "We chose Redis" in both_ways("show", redis, "--json", cwd=project, home=home)
    assert "history" in both_ways("show", ids["提交说明"], "--details", cwd=project, home=home)
    both_ways("show", "nosuchid", cwd=project, home=home)  # the error and its exit code
    assert "延迟很低" in both_ways("review", cwd=project, home=home)
    assert "延迟很低" in both_ways("review", "--json", cwd=project, home=home)
    both_ways("stale", cwd=project, home=home)
    assert "Package manager" in both_ways("timeline", cwd=project, home=home)
    assert "We chose Redis as the session cache" in both_ways("search", "session", "cache", cwd=project, home=home)
    assert "Redis" in both_ways("recall", "会话缓存", "-n", "3", cwd=project, home=home)
    # Without the daemon, across languages by the bridge's lexicon (packed, or read kept: text/bridge.py and
    # tests/text/test_bridge_packed.py): the same answers as the daemon's, in English and Chinese.
    # No import report is read here: forked (the lexicon is not preloaded in the zygote, each child reads it).
    for query in (("session", "cache"), ("会话缓存",), ("which session cache? Redis",)):
        served = untimed(forked("search", *query, cwd=project, home=home).stdout)
        assert "Redis" in served
        for _ in range(2):
            assert untimed(forked("search", *query, cwd=project, home=home, env=NO_DAEMON).stdout) == served, query
    # The four adds land within one second, so which three are newest is a tie: the limit is asked wide enough
    # for all of them (the limit's own note is covered by tests/git/test_timeline.py).
    by_session = both_ways("timeline", "--by", "session", "-n", "20", cwd=project, home=home)
    assert "提交说明" in by_session and "We chose Redis as the session cache" in by_session
    assert "Redis" in both_ways("context", "which session cache? Redis", cwd=project, home=home)
    # Markdown: --json carries each item's score, which decays with the clock between two runs.
    assert "始终用中文写提交说明" in both_ways("context", "会话缓存", cwd=project, home=home)
    for sentence in ("We decided to deploy on Fridays only after the smoke tests", "我们决定周五只在冒烟测试后发布"):
        first = run("remember", sentence, cwd=project, home=home)
        assert first.returncode == 0 and first.stderr.endswith("IMPORTED \n"), first.stderr  # the daemon wrote it
        assert sentence[:12] in both_ways("list", cwd=project, home=home)
        both_ways("remember", sentence, cwd=project, home=home)  # known now: said the same way by both
    both_ways("remember", sentence, "--json", cwd=project, home=home)
    # What contradicts the project's core rule, in English and Chinese: the conflict check cold (its table's slots
    # compiled on first use, capture/conflict.py) holds it back for the same memory, for the same reason, as the
    # daemon's warm one. The daemon's pending copy is rejected (by the daemon) before a cold process is asked.
    for sentence in ("Always use npm to install packages here", "我们决定包管理器改用 npm，不再用 pnpm"):
        served = _conflict_served_and_cold(sentence, project, home)
        assert [conflict["id"][:8] for conflict in served["conflicts"]] == [ids["Package manager"]]
    # What contradicts a decision the daemon itself wrote after its conflict pool was read (the pool kept across
    # that write, the files that did not change not read again: system/conflicts.py): what a cold process finds.
    poetry = ("remember", "We decided to use Poetry to manage the Python dependencies", "--scope", "project", "--json")
    written = json.loads(forked(*poetry, cwd=project, home=home).stdout)
    assert written["action"] == "written", written
    for sentence in (
        "We decided to use uv instead of Poetry for the Python dependencies",
        "我们决定 Python 依赖改用 uv 管理，不再用 Poetry",
    ):
        served = _conflict_served_and_cold(sentence, project, home)
        assert [conflict["id"] for conflict in served["conflicts"]] == [written["memory"]["id"]]


def _conflict_served_and_cold(sentence: str, project: Path, home: Path) -> dict[str, Any]:
    """`remember` of a contradicting sentence through the daemon, its pending copy rejected, then in a cold
    process: both hold it back as a conflict with the same memories for the same reason. The daemon's answer.
    Forked (no import report is read): the zygote preloads neither the conflict check nor capture's rules, so
    the child builds them as a fresh process does (tests/zygote.py `PRELOAD`)."""
    said = ("remember", sentence, "--scope", "project", "--json")
    served: dict[str, Any] = json.loads(forked(*said, cwd=project, home=home).stdout)
    assert forked("review", "--reject", served["memory"]["id"][:8], cwd=project, home=home).returncode == 0
    cold = json.loads(forked(*said, cwd=project, home=home, env=NO_DAEMON).stdout)
    assert cold["action"] == served["action"] == "conflict", (cold, served)
    assert cold["conflicts"] == served["conflicts"] and cold["reason"] == served["reason"]
    return served


def _titles_and_ids(listed_json: str) -> list[tuple[str, str]]:
    return [(memory["title"], memory["id"]) for memory in json.loads(listed_json)]


@pytest.mark.slow
def test_without_a_daemon_each_served_command_answers_here_as_the_typer_app_does(home: Path, project: Path) -> None:
    listed = both_ways("list", "--json", cwd=project, home=home, env=NO_DAEMON, reference_exec=True)
    ids = {title: memory_id[:8] for title, memory_id in _titles_and_ids(listed)}
    assert "提交说明" in both_ways("list", cwd=project, home=home, env=NO_DAEMON)
    assert "始终用中文写提交说明" in both_ways("show", ids["提交说明"], cwd=project, home=home, env=NO_DAEMON)
    # A table is cut at `cli.list_page` and says so; `--all`, `-n` and JSON are not cut (docs/agents.md, "list").
    paged = {**NO_DAEMON, "AIMATE_CLI__LIST_PAGE": "2"}
    table = both_ways("list", cwd=project, home=home, env=paged)
    assert f"2 of {len(ids)} memories, the newest (`-n N` or `--all` for more)" in table
    assert all(title in both_ways("list", "--all", cwd=project, home=home, env=paged) for title in ids)
    assert len(json.loads(both_ways("list", "--json", cwd=project, home=home, env=paged))) == len(ids)
    assert "for more" not in both_ways("list", "-n", "2", cwd=project, home=home, env=paged)
    missing = both_ways("show", "nosuchid", cwd=project, home=home, env=NO_DAEMON)  # the error, its exit code
    assert missing == ""
    assert "延迟很低" in both_ways("review", cwd=project, home=home, env=NO_DAEMON)
    assert "Package manager" in both_ways("timeline", cwd=project, home=home, env=NO_DAEMON)
    searched = both_ways("search", "session", "cache", "--explain", cwd=project, home=home, env=NO_DAEMON)
    assert "We chose Redis as the session cache" in searched and "keyword" in searched
    assert "Redis" in both_ways("search", "会话缓存", cwd=project, home=home, env=NO_DAEMON)
    assert both_ways("search", "nothing like it", cwd=project, home=home, env=NO_DAEMON) == "no memory about that\n"
    assert "始终用中文写提交说明" in both_ways("context", "会话缓存", cwd=project, home=home, env=NO_DAEMON)
    for sentence in ("We decided to deploy on Fridays only after the smoke tests", "我们决定周五只在冒烟测试后发布"):
        first = run("remember", sentence, cwd=project, home=home, env=NO_DAEMON)
        assert first.returncode == 0 and "remembered" in first.stdout, first.stderr
        assert not TYPER_APP & set(first.stderr.rsplit("IMPORTED ", 1)[1].split())
        # Written here and indexed before it returned: found without a refresh, by keywords.
        found = forked("list", "--no-refresh", cwd=project, home=home, env=NO_DAEMON)
        assert sentence[:12] in found.stdout
        assert "already remembered" in both_ways("remember", sentence, cwd=project, home=home, env=NO_DAEMON)
    both_ways("remember", sentence, "--json", cwd=project, home=home, env=NO_DAEMON)


ID = re.compile(r"\b[0-9a-f]{8}\b")


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (("Deploy on Fridays", "--body", "只在冒烟测试后发布", "-t", "ops,发布", "-i", "4"), None),
        (("始终用 pnpm 安装依赖", "--layer", "core", "--category", "rule", "-b", "Never use npm here"), None),
        (("会话缓存", "--json"), "Redis, TTL 一小时"),
    ],
)
def test_add_is_answered_here_as_the_typer_app_answers_it(
    home: Path, project: Path, args: tuple[str, ...], stdin: str | None
) -> None:
    """`add` is served in process without typer or rich (cli/served.py `HERE`): the same output, warnings and
    exit code as the typer command — written, archived again, then written by the typer app."""
    answers = []
    for switch in ({}, {"AIMATE_NO_FASTPATH": "1"}):
        env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_EMBEDDING__ENABLED": "false", **NO_DAEMON, **switch}
        added = subprocess.run(
            [PYTHON, "-c", REPORTING_MAIN, "mem", "add", *args],
            cwd=project,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert added.returncode == 0, added.stderr
        err, imported = added.stderr.rsplit("IMPORTED ", 1)
        assert bool(TYPER_APP & set(imported.split())) == bool(switch), imported
        new_id = json.loads(added.stdout)["id"] if "--json" in args else added.stdout.split()[1]
        # Archived again by a forked `rm` (a step between the two answers, not what is compared).
        removed = run_aimate(["mem", "rm", new_id], cwd=project, env=env, input=None, timeout=120)
        assert removed.returncode == 0, removed.stderr
        answers.append((ID.sub("ID", added.stdout), ID.sub("ID", err)))
    if "--json" in args:
        fast, typer_app = (json.loads(out) for out, _ in answers)
        assert fast.pop("id") != typer_app.pop("id")
        changing = ("created", "updated", "created_at", "updated_at")
        assert {k: v for k, v in fast.items() if k not in changing} == {
            k: v for k, v in typer_app.items() if k not in changing
        }
        assert fast["title"] == "会话缓存"
    else:
        assert answers[0] == answers[1]
        assert answers[0][0].startswith("added ID  project:")


# `session …` in both languages, each step through the fast path in one home and through the typer app in a copy:
# errors (a second start, no active session) included.
SESSION_STEPS: tuple[tuple[tuple[str, ...], str | None], ...] = (
    (("session", "start", "-t", "部署流程"), None),
    (("session", "start"), None),
    (("session", "append", "我们决定用 pnpm 部署", "--role", "user"), None),
    (("session", "append", "-r", "assistant", "--tokens", "7"), "The deploy scripts live in scripts/"),
    (("session", "show"), None),
    (("session", "show", "--json"), None),
    (("session", "list", "--json"), None),
    (("session", "end"), None),
    (("session", "end"), None),
    (("session", "list"), None),
)
# What differs between two homes: ids, the homes' paths, and the clock.
CHANGING = re.compile(r"\b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b|\b[0-9a-f]{8}\b|\d{4}-\d\d-\d\d[T ][\d:.+]+")


def test_the_session_commands_are_answered_here_as_the_typer_app_answers_them(
    initialized: Path, tmp_path: Path
) -> None:
    """`session start|append|show|end|list` are served in process without typer or rich (cli/served.py `HERE`;
    typer and rich were 40% of their CPU, issue 38): the same output, errors and exit codes as the typer commands,
    in Chinese and English."""
    typer_home = tmp_path / "typer-home"
    shutil.copytree(initialized, typer_home, symlinks=True)
    workdir = tmp_path / "work"
    workdir.mkdir()
    for step, (args, stdin) in enumerate(SESSION_STEPS):
        answers = []
        for home, switch in ((initialized, {}), (typer_home, {"AIMATE_NO_FASTPATH": "1"})):
            env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_EMBEDDING__ENABLED": "false", **NO_DAEMON, **switch}
            if switch and step:  # the typer app's reference, forked (`both_ways`); exec'd for the first step
                done = run_aimate(["mem", *args], cwd=workdir, env=env, input=stdin or "", timeout=120)
                err = done.stderr
            else:
                done = subprocess.run(
                    [PYTHON, "-c", REPORTING_MAIN, "mem", *args],
                    cwd=workdir,
                    env=env,
                    input=stdin or "",
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
                err, imported = done.stderr.rsplit("IMPORTED ", 1)
                assert bool(TYPER_APP & set(imported.split())) == bool(switch), (args, imported)
            shown = (done.stdout + err).replace(str(home), "HOME")
            answers.append((done.returncode, CHANGING.sub("X", shown)))
        assert answers[0] == answers[1], args
        if args[1] == "show" and "--json" not in args:
            assert "我们决定用 pnpm 部署" in answers[0][1] and "The deploy scripts live in scripts/" in answers[0][1]
    assert answers[0] == (0, "X  ended   X     2 turns  部署流程\n1 session(s)\n")


def test_a_served_command_imports_its_printer_while_the_daemon_works(tmp_path: Path) -> None:
    """`meanwhile` (what prints the answer, `cli.served.import_printers`) runs once the request is on the
    daemon's socket and before its reply is read: the command's imports run beside the daemon's work, and the
    reply is the daemon's, whole. A real Unix socket, answered by a listener of this user."""
    import socket
    import threading

    from aimate_memory.watch.private_socket import ensure_socket_folder
    from aimate_memory.watch.transport import daemon_request

    home = tmp_path / "home"
    path = ensure_socket_folder(home)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    texts = ("We decided to use Redis", "我们决定用 Redis")
    received, go_on = threading.Event(), threading.Event()

    def serve() -> None:
        for _ in texts:
            conn, _ = listener.accept()
            with conn:
                request = conn.makefile("rb").readline()
                received.set()
                go_on.wait(10)
                conn.sendall(json.dumps({"ok": True, "echo": json.loads(request)["text"]}).encode() + b"\n")

    threading.Thread(target=serve, daemon=True).start()
    seen: list[bool] = []

    def meanwhile() -> None:
        seen.append(received.wait(10))  # the daemon has the request while this runs
        received.clear()
        go_on.set()

    try:
        for text in texts:
            go_on.clear()
            reply = daemon_request(home, {"op": "remember", "text": text}, timeout=10, meanwhile=meanwhile)
            assert reply == {"ok": True, "echo": text}
        assert seen == [True, True]
    finally:
        listener.close()
