"""MCP `memory_search` gives every result a `status` (a capture waiting for review says "pending"), and
`memory_context` carries no pending capture (issue 39). Chinese and English. What the server reads is written in
process, as `aimate mem remember`/`add` write it (`in_process`; their CLI faces are tested in tests/cli): the
tests are about the server's answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import in_process


@pytest.mark.parametrize(
    ("sentence", "query"),
    [("Use black for formatting", "black formatting"), ("代码格式化统一使用 black 工具", "black 工具")],
)
def test_search_says_pending_and_context_leaves_it_out(
    spawn: Any, initialized: Path, home: Path, isolated_git: None, sentence: str, query: str
) -> None:
    with in_process(home) as system:
        assert system.remember(sentence, confidence=0.7, source="claude").action == "pending"
        system.add(f"{sentence} (reviewed)", "", category="rule")
    server = spawn()

    results = server.ok("memory_search", query=query)["results"]
    assert {item["title"]: item["status"] for item in results} == {
        sentence: "pending",
        f"{sentence} (reviewed)": "active",
    }

    context = server.ok("memory_context", query=query)
    assert f"{sentence} (reviewed)" in context["text"]
    assert context["text"].count(sentence) == 1


@pytest.mark.parametrize("title", ["Redis for the session cache", "会话缓存选用 Redis"])
def test_a_broken_file_is_named_in_the_warnings(
    spawn: Any, initialized: Path, home: Path, isolated_git: None, title: str
) -> None:
    with in_process(home) as system:
        system.add(title, "", category="decision")
    broken = home / "memory" / "core" / "broken.md"
    broken.write_text(f"---\ntitle: [never closed\n---\n# {title}\n", encoding="utf-8")
    server = spawn()

    found = server.ok("memory_search", query="Redis")
    assert [item["title"] for item in found["results"]] == [title]
    assert any("core/broken.md" in warning and "could not be read" in warning for warning in found["warnings"])
    context = server.ok("memory_context")
    assert [w["kind"] for w in context["warnings"] if "core/broken.md" in w["message"]] == ["broken_files"]
