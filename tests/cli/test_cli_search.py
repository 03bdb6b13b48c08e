"""`aimate mem index/reindex/search/stats` as real subprocesses, with the real models where it matters."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from aimate_memory.cli.common import when
from aimate_memory.errors import AimateError
from aimate_memory.system.client import LocalClient
from aimate_memory.vault.filters import MemoryFilter
from tests.conftest import in_process, thorough_or

# Each writer's adds in test_two_processes_writing_at_once_lose_nothing: 2 processes a round (16 s of CPU at 8).
ROUNDS = int(thorough_or("AIMATE_WRITER_ROUNDS", "4", "8"))
HOSTILE = [
    '"',
    '"unbalanced',
    "NEAR(",
    "NEAR(a b",
    "*",
    "-",
    "a AND OR NOT",
    "'; DROP TABLE memories; --",
    "^x",
    "x" * 10_000,
    "中" * 5000,
    "\x00",
]


def add_two(cli) -> None:
    """A Chinese decision and an English note, through the CLI."""
    for args in (
        ("选用 Redis 做会话缓存", "--body", "我们决定用 Redis 做会话缓存，延迟低。", "--category", "decision"),
        ("Deploy checklist", "--body", "Run the smoke tests before every deploy.", "--tags", "ops"),
    ):
        added = cli("mem", "add", *args)
        assert added.code == 0, added.err


@pytest.fixture
def seeded(seeded_home) -> Path:
    """The home with the two memories: added once per run, copied (`seeded_home`)."""
    return seeded_home("cli-search", add_two)


@pytest.mark.slow
def test_search_json_in_both_languages_with_vectors(cli_vectors, initialized) -> None:
    add_two(cli_vectors)
    english = cli_vectors("mem", "search", "what do we run before deploying", "--json")
    assert english.code == 0, english.err
    top = english.json()[0]
    assert top["title"] == "Deploy checklist" and top["scope"] == "global" and top["layer"] == "long_term"
    assert set(top) >= {"id", "title", "path", "layer", "scope", "score", "snippet"}
    chinese = cli_vectors("mem", "recall", "会话缓存", "--json", "--explain").json()
    assert chinese[0]["title"] == "选用 Redis 做会话缓存"
    factors = chinese[0]["factors"]
    # both lists found it: the raw cosine, both evidences and the relevance they make are shown with the weights
    shown = {"similarity", "vector", "keyword", "relevance", "recency", "importance", "access", "days", "final"}
    assert set(factors) == shown | {"vector_part", "keyword_part"}
    # Each factor is shown rounded to 6 places: the sum of two may be off by one in the last (0.919999 against
    # 0.919998 once), so the tolerance is three half-units.
    assert factors["final"] == pytest.approx(factors["vector_part"] + factors["keyword_part"], abs=1.5e-6)
    assert factors["relevance"] == pytest.approx(0.6 * factors["vector"] + 0.4 * factors["keyword"], abs=1e-5)
    shown = cli_vectors("mem", "search", "smoke tests")
    assert "Deploy checklist" in shown.out and "hybrid" in shown.out


def test_hostile_queries_never_raise(cli, seeded, isolated_git: None) -> None:
    """Each hostile query through the client `aimate mem search` calls, in process: an answer or a one-line
    error (`AimateError`, exit 1), never anything else (a CLI process per query was ~0.5 s of CPU each). The
    CLI face: two hostile queries, the literal one and the empty one."""
    with in_process(seeded) as system:
        client = LocalClient(lambda: system, borrowed=True)
        for query in HOSTILE:
            try:
                found = client.search(query.replace("\x00", "") or " ")
            except AimateError:
                continue
            assert isinstance(json.loads(json.dumps([hit.to_dict(False) for hit in found.hits])), list), query
    for query in HOSTILE[1], HOSTILE[10]:
        result = cli("mem", "search", query, "--json")
        assert "Traceback" not in result.err, query
        assert result.code in (0, 1), (query, result.err)
        if result.code == 0:
            assert isinstance(result.json(), list)
    literal = cli("mem", "search", "NEAR(smoke tests", "--json").json()
    assert literal[0]["title"] == "Deploy checklist"
    empty = cli("mem", "search", "   ")
    assert empty.code == 1 and "empty query" in empty.err


def test_unavailable_model_gives_keyword_results_and_one_warning(cli, seeded) -> None:
    env = {
        "AIMATE_EMBEDDING__ENABLED": "true",
        "AIMATE_EMBEDDING__PROVIDER": "fastembed",
        "AIMATE_EMBEDDING__MODEL": "BAAI/bge-small-zh-v1.5",  # not cached, and no model hub here
        "HF_HUB_OFFLINE": "1",
    }
    result = cli("mem", "search", "smoke tests", "--json", env=env)
    assert result.code == 0, result.err
    assert result.json()[0]["title"] == "Deploy checklist"
    warnings = [line for line in result.err.splitlines() if line.startswith("warning:")]
    assert warnings and any("keyword" in line for line in warnings)
    assert "Traceback" not in result.err


def test_index_reindex_stats_and_no_sync(cli, home: Path, seeded) -> None:
    first = cli("mem", "index", "--json").json()["global"]
    # `add` of a decision indexes core/ and decisions/ for its conflict check: some are in already
    assert first["added"] + first["unchanged"] == 4 and first["added"] >= 1 and first["errors"] == 0
    again = cli("mem", "index", "--json").json()["global"]
    assert again["added"] == again["updated"] == 0 and again["unchanged"] == 4
    (home / "memory" / "long_term" / "knowledge" / "hand.md").write_text("# 手写\n\n灰度发布流程\n", encoding="utf-8")
    assert cli("mem", "search", "灰度发布", "--no-refresh", "--json").json() == []
    assert cli("mem", "search", "灰度发布", "--json").json()[0]["title"] == "手写"
    stats = cli("mem", "stats", "--json").json()["global"]
    assert stats["memories"] == 5 and stats["by_layer"]["core"] == 2 and stats["index_bytes"] > 0
    assert stats["identity"]["embedder"] is None  # keyword-only in this test
    rebuilt = cli("mem", "reindex", "--json").json()["global"]
    assert rebuilt["rebuilt"] and rebuilt["added"] == 5


def test_filters_on_the_command_line(cli, seeded, isolated_git: None) -> None:
    """Each filter through the CLI once (its options, their parsing, the exit code of a bad value); the other
    relative dates (`when`, what `--since`/`--until` call) asked in process through the client `search` uses:
    a CLI process per date word was ~0.5 s of CPU each."""
    with in_process(seeded) as system:
        system.add("明天部署", "deploy tomorrow 部署", layer="short_term", category="task")
        client = LocalClient(lambda: system, borrowed=True)

        def titles(**dates: str) -> list[str]:
            where = MemoryFilter(**{f"updated_{k}": when(v, f"--{k}") for k, v in dates.items()})
            return [hit.title for hit in client.search("deploy", 10, where).hits]

        for recent in ("7d", "2w", "yesterday", "今天"):
            assert "Deploy checklist" in titles(after=recent), recent
        assert titles(after="2999-01-01") == []
        assert titles(before="30d") == []
    only_tasks = cli("mem", "search", "deploy", "--layer", "short_term", "--json").json()
    assert [r["title"] for r in only_tasks] == ["明天部署"]
    tagged = cli("mem", "search", "deploy", "--tag", "ops", "--json").json()
    assert [r["title"] for r in tagged] == ["Deploy checklist"]
    assert "Deploy checklist" in [r["title"] for r in cli("mem", "search", "deploy", "--since", "3天", "--json").json()]
    assert cli("mem", "search", "deploy", "--until", "30d", "--json").json() == []
    assert cli("mem", "search", "deploy", "--since", "last tuesday").code == 1
    assert cli("mem", "search", "deploy", "--layer", "nope").code == 1


@pytest.mark.slow
def test_two_processes_writing_at_once_lose_nothing(cli, initialized, home: Path) -> None:
    """Two CLI writers, each adding and indexing ROUNDS times at once (tests/reliability/test_concurrent_writers.py
    is the long pass with the daemon and an editor)."""

    def writer(name: str) -> list[int]:  # each call its own `aimate` process, two at a time (one per thread)
        return [
            cli(*args).code
            for i in range(ROUNDS)
            for args in (("mem", "add", f"{name} 记忆 {i}", "--body", f"writer {name} note {i}"), ("mem", "index"))
        ]

    with ThreadPoolExecutor(2) as pool:
        assert list(pool.map(writer, ("alpha", "beta"))) == [[0] * 2 * ROUNDS] * 2
    listed = cli("mem", "list", "--json").json()
    titles = {m["title"] for m in listed}
    assert {f"{name} 记忆 {i}" for name in ("alpha", "beta") for i in range(ROUNDS)} <= titles
    assert cli("mem", "diagnose").code == 0
    for name in ("alpha", "beta"):
        assert len(cli("mem", "search", f"writer {name}", "--limit", "20", "--json").json()) >= ROUNDS


def test_diagnose_checks_the_index_against_the_files(cli, home: Path, seeded) -> None:
    assert cli("mem", "diagnose").code == 0
    (home / "memory" / "long_term" / "knowledge" / "late.md").write_text("# 后来加的\n", encoding="utf-8")
    behind = cli("mem", "diagnose", "--no-refresh", "--json")
    assert behind.code == 1 and [p["kind"] for p in behind.json()] == ["IndexBehind"]
    assert cli("mem", "diagnose").code == 0  # syncs first
    vectors_on = {"AIMATE_EMBEDDING__ENABLED": "true"}
    missing = cli("mem", "diagnose", "--no-refresh", "--json", env=vectors_on)
    assert missing.code == 1 and "VectorsMissing" in {p["kind"] for p in missing.json()}
    other_model = {**vectors_on, "AIMATE_EMBEDDING__PROVIDER": "use"}
    rebuild = cli("mem", "diagnose", "--no-refresh", "--json", env=other_model)
    assert rebuild.code == 1 and "IndexIdentity" in {p["kind"] for p in rebuild.json()}
