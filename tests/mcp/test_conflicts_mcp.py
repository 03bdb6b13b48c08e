"""memory_remember over a real MCP client with the real models: a decision that may contradict an active one
comes back as action `conflict`, naming it, and is saved pending (docs/design.md, "Conflicts")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import linked_models

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("old", "new", "slot"),
    [
        ("We chose Redis for sessions", "会话缓存改用 Memcached", "cache"),
        ("数据库选用 PostgreSQL", "We decided to move the main database to MySQL", "database"),
    ],
)
def test_remember_answers_conflict_with_the_other_memory(
    spawn, initialized: Path, tmp_path: Path, model_cache: Path, old: str, new: str, slot: str
) -> None:
    # A cache folder of its own (`embedding.cache_dir`), linked to the run's (`model_cache`): `init` built it
    # in every case before (~6 s of CPU).
    cache = linked_models(model_cache, tmp_path / "models")
    models = {"AIMATE_EMBEDDING__CACHE_DIR": str(cache), "AIMATE_CAPTURE__EMBEDDING": "true"}
    server = spawn(vectors=True, env=models)
    first = server.ok("memory_remember", text=old, kind="decision", confidence=0.95)
    assert first["action"] == "written" and first["conflicts"] == []
    answer = server.ok("memory_remember", text=new, kind="decision", confidence=0.95)
    assert answer["action"] == "conflict" and answer["memory"]["status"] == "pending"
    [conflict] = answer["conflicts"]
    assert conflict["id"] == first["memory"]["id"] and conflict["title"] == old and conflict["slot"] == slot
    assert conflict["reason"] and conflict["cosine"] is not None
    assert "may contradict" in answer["reason"]
    again = server.ok("memory_remember", text=new, kind="decision", confidence=0.95)  # said twice: one proposal
    assert again["action"] == "exists" and again["memory"]["id"] == answer["memory"]["id"] and not again["conflicts"]
    tools = {tool.name: tool for tool in server.run(server.session.list_tools()).tools}
    assert "conflict" in (tools["memory_remember"].description or "")
