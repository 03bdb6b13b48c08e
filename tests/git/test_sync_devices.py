"""Two devices and a bare remote on disk, each device with its own git defaults (`init.defaultBranch` main,
master or unset): sync converges on one branch, merges by rule, and refuses what would lose commits."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from aimate_memory.git.sync_plan import SyncRefusedError
from aimate_memory.system import MemorySystem
from aimate_memory.vault.layout import Layer
from tests.conftest import isolate_git
from tests.git.conftest import git, make_system

DEFAULTS = {"main": "[init]\n\tdefaultBranch = main\n", "master": "[init]\n\tdefaultBranch = master\n", "unset": ""}
TITLE = "Lint 规则 / lint rules"


@dataclass
class Device:
    name: str
    system: MemorySystem
    gitconfig: Path

    @property
    def vault(self) -> Path:
        return self.system.global_vault.root

    @contextmanager
    def active(self) -> Iterator[None]:
        """This device's git defaults for what runs inside (git is a subprocess: it reads the environment)."""
        before = os.environ.get("GIT_CONFIG_GLOBAL")
        os.environ["GIT_CONFIG_GLOBAL"] = str(self.gitconfig)
        try:
            yield
        finally:
            if before is not None:
                os.environ["GIT_CONFIG_GLOBAL"] = before

    def sync(self, join: bool = False):
        with self.active():
            return self.system.git.sync_remote(join=join)


@pytest.fixture
def device(tmp_path: Path, new_system):
    def make(name: str, default: str, remote: Path) -> Device:
        config = tmp_path / f"gitconfig-{name}"
        config.write_text("[core]\n\tquotepath = false\n" + DEFAULTS[default], encoding="utf-8")
        made = Device(name, new_system(tmp_path / f"home-{name}", remote=str(remote)), config)
        with made.active():
            made.system.init()  # what a person does first on every device
        return made

    return make


def bare_remote(tmp_path: Path, run_git, creator: Device) -> Path:
    """The remote as the first person made it, with their git defaults (HEAD may name an unborn master)."""
    path = tmp_path / "remote.git"
    with creator.active():
        run_git(tmp_path, "init", "-q", "--bare", str(path))
    return path


def branches(run_git, remote: Path) -> list[str]:
    return sorted(line.split("refs/heads/")[1] for line in run_git(remote, "ls-remote", "--heads", ".").splitlines())


def head(run_git, device: Device) -> str:
    return run_git(device.vault, "rev-parse", "HEAD").strip()


def ids(device: Device) -> set[str]:
    return {memory.id for memory in device.system.memories.scan().memories}


def tags_of(device: Device, memory_id: str) -> set[str]:
    return set(device.system.get(memory_id).tags)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("default_a", "default_b"),
    [("main", "master"), ("master", "main"), ("unset", "master"), ("master", "unset"), ("unset", "unset")],
)
@pytest.mark.parametrize("first", ["a", "b"])
def test_two_devices_converge_on_one_branch(tmp_path, run_git, device, default_a, default_b, first) -> None:
    remote = tmp_path / "remote.git"
    a, b = device("a", default_a, remote), device("b", default_b, remote)
    leader, follower = (a, b) if first == "a" else (b, a)
    bare_remote(tmp_path, run_git, leader)
    assert "pushed" in leader.sync().actions
    joined = follower.sync()
    assert joined.branch == "main" and "adopted the remote's branch" in joined.actions
    memory = leader.system.add(TITLE, "用 ruff 检查 / check with ruff", layer=Layer.LONG_TERM, tags=["lint"])
    leader.sync()
    follower.sync()
    # the repro: `set ID tags=lint,python` on one device, `tags=lint,ci` on the other; sync A, B, A
    a.system.set_fields(memory.id, {"tags": "lint,python"})
    b.system.set_fields(memory.id, {"tags": "lint,ci"})
    a.sync()
    result = b.sync()
    assert "merged" in result.actions and result.conflicts == []
    a.sync()
    assert tags_of(a, memory.id) == tags_of(b, memory.id) == {"lint", "python", "ci"}
    assert head(run_git, a) == head(run_git, b)
    assert branches(run_git, remote) == ["main"]
    for one in (a, b):
        assert run_git(one.vault, "branch", "--show-current").strip() == "main"
        assert "aimate_memory.git.merge" in run_git(one.vault, "config", "merge.aimate-memory.driver")


