"""The one client (system/client.py) and the records that cross process boundaries (system/records.py), on a
real vault and index: the records round-trip and keep the shape `search --json` always printed; a daemon
that does not answer is not asked again for a while; a project is registered for every face."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aimate_memory.system import MemorySystem
from aimate_memory.system.client import RETRY_SECONDS, LocalClient, RoutedClient
from aimate_memory.system.records import (
    AppendRecord,
    CaptureRecord,
    ContextRecord,
    SearchRecord,
    where_from_dict,
    where_to_dict,
)
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.roots import detect_roots
from aimate_memory.watch.client import DaemonClient, connect
from aimate_memory.watch.registry import registered_projects


@pytest.fixture
def project(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    monkeypatch.setenv("AIMATE_NO_DAEMON", "1")
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "pyproject.toml").write_text("[project]\nname = 'demo'\n", encoding="utf-8")
    with MemorySystem.open(project=str(folder)) as system:
        system.init()
        system.add(
            "选用 Redis 做会话缓存", "我们决定用 Redis：延迟低，支持过期。", layer="long_term", category="decision"
        )
        system.add("Tests run with pytest", "Every test uses pytest fixtures.", layer="long_term", category="decision")
    return folder


@pytest.mark.parametrize("query", ["会话缓存 Redis", "pytest fixtures"])
def test_a_search_record_round_trips_and_prints_what_search_json_printed(project: Path, query: str) -> None:
    with MemorySystem.open(project=project) as system:
        system.refresh()
        response = system.search(query, 5)
        record = SearchRecord.of(response, system.vaults)
    assert record.hits and [hit.id for hit in record.hits] == [hit.memory.id for hit in response.results]
    assert SearchRecord.from_dict(record.to_dict()) == record
    for hit, original in zip(record.hits, response.results, strict=True):
        memory = original.memory
        assert hit.to_dict() == {  # what `search --json` has always printed
            "id": memory.id,
            "title": memory.title,
            "path": memory.rel_path.as_posix(),
            "layer": memory.layer.value,
            "scope": memory.scope.value,
            "category": memory.category,
            "status": memory.status,  # issue 39: a pending capture says so in every result
            "tags": memory.tags,
            "updated_at": memory.updated_at.isoformat(),
            "score": round(original.score, 6),
            "snippet": original.snippet,
            "highlights": [list(span) for span in original.highlights],
            "stale": None,  # anchors (issue 27): a project memory whose cited file changed says so here
        }
        assert hit.to_dict(True)["factors"] == {key: round(value, 6) for key, value in original.factors.items()}
    assert [(vault.scope, vault.root) for vault in record.vaults] == [
        ("project", str(project / ".aimate" / "memory")),
        ("global", str(detect_roots(project=project).home / "memory")),
    ]


def test_the_other_records_round_trip(project: Path) -> None:
    client = connect(project=project)
    captured = client.remember("我们决定：周五不发布 no deploys on Friday", source="cli")
    assert captured.action == "written" and captured.memory_id
    assert CaptureRecord.from_dict(captured.to_dict()) == captured
    context = client.build_context("Redis")
    assert "选用 Redis 做会话缓存" in context.text and ContextRecord.from_dict(context.to_dict()) == context
    appended = client.add_conversation("user", "用 pnpm 安装依赖", session="t:1")
    assert appended.turns == 1 and AppendRecord.from_dict(appended.to_dict()) == appended
    assert client.end_session(session="t:1") is True
    client.close()
    where = MemoryFilter(layers=(Layer.LONG_TERM,), scopes=(Scope.PROJECT,), tags=("缓存",))
    assert where_from_dict(where_to_dict(where)) == where


def test_a_daemon_that_does_not_answer_is_asked_again_only_after_a_while(project: Path) -> None:
    asked: list[str] = []
    now = [0.0]

    def silent(op: str, fields: dict[str, Any]) -> dict[str, Any] | None:
        asked.append(op)
        return None  # no daemon answered

    roots = detect_roots(project=project)
    client = RoutedClient(roots, LocalClient(lambda: MemorySystem(roots)), DaemonClient(silent), clock=lambda: now[0])
    assert client.search("Redis").hits[0].title == "选用 Redis 做会话缓存"
    assert client.via == "in-process" and asked == ["search"]
    assert client.search("pytest").hits and asked == ["search"]  # not asked again at once
    now[0] += RETRY_SECONDS
    client.search("pytest")
    assert asked == ["search", "search"]
    client.close()


def test_every_face_registers_its_project_for_the_daemon(project: Path, home: Path) -> None:
    assert registered_projects(home) == []
    connect(cwd=project).close()  # what a hook, the MCP server and the CLI all do first
    assert registered_projects(home) == [project.resolve()]


class CountedFreshness:
    """A client's freshness that syncs as a one-command process does, and counts each time it is asked."""

    def __init__(self) -> None:
        self.asked = 0

    def refresh(self, system: MemorySystem) -> None:
        self.asked += 1
        system.refresh()

    def close(self) -> None:
        pass


def test_a_review_syncs_through_the_clients_freshness_only_when_it_lists_stale_memories(project: Path) -> None:
    """`review` reads git, not the index; its list of possibly stale memories reads the index, synced by the
    client's own freshness (in the daemon: only the vaults with changes not synced yet), never by a hash-sync
    of every file on every review (docs/design.md §12, "What the daemon does for each wait")."""
    freshness = CountedFreshness()
    with MemorySystem.open(project=str(project)) as system:
        client = LocalClient(lambda: system, freshness, borrowed=True)
        edited = next(m for m in system.list() if m.title == "选用 Redis 做会话缓存")
        vault = system.project_vault
        assert vault is not None
        path = vault.abs_path(edited.rel_path)
        path.write_text(path.read_text("utf-8").replace("延迟低", "延迟很低"), "utf-8")
        listed = client.view("review", {})
        assert freshness.asked == 0 and [item["title"] for item in listed["items"]] == [edited.title]
        assert "stale" not in listed
        with_stale = client.view("review", {"stale": True})
        assert freshness.asked == 1 and with_stale["stale"] == [] and with_stale["items"] == listed["items"]
        assert client.view("timeline", {"limit": 5})["events"] and freshness.asked == 1  # git only
