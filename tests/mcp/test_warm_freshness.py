"""A long-lived server keeps its index fresh from file events, not a walk per call — and a change made by
hand is still seen by the very next search (real files, real watchdog events, the SDK's stdio client). The
search also says which vaults answered (issue 30 §5, §6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import in_process, make_runner
from tests.watch.test_daemon_process import daemon  # noqa: F401  (the fixture)


def _titles(result: dict) -> list[str]:
    return [item["title"] for item in result["results"]]


def test_hand_edits_are_seen_by_the_next_search_and_the_vaults_are_named(
    spawn, initialized: Path, home: Path, isolated_git: None
) -> None:
    with in_process(home) as system:  # as `add` writes it (in_process): the test is about the server's reads
        system.add("选用 Redis 做会话缓存", "", category="decision")
    server = spawn()
    first = server.ok("memory_search", query="会话缓存")
    assert _titles(first) == ["选用 Redis 做会话缓存"]
    assert first["vaults"] == [{"scope": "global", "root": str((home / "memory").resolve())}]
    assert first["via"] == "in-process"

    note = home / "memory" / "long_term" / "knowledge" / "hand.md"
    note.write_text("# 手工笔记 hand-written note\n\n部署用蓝绿发布 blue-green deploys.\n", encoding="utf-8")
    assert _titles(server.ok("memory_search", query="蓝绿发布")) == ["手工笔记 hand-written note"]
    assert _titles(server.ok("memory_search", query="blue-green deploys")) == ["手工笔记 hand-written note"]

    note.write_text("# 手工笔记 hand-written note\n\n部署改用金丝雀发布 canary releases.\n", encoding="utf-8")
    assert _titles(server.ok("memory_search", query="金丝雀")) == ["手工笔记 hand-written note"]
    assert server.ok("memory_search", query="blue-green")["results"] == []

    moved = note.with_name("moved.md")
    note.rename(moved)  # an editor's atomic save looks like this too
    assert server.ok("memory_search", query="canary releases")["results"][0]["location"].endswith("/moved.md")
    moved.unlink()
    assert server.ok("memory_search", query="canary releases")["results"] == []


def test_the_vaults_of_a_project_are_named_project_first(spawn, home: Path, workdir: Path) -> None:
    import subprocess

    project = workdir / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    cli = make_runner(home, project, vectors=False)
    assert cli("mem", "init").code == 0
    assert cli("mem", "add", "Deploys use blue-green", "--scope", "project").code == 0
    found = spawn(cwd=project).ok("memory_search", query="blue-green")
    assert _titles(found) == ["Deploys use blue-green"]
    roots = [(vault["scope"], vault["root"]) for vault in found["vaults"]]
    assert roots == [
        ("project", str((project / ".aimate" / "memory").resolve())),
        ("global", str((home / "memory").resolve())),
    ]
    log = (home / "state" / "mcp.log").read_text(encoding="utf-8")
    assert f"serving the project vault {(project / '.aimate' / 'memory').resolve()}" in log
    assert f"serving the global vault {(home / 'memory').resolve()}" in log


@pytest.mark.slow
def test_through_a_running_daemon_the_answer_says_so_and_sees_hand_edits(
    isolated_git: None,
    daemon,  # noqa: F811  (the imported fixture)
    spawn,
    home: Path,
) -> None:
    """The same tool call, answered by a real daemon over its socket: `via` says so, the vaults are named,
    and a file saved by hand a moment ago is found (the daemon's read passes the same barrier)."""
    with in_process(home) as system:  # as `add` writes it (in_process): the test is about the daemon's answer
        system.add("选用 Redis 做会话缓存", "", category="decision")
    daemon()
    server = spawn(env={"AIMATE_NO_DAEMON": "0"})
    found = server.ok("memory_search", query="会话缓存")
    assert _titles(found) == ["选用 Redis 做会话缓存"]
    assert found["via"] == "daemon"
    assert found["vaults"] == [{"scope": "global", "root": str((home / "memory").resolve())}]
    note = home / "memory" / "long_term" / "knowledge" / "hand.md"
    note.write_text("# 手工笔记 hand-written note\n\nCanary releases 金丝雀发布.\n", encoding="utf-8")
    assert _titles(server.ok("memory_search", query="金丝雀发布")) == ["手工笔记 hand-written note"]
    assert _titles(server.ok("memory_search", query="canary releases")) == ["手工笔记 hand-written note"]
