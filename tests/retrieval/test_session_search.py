"""A running session's transcript is never a search result; an ended one is (docs/design.md, "Sessions").

What the prompt hooks and `memory_session_append` do — append the person's question to the session — made
`search` answer with that question (the transcript first at 0.92, the decision asked about at 0.21). Run
keyword-only (the hooks' in-process path) and hybrid with the real models."""

from __future__ import annotations

import pytest

CASES = [
    ("We chose Redis as the cache", "Redis: low latency, TTL support.", "Which cache did we choose?", "cache"),
    ("决定：缓存用 Redis", "延迟低，支持过期。", "我们选了哪个缓存？", "缓存"),
]


@pytest.mark.slow
@pytest.mark.parametrize("runner", ["cli", "cli_vectors"])
@pytest.mark.parametrize(("title", "body", "question", "query"), CASES)
def test_the_running_transcript_is_not_a_result_and_the_ended_one_is(
    request: pytest.FixtureRequest, runner: str, title: str, body: str, question: str, query: str
) -> None:
    cli = request.getfixturevalue(runner)
    assert cli("mem", "init").code == 0
    decision = cli("mem", "add", title, "--body", body, "--layer", "long_term", "--category", "decision", "--json")
    assert cli("mem", "session", "append", "--role", "user", question).code == 0

    hits = cli("mem", "search", query, "--json").json()
    assert [hit["id"] for hit in hits] == [decision.json()["id"]]
    # The question itself: the decision or nothing (keyword-only, "我们选了哪个缓存" shares one word with it).
    hits = cli("mem", "search", question, "--json").json()
    assert [hit["id"] for hit in hits] in ([decision.json()["id"]], [])
    assert cli("mem", "search", question, "--layer", "session", "--status", "all", "--json").json() == []

    ended = cli("mem", "session", "end", "--json").json()
    found = cli("mem", "search", question, "--layer", "session", "--json").json()
    assert [hit["id"] for hit in found] == [ended["id"]]  # ended sessions stay searchable
