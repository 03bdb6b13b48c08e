"""A running session's transcript is never a search result; an ended one is (docs/design.md, "Sessions").

What the prompt hooks and `memory_session_append` do — append the person's question to the session — made
`search` answer with that question (the transcript first at 0.92, the decision asked about at 0.21). Run
keyword-only (the hooks' in-process path) and hybrid with the real models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aimate_memory.system.client import LocalClient
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer
from tests.conftest import in_process

CASES = [
    ("We chose Redis as the cache", "Redis: low latency, TTL support.", "Which cache did we choose?", "cache"),
    ("决定：缓存用 Redis", "延迟低，支持过期。", "我们选了哪个缓存？", "缓存"),
]


@pytest.mark.slow
@pytest.mark.parametrize("vectors", [False, True], ids=["keywords", "vectors"])
@pytest.mark.parametrize(("title", "body", "question", "query"), CASES)
def test_the_running_transcript_is_not_a_result_and_the_ended_one_is(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    isolated_git: None,
    vectors: bool,
    title: str,
    body: str,
    question: str,
    query: str,
) -> None:
    """In process, through the client `aimate mem search` calls (index refreshed first), keyword-only and with
    the models loaded once per module (`loaded_models`): a CLI process per step was ~0.5 s of CPU, ~2 s with
    the models. The CLI face: the test below."""
    models = request.getfixturevalue("loaded_models") if vectors else None
    with in_process(tmp_path / "aimate-home", models=models) as system:
        client = LocalClient(lambda: system, borrowed=True)

        def search(text: str, **where: Any) -> list[str]:
            return [hit.id for hit in client.search(text, 10, MemoryFilter(**where)).hits]

        decision = system.add(title, body, layer="long_term", category="decision")
        system.sessions.append("user", question)
        assert search(query) == [decision.id]
        # The question itself: the decision or nothing (keyword-only, "我们选了哪个缓存" shares one word with it).
        assert search(question) in ([decision.id], [])
        assert search(question, layers=(Layer.SESSION,), statuses=()) == []
        ended = system.sessions.end()
        assert ended is not None
        assert search(question, layers=(Layer.SESSION,)) == [ended.id]  # ended sessions stay searchable


@pytest.mark.slow
def test_the_running_transcript_is_not_a_result_through_the_cli(cli_vectors) -> None:
    """The same through `aimate mem init|add|session|search` with the real models, in Chinese."""
    cli = cli_vectors
    title, body, question, query = CASES[1]
    assert cli("mem", "init").code == 0
    decision = cli("mem", "add", title, "--body", body, "--layer", "long_term", "--category", "decision", "--json")
    assert cli("mem", "session", "append", "--role", "user", question).code == 0

    hits = cli("mem", "search", query, "--json").json()
    assert [hit["id"] for hit in hits] == [decision.json()["id"]]
    hits = cli("mem", "search", question, "--json").json()
    assert [hit["id"] for hit in hits] in ([decision.json()["id"]], [])
    assert cli("mem", "search", question, "--layer", "session", "--status", "all", "--json").json() == []

    ended = cli("mem", "session", "end", "--json").json()
    found = cli("mem", "search", question, "--layer", "session", "--json").json()
    assert [hit["id"] for hit in found] == [ended["id"]]  # ended sessions stay searchable
