"""Anchors over MCP, with the SDK's client (issue 27): a project memory whose cited file changed carries
`stale` in memory_search and memory_get; memory_update `verified: true` re-anchors it and clears the mark."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.repos import committed_project, git


@pytest.mark.parametrize(
    ("body", "query"),
    [
        ("Sessions are stored by SessionStore in store/session.py.", "sessions stored"),
        ("会话由 store/session.py 里的 SessionStore 保存。", "会话"),
    ],
)
def test_stale_in_search_and_get_and_verified_clears_it(
    spawn, cli, initialized, tmp_path: Path, isolated_git: None, body: str, query: str
) -> None:
    project = committed_project(tmp_path / "proj", {"store/session.py": "class SessionStore:\n    pass\n"})
    assert cli("mem", "init", cwd=project).code == 0  # the global vault: the copied `initialized` one
    added = cli("mem", "add", "Session storage", "--body", body, "--json", cwd=project)
    assert added.code == 0, added.err
    memory_id = added.json()["id"]
    server = spawn(cwd=project)
    assert server.ok("memory_search", query=query)["results"][0]["stale"] is None

    (project / "store" / "session.py").write_text("class SessionStore:\n    ttl = 60\n", encoding="utf-8")
    git(project, "commit", "-qam", "ttl", later_s=2)
    hit = server.ok("memory_search", query=query)["results"][0]
    assert hit["id"] == memory_id
    assert (hit["stale"]["path"], hit["stale"]["what"], hit["stale"]["commits"]) == ("store/session.py", "changed", 1)
    assert f"({memory_id[:8]}): store/session.py changed in 1 commit" in server.ok("memory_context")["text"]
    got = server.ok("memory_get", id=memory_id[:8])
    assert got["stale"]["what"] == "changed" and got["anchors"][0]["path"] == "store/session.py"

    verified = server.ok("memory_update", id=memory_id[:8], verified=True)
    assert verified["stale"] is None and verified["anchors"][0]["path"] == "store/session.py"
    assert server.ok("memory_search", query=query)["results"][0]["stale"] is None
    context = server.ok("memory_context")
    assert "Possibly out of date" not in context["text"]
