"""Relevance that means something, through the real CLI with the real models (issue 16 §1)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from aimate_memory.system.client import LocalClient
from aimate_memory.system.records import SCORE_PARTS
from tests.conftest import in_process, isolate_git, seed_models

if TYPE_CHECKING:
    from aimate_memory.embedding.lazy import LazyEmbedder

VAULT = [
    ("Redis for session cache", "We use Redis as the session cache: an in-memory store, low latency.", "decision"),
    ("Redis persistence", "Redis, our in-memory store, snapshots (RDB) every 5 minutes plus an AOF.", "knowledge"),
    ("Flaky login test", "TODO: fix the flaky login test in CI.", "task"),
    ("pytest fixtures", "We write tests with pytest; shared fixtures live in conftest.py.", "knowledge"),
    ("选用 Redis 做会话缓存", "我们决定用 Redis 做会话缓存：延迟低，支持过期。", "decision"),
    ("登录测试不稳定", "持续集成里的登录测试时好时坏，需要修复。", "task"),
]

# The cache decision is in the vault in both languages; only the Chinese one says it was chosen (选用, 决定), and
# a memory in the other script competes on one scale (docs/design.md §7, "Across languages"): either answers.
CACHE_DECISION = {"Redis for session cache", "选用 Redis 做会话缓存"}
RELATED = (("which cache did we choose", CACHE_DECISION), ("会话缓存用什么", {"选用 Redis 做会话缓存"}))


@pytest.fixture(scope="module")
def seeded_home(tmp_path_factory: pytest.TempPathFactory, model_cache: Path, loaded_models: LazyEmbedder) -> Path:
    """A home holding `VAULT` with its vectors, once for the tests that only search it (a search records each
    memory's use, so each test copies it). Written in process with the module's loaded models (`in_process`:
    the writer `aimate mem add` calls, as `add` passes it its defaults), where seven CLI processes with the
    models cost ~5 s of CPU (docs/reliability.md, "The suite's cost"); `init` and `add` are the CLI's own
    tests' (tests/cli)."""
    root = tmp_path_factory.mktemp("relevance")
    home = root / "aimate-home"
    seed_models(home, model_cache)
    with pytest.MonkeyPatch.context() as patch:
        isolate_git(patch, root)
        with in_process(home, models=loaded_models, AIMATE_CAPTURE__EMBEDDING="true") as system:
            for title, body, category in VAULT:
                system.add(title, body, layer="long_term", category=category, importance=3)
    return home


@pytest.fixture
def seeded(cli_vectors, home: Path, seeded_home: Path):
    """`cli_vectors` on a copy of `seeded_home` (a search records each memory's use, so no test sees another's)."""
    shutil.copytree(seeded_home, home, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns("models"))
    return cli_vectors


@pytest.mark.slow
def test_unrelated_queries_get_nothing_related_ones_keep_their_answer(
    seeded, home: Path, loaded_models: LazyEmbedder, isolated_git: None
) -> None:
    """The answers in process, through the client `aimate mem search` calls, with the models loaded once per
    module (`loaded_models`; a CLI process per query loaded them again, ~2 s of CPU); the CLI face: what a
    person reads when nothing is related."""
    cli_vectors = seeded
    shown = cli_vectors("mem", "search", "量子色动力学的格点计算")
    assert shown.code == 0, shown.err
    assert "no memory about that" in shown.out
    with in_process(home, models=loaded_models) as system:
        client = LocalClient(lambda: system, borrowed=True)

        def search(query: str, limit: int = 10) -> list[dict]:
            return [hit.to_dict(False) for hit in client.search(query, limit).hits]

        for unrelated in ("quantum chromodynamics lattice", "量子色动力学的格点计算"):
            assert search(unrelated) == []
        for related, answer in RELATED:
            found = search(related)
            assert found and found[0]["title"] in answer, (related, found)
            assert found[0]["score"] < 1.0  # absolute: a good answer is not rescaled to 1.0
        # the last of a list is not dropped for being last: both Redis memories answer
        redis = {hit["title"] for hit in search("in-memory key value store", 5)}
    assert {"Redis for session cache", "Redis persistence"} <= redis


@pytest.mark.slow
def test_explain_shows_every_part(seeded) -> None:
    cli_vectors = seeded
    shown = cli_vectors("mem", "search", "flaky login test", "--explain")
    assert shown.code == 0, shown.err
    line = next(text for text in shown.out.splitlines() if "relevance" in text)
    for part in ("cosine", "vector", "keyword", "relevance", "recency", "importance", "use"):
        assert part in line, (part, line)
    assert "score" in line and "=" in line
    factors = cli_vectors("mem", "search", "登录测试", "--json", "--explain").json()[0]["factors"]
    # the relevance the floor reads is shown; the parts of the score add up to it (issue 36)
    assert 0 < factors["relevance"] <= 1
    weight = factors["recency"] * factors["importance"] * factors["access"]
    assert factors["vector_part"] + factors["keyword_part"] <= weight + 1e-6
    parts = sum(factors.get(key, 0.0) for key, _ in SCORE_PARTS)
    assert factors["final"] == pytest.approx(parts, abs=5e-6)  # --json rounds each part to 6 decimals


@pytest.mark.slow
def test_the_fresh_vaults_placeholder_is_not_an_answer(cli_vectors) -> None:
    assert cli_vectors("mem", "init").code == 0
    for question in ("does the user prefer pytest or unittest", "用户习惯用中文写注释吗", "Preferences"):
        found = cli_vectors("mem", "search", question, "--json")
        assert found.code == 0, found.err
        assert all(not hit["path"].startswith("core/") for hit in found.json()), question


@pytest.mark.slow
def test_a_question_in_one_language_finds_a_memory_written_in_the_other(
    cli_vectors, home: Path, loaded_models: LazyEmbedder, isolated_git: None
) -> None:
    """The searches through the CLI; the two memories written in process with the module's models (what `init`
    and `add` write; three CLI processes each loaded the models)."""
    with in_process(home, models=loaded_models, AIMATE_CAPTURE__EMBEDDING="true") as system:
        for title, body in (
            ("选用 Redis 做会话缓存", "我们决定用 Redis：延迟低，支持过期。"),
            ("Fix the flaky login test", "The login test fails on CI when the clock drifts."),
        ):
            system.add(title, body, layer="long_term", importance=3)
    english = cli_vectors("mem", "search", "which cache did we choose for sessions", "--json").json()
    assert [hit["title"] for hit in english][:1] == ["选用 Redis 做会话缓存"]
    chinese = cli_vectors("mem", "search", "登录测试为什么失败", "--json").json()
    assert [hit["title"] for hit in chinese][:1] == ["Fix the flaky login test"]
    for unrelated in ("quantum chromodynamics lattice", "量子色动力学的格点计算"):
        assert cli_vectors("mem", "search", unrelated, "--json").json() == []