@pytest.fixture(scope="module")
def pair_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder `pair` copies, made once per module as `device` makes each device: A (git default master)
    made the remote and pushed; B (default unset) joined it. Only read. Five tests each made it again: two
    `init`s, a bare remote and two syncs (~40 git processes, ~0.8 s a test at load 8, 2026-11-29)."""
    folder = tmp_path_factory.mktemp("sync-pair")
    remote = folder / "remote.git"
    with pytest.MonkeyPatch.context() as patch:
        isolate_git(patch, folder)  # what `isolated_git` sets for a test
        made = []
        for name, default in (("a", "master"), ("b", "unset")):
            config = folder / f"gitconfig-{name}"
            config.write_text("[core]\n\tquotepath = false\n" + DEFAULTS[default], encoding="utf-8")
            one = Device(name, make_system(folder / f"home-{name}", remote=str(remote)), config)
            with one.active():
                one.system.init()
            made.append(one)
        a, b = made
        bare_remote(folder, git, a)
        a.sync()
        b.sync()
    return folder


@pytest.fixture
def pair(tmp_path, pair_template, new_system):
    """A (git default master) made the remote and pushed; B (default unset) joined it: a copy of
    `pair_template`, each device opened on its copy with the copied remote as `git.remote` (a sync sets the
    vault's `origin` to it first, git/sync.py `_ensure_remote`)."""
    shutil.copytree(
        pair_template, tmp_path, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns("gitconfig")
    )
    remote = tmp_path / "remote.git"
    a, b = (
        Device(name, new_system(tmp_path / f"home-{name}", remote=str(remote)), tmp_path / f"gitconfig-{name}")
        for name in ("a", "b")
    )
    return a, b, remote


def test_one_side_several_commits_ahead(pair, run_git) -> None:
    a, b, _ = pair
    added = [a.system.add(f"Note {n} / 笔记 {n}", f"正文 {n}", layer=Layer.LONG_TERM) for n in range(4)]
    assert a.sync().pushed == 4
    pulled = b.sync()
    assert pulled.actions == ["pulled"] and pulled.pulled == 4
    assert {m.id for m in added} <= ids(b)
    for n in range(3):
        b.system.set_fields(added[n].id, {"importance": 5})
    assert b.sync().pushed == 3
    assert a.sync().pulled == 3 and a.system.get(added[0].id).importance == 5
    assert head(run_git, a) == head(run_git, b)
    assert a.sync().actions == ["up-to-date"]


def test_move_on_one_side_body_edit_on_the_other(pair, run_git) -> None:
    a, b, _ = pair
    memory = a.system.add(TITLE, "第一行\n\nSecond line.\n", layer=Layer.LONG_TERM, category="note", tags=["lint"])
    a.sync()
    b.sync()
    moved = a.system.set_fields(memory.id, {"category": "decision"})  # the file moves folders
    assert moved.rel_path != memory.rel_path
    b.system.update(memory.id, body="第一行\n\nSecond line, edited on B.\n", tags=["lint", "ruff"])
    a.sync()
    result = b.sync()
    assert result.conflicts == []
    a.sync()
    for one in (a, b):
        merged = one.system.get(memory.id)
        assert merged.rel_path == moved.rel_path and merged.category == "decision"
        assert "edited on B" in merged.body and set(merged.tags) == {"lint", "ruff"}
        assert not one.system.global_vault.abs_path(memory.rel_path).exists()


def test_a_force_pushed_remote_is_refused_and_local_kept(tmp_path, pair, run_git) -> None:
    a, b, remote = pair
    memory = a.system.add(TITLE, "本地的记忆 / kept locally", layer=Layer.LONG_TERM)
    a.sync()
    b.sync()
    a.system.set_fields(memory.id, {"tags": "lint,local"})
    before = (head(run_git, a), a.system.global_vault.abs_path(memory.rel_path).read_bytes())
    # someone else rewrites the remote: the last commit amended and force-pushed over main
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", "-b", "main", str(remote), str(other))
    run_git(other, "commit", "-q", "--amend", "--allow-empty", "-m", "rewritten history")
    run_git(other, "push", "-q", "--force", "origin", "main")
    remote_after = run_git(remote, "rev-parse", "main").strip()
    with pytest.raises(SyncRefusedError) as caught:
        a.sync()
    assert "force-pushed" in caught.value.message and "push --force-with-lease" in caught.value.hint
    assert (head(run_git, a), a.system.global_vault.abs_path(memory.rel_path).read_bytes()) == before
    assert run_git(remote, "rev-parse", "main").strip() == remote_after  # nothing pushed over it
    with pytest.raises(SyncRefusedError):
        b.sync()  # every device that synced before refuses, not only the one with local work


def test_another_branch_name_is_refused_until_renamed(pair, run_git) -> None:
    a, b, _ = pair
    memory = b.system.add(TITLE, "B 的记忆", layer=Layer.LONG_TERM)
    run_git(b.vault, "branch", "-m", "main", "master")  # what an older version left behind
    a.system.add("Other / 另一条", "A 的记忆", layer=Layer.LONG_TERM)
    a.sync()
    with pytest.raises(SyncRefusedError) as caught:
        b.sync()
    assert "on branch master" in caught.value.message
    fix = caught.value.hint.split("`")[1]
    run_git(b.vault, *fix.split()[3:])  # the hint's command: git -C VAULT branch -m master main
    assert "merged" in b.sync().actions
    a.sync()
    assert memory.id in ids(a)
    assert head(run_git, a) == head(run_git, b)


def test_unrelated_vault_with_its_own_memories_joins_only_when_asked(tmp_path, pair, device, run_git) -> None:
    a, _, remote = pair
    c = device("c", "master", remote)
    own = c.system.add("C 独有 / only on C", "C 的记忆", layer=Layer.LONG_TERM)
    with pytest.raises(SyncRefusedError) as caught:
        c.sync()
    assert "unrelated histories" in caught.value.message and "--join" in caught.value.hint
    result = c.sync(join=True)
    assert "merged" in result.actions and "pushed" in result.actions
    a.sync()
    assert own.id in ids(a)
    run_git(c.vault, "merge-base", "--is-ancestor", head(run_git, a), "HEAD")
