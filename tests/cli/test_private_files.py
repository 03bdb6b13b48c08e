"""Files for one person (docs/reliability.md, "Security"): what the tool creates is 0600/0700, and `init`/`fix`
tighten what an older version left open, saying so. Before: folders 0755, memories, index.db, hooks.log and
mcp.log 0644 — readable by every local user."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path


def _open_to_others(root: Path) -> list[str]:
    """Files and folders under `root` (itself included) with any group or other permission."""
    found = []
    for folder, dirs, names in os.walk(root):
        for path in [Path(folder), *(Path(folder) / name for name in [*dirs, *names])]:
            info = path.lstat()
            if not stat.S_ISLNK(info.st_mode) and stat.S_IMODE(info.st_mode) & 0o077:
                found.append(f"{oct(stat.S_IMODE(info.st_mode))} {path.relative_to(root.parent)}")
    return sorted(set(found))


def _loosen(folder: Path) -> None:
    """`chmod -R go+rX folder`, as an older version left a home — on this home's own files: the packed lexicon
    a test home starts with is a hard link to the run's one copy (tests/conftest.py `kept_lexicon`), and
    loosening that loosened every other test's home until an `init` here tightened it again (a test on the other
    worker saw it 0644 once)."""
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.stat().st_nlink > 1:
            own = path.with_name(path.name + ".own")
            shutil.copy2(path, own)
            os.replace(own, path)
    subprocess.run(["chmod", "-R", "go+rX", str(folder)], check=True)


def test_everything_the_tool_creates_is_private(cli, home: Path) -> None:
    assert cli("mem", "init").code == 0
    assert cli("mem", "add", "选用 Redis 做缓存", "--body", "Cache sessions in Redis.").code == 0
    assert cli("mem", "search", "Redis").code == 0  # index.db
    assert cli("mem", "maintain").code == 0  # maintenance state
    assert (home / "index.db").exists()
    assert _open_to_others(home) == []


def test_init_and_fix_tighten_what_was_left_open(cli, home: Path) -> None:
    assert cli("mem", "init").code == 0
    assert cli("mem", "add", "选用 Redis 做缓存", "--body", "Cache sessions in Redis.").code == 0
    _loosen(home)
    assert _open_to_others(home)
    result = cli("mem", "init")
    assert result.code == 0, result.err
    assert "readable by you only (0600/0700)" in result.out
    assert _open_to_others(home) == []
    assert "readable by you only" not in cli("mem", "init").out  # nothing left to say

    _loosen(home / "memory" / "long_term")
    result = cli("mem", "fix")
    assert result.code == 0, result.err
    assert "readable by you only" in result.out and _open_to_others(home) == []


def test_a_project_vault_keeps_what_git_checked_out(cli, home: Path, tmp_path: Path) -> None:
    """The team's files are the repository's business; the tool's new memory and its index are private."""
    project = tmp_path / "work" / "proj"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True)
    assert cli("mem", "init", cwd=project).code == 0
    shared = project / ".aimate" / "memory" / "long_term" / "knowledge" / "team-decision.md"
    shared.write_text("# 团队决定\n\nThe team uses Redis.\n", encoding="utf-8")
    shared.chmod(0o644)
    added = cli("mem", "add", "项目：用 Redis 做缓存", "--body", "x", "--json", cwd=project)
    assert added.code == 0, added.err
    assert cli("mem", "search", "Redis", cwd=project).code == 0  # the project's index.db
    assert cli("mem", "init", cwd=project).code == 0
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644
    memory = project / ".aimate" / "memory" / added.json()["path"]
    assert stat.S_IMODE(memory.stat().st_mode) == 0o600
    assert stat.S_IMODE((project / ".aimate" / "index.db").stat().st_mode) == 0o600
