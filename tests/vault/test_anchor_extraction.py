"""Anchors, the pure part (vault/anchors.py): what a memory's text cites, in English and Chinese, the
frontmatter a person may write, and the staleness decision and its record."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from aimate_memory.system.records import HitRecord
from aimate_memory.vault.anchors import (
    Anchor,
    PathHistory,
    Staleness,
    anchors_of,
    cited_identifiers,
    cited_paths,
    first_stale,
    folder_blob,
    git_blob_id,
    merge_anchors,
    staleness_of,
)

WHEN = datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("text", "paths"),
    [
        ("Token refresh happens in auth/session.py via refresh_token().", ["auth/session.py"]),
        ("令牌刷新在 auth/session.py 的 refresh_token() 里", ["auth/session.py"]),
        ("令牌刷新在auth/session.py里，路由在src/api/。", ["auth/session.py", "src/api/"]),
        ("See auth/session.py:42 and src/db.py:10-30, then ./setup.py.", ["auth/session.py", "src/db.py", "setup.py"]),
        ("配置见 `config/defaults.py` 和 pyproject.toml。", ["config/defaults.py", "pyproject.toml"]),
        ("The handler is in src/api/ (see docs/api.md).", ["src/api/", "docs/api.md"]),
        ("Read https://github.com/pallets/click/blob/main/src/click/core.py first", []),
        ("Mail me at dev@example.com about it", []),
        ("We prefer four spaces, 我习惯用 Tab 缩进", []),
        ("auth/session.py and auth/session.py again", ["auth/session.py"]),
        ("Never use ../outside/file.py", []),
    ],
)
def test_cited_paths(text: str, paths: list[str]) -> None:
    assert cited_paths(text) == paths


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Token refresh happens in auth/session.py via refresh_token().", ["refresh_token"]),
        ("令牌刷新在 auth/session.py 的 refresh_token() 里，会话由 SessionStore 管", ["refresh_token", "SessionStore"]),
        ("Call store.flush_all() before exit", ["flush_all"]),
        ("The `Retriever` class and parseConfig do the work", ["parseConfig", "Retriever"]),
        ("print() and len() are builtins, main() is everywhere", []),
        ("We prefer four spaces", []),
        ("缓存用 Redis，不用 Memcached", []),
    ],
)
def test_cited_identifiers(text: str, names: list[str]) -> None:
    assert cited_identifiers(text) == names


def test_anchors_of_reads_what_a_person_writes() -> None:
    written = [
        {"path": "auth/session.py", "blob": "abc", "verified_at": "2026-11-20T10:00:00+00:00"},
        "./src/api/",  # a bare path: to be verified
        {"path": "auth/session.py", "blob": "dup"},  # a repeat: the first stands
        {"blob": "no path"},  # nothing to anchor: skipped
        42,
    ]
    anchors = anchors_of(written)
    assert anchors == (Anchor("auth/session.py", "abc", WHEN), Anchor("src/api/", "", None))
    assert anchors_of(None) == () and anchors_of("auth/session.py") == ()


def test_merge_keeps_previous_as_they_are_and_adds_new() -> None:
    old = Anchor("a.py", "1", WHEN)
    fresh = [Anchor("a.py", "2", datetime.now(timezone.utc)), Anchor("b.py", "3", datetime.now(timezone.utc))]
    merged = merge_anchors([old], fresh)
    assert merged[0] is old and [anchor.path for anchor in merged] == ["a.py", "b.py"]


def test_blob_ids_are_gits() -> None:
    # `echo hello | git hash-object --stdin`
    assert git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"
    assert folder_blob([("a.py", "1"), ("b.py", "2")]) == folder_blob([("b.py", "2"), ("a.py", "1")])
    assert folder_blob([("a.py", "1")]) != folder_blob([("a.py", "2")])


def test_staleness_decisions() -> None:
    anchor = Anchor("auth/session.py", "old", WHEN)
    assert staleness_of(anchor, "old", PathHistory()) is None
    assert staleness_of(Anchor("x.py", "", None), None, PathHistory()) is None  # never verified: not stale
    changed = staleness_of(anchor, "new", PathHistory(3))
    assert changed == Staleness("auth/session.py", "changed", "2026-11-20", 3)
    moved = staleness_of(anchor, None, PathHistory(1, renamed_to="auth/sessions.py"))
    assert moved is not None and (moved.what, moved.moved_to) == ("moved", "auth/sessions.py")
    uncommitted_move = staleness_of(anchor, None, PathHistory(), blob_elsewhere="lib/session.py")
    assert uncommitted_move is not None and uncommitted_move.moved_to == "lib/session.py"
    deleted = staleness_of(anchor, None, PathHistory(2, deleted_at=WHEN))
    assert deleted is not None and deleted.what == "deleted" and deleted.deleted_at == WHEN.isoformat()


@pytest.mark.parametrize(
    ("stale", "said"),
    [
        (Staleness("auth/x.py", "changed", "2026-11-20", 3), "auth/x.py changed in 3 commits since 2026-11-20"),
        (Staleness("a.py", "changed", "2026-11-20", 1), "a.py changed in 1 commit since 2026-11-20"),
        (Staleness("a.py", "changed", "2026-11-20", 0), "a.py changed since 2026-11-20 (not committed yet)"),
        (Staleness("a.py", "moved", "2026-11-20", 1, moved_to="b"), "a.py moved to b in 1 commit since 2026-11-20"),
        (Staleness("a.py", "deleted", "2026-11-20", 2), "a.py was deleted in 2 commits since 2026-11-20"),
        (
            Staleness("a.py", "changed", "2026-11-20", 1, more=2),
            "a.py changed in 1 commit since 2026-11-20 (and 2 more anchored files)",
        ),
    ],
)
def test_describe(stale: Staleness, said: str) -> None:
    assert stale.describe() == said


def test_first_stale_counts_the_others() -> None:
    found = [Staleness("a.py", "changed", "2026-11-20", 1), Staleness("b.py", "deleted", "2026-11-20", 1)]
    first = first_stale(found)
    assert first is not None and (first.path, first.more) == ("a.py", 1)
    assert first_stale([]) is None


def test_a_stale_hit_crosses_the_daemon_socket_whole() -> None:
    """HitRecord.to_dict → JSON → from_dict is how a daemon's answer reaches a face."""
    stale = Staleness("auth/session.py", "moved", "2026-11-20", 2, moved_to="auth/sessions.py", more=1)
    hit = HitRecord("id", "t", "long_term/x.md", "project", "long_term", "knowledge", (), "", 0.5, stale=stale)
    data = hit.to_dict()
    assert data["stale"] == {
        "path": "auth/session.py",
        "what": "moved",
        "since": "2026-11-20",
        "commits": 2,
        "moved_to": "auth/sessions.py",
        "more": 1,
    }
    assert HitRecord.from_dict(data) == hit
    fresh = HitRecord("id", "t", "p", "project", "long_term", "", (), "", 0.5)
    assert fresh.to_dict()["stale"] is None and HitRecord.from_dict(fresh.to_dict()).stale is None
