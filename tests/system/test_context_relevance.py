"""The relevance floor (`retrieval.min_relevance`) holds for what agents are given: an unrelated query adds
no memory to the context, nor to the prompt hook's output; a related one does (Chinese and English).
With the real models: without vectors an unrelated query matches no keyword at all, which proves nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from aimate_memory.integrations.hook_events import Client, HookKind
from aimate_memory.integrations.hooks import RELEVANT_PREFACE, run_hook
from aimate_memory.system import MemorySystem
from aimate_memory.system.client import LocalClient
from aimate_memory.vault.layout import Layer, Scope
from tests.conftest import seed_models

PROJECT_MEMORIES = [
    ("Redis for session cache", "We use Redis as the session cache: an in-memory store, low latency.", "decision"),
    ("选用 Redis 做会话缓存", "我们决定用 Redis 做会话缓存：延迟低，支持过期。", "decision"),
    ("pytest fixtures", "We write tests with pytest; shared fixtures live in conftest.py.", "knowledge"),
]
GLOBAL_MEMORIES = [
    ("Redis persistence", "Redis, our in-memory store, snapshots (RDB) every 5 minutes plus an AOF.", "knowledge"),
    ("登录测试不稳定", "持续集成里的登录测试时好时坏，需要修复。", "knowledge"),
]
UNRELATED = ("quantum chromodynamics lattice", "量子色动力学的格点计算")
RELATED = (("which cache did we choose", "Redis for session cache"), ("会话缓存用什么", "选用 Redis 做会话缓存"))


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory, model_cache: Path):
    root = tmp_path_factory.mktemp("relevance")
    seed_models(root / "home", model_cache)
    project = root / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AIMATE_HOME", str(root / "home"))
        with MemorySystem.open(cwd=project) as opened:
            opened.init()
            for scope, memories in ((Scope.PROJECT, PROJECT_MEMORIES), (Scope.GLOBAL, GLOBAL_MEMORIES)):
                for title, body, category in memories:
                    opened.add(title, body, layer=Layer.LONG_TERM, category=category, scope=scope)
            opened.refresh()
            assert opened.store.embedder.get() is not None, opened.store.embedder.unavailable
            yield opened


def searched_titles(context_json: dict) -> list[str]:
    return [
        item["title"] for section in context_json["sections"] if section["layer"] != "core" for item in section["items"]
    ]


@pytest.mark.slow
@pytest.mark.parametrize("query", UNRELATED)
def test_an_unrelated_query_adds_no_memory_to_the_context(system: MemorySystem, query: str) -> None:
    context = system.build_context(query)
    assert searched_titles(context.to_dict()) == []
    assert "Redis" not in context.text and "登录" not in context.text


@pytest.mark.slow
@pytest.mark.parametrize(("query", "answer"), RELATED)
def test_a_related_query_brings_its_memory(system: MemorySystem, query: str, answer: str) -> None:
    assert answer in searched_titles(system.build_context(query).to_dict())


def prompt_hook(system: MemorySystem, prompt: str) -> str:
    """The prompt hook as a running daemon answers it (the same facade search, with the models loaded)."""
    payload = {"session_id": "s1", "cwd": str(system.roots.project), "hook_event_name": "UserPromptSubmit"}
    stdin = json.dumps({**payload, "prompt": prompt}, ensure_ascii=False)
    connect = lambda cwd: LocalClient(lambda: system)  # noqa: E731  (the facade in process, as a client)
    output = run_hook(HookKind.PROMPT, stdin, connect, client=Client.CLAUDE, home=system.roots.home)
    return json.loads(output)["hookSpecificOutput"]["additionalContext"] if output else ""


@pytest.mark.slow
@pytest.mark.parametrize("query", UNRELATED)
def test_the_prompt_hook_adds_nothing_for_an_unrelated_prompt(system: MemorySystem, query: str) -> None:
    assert prompt_hook(system, query) == ""


@pytest.mark.slow
@pytest.mark.parametrize(("query", "answer"), RELATED)
def test_the_prompt_hook_lists_the_related_memory(system: MemorySystem, query: str, answer: str) -> None:
    output = prompt_hook(system, query)
    assert output.startswith(RELEVANT_PREFACE) and answer in output
