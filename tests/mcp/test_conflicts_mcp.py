"""memory_remember over a real MCP client with the real models: a decision that may contradict an active one
comes back as action `conflict`, naming it, and is saved pending (docs/design.md, "Conflicts")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import linked_models, seed_models
from tests.mcp.conftest import McpProcess, server_env

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(
    writer_home: tuple[Path, Path], model_cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[McpProcess]:
    """One server with the models, for both cases (each writes a decision and its contradiction in a slot of its
    own — cache, database — so neither sees the other's): a start with the models is ~3 s of CPU. A cache folder
    of its own (`embedding.cache_dir`), linked to the run's (`model_cache`): `init` built it in every case before
    (~6 s of CPU)."""
    home, workdir = writer_home
    seed_models(home, model_cache)
    cache = linked_models(model_cache, tmp_path_factory.mktemp("conflict-models") / "models")
    models = {"AIMATE_EMBEDDING__CACHE_DIR": str(cache), "AIMATE_CAPTURE__EMBEDDING": "true"}
    process = McpProcess(["mem", "mcp"], workdir, {**server_env(home, vectors=True), **models})
    yield process
    process.close()


@pytest.mark.parametrize(
    ("old", "new", "slot"),
    [
        ("We chose Redis for sessions", "会话缓存改用 Memcached", "cache"),
        ("数据库选用 PostgreSQL", "We decided to move the main database to MySQL", "database"),
    ],
)
def test_remember_answers_conflict_with_the_other_memory(server: McpProcess, old: str, new: str, slot: str) -> None:
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
