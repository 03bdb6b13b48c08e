"""Document vectors kept on disk between processes (embedding/stored.py): what one process embedded, the next
reads instead of embedding — the same float32 rows, found only for the same model, in Chinese and English; a
damaged, unwritable or foreign file costs the embedding, never an answer. And end to end: a cold search and a
cold context answer the same with the file empty, with it filled, and through a daemon with the warm models."""

from __future__ import annotations

import json
import os
import re
import stat
import time
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
import sqlean

from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.embedding.stored import FILE, StoredVectors
from aimate_memory.watch.transport import daemon_request

TEXTS = ["We decided to use Redis for sessions, with a 30 minute TTL", "我们决定用 Redis 做会话缓存，过期时间 30 分钟"]


class Counting:
    """A real model (its identity, its vectors), counting the texts it was asked to embed."""

    def __init__(self, model, identity: str | None = None) -> None:
        self.model = model
        self.identity = identity or model.identity
        self.dimension, self.languages = model.dimension, model.languages
        self.read: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.read.extend(texts)
        return np.asarray(self.model.embed(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self.model.embed_query(text))


@pytest.fixture(scope="module")
def use_model(model_cache: Path):
    from aimate_memory.embedding import EmbedderUnavailable, create_embedder

    try:
        return create_embedder({"provider": "use", "threads": 1, "cache_dir": str(model_cache)})
    except EmbedderUnavailable as exc:
        pytest.skip(f"USE is not available here: {exc.message}")


def embedder(model: Counting, path: Path) -> LazyEmbedder:
    return LazyEmbedder({"provider": "use"}, model, stored=StoredVectors(path))  # type: ignore[arg-type]  # Counting is an Embedder by shape


def test_a_second_process_reads_what_the_first_embedded(use_model, tmp_path: Path) -> None:
    path = tmp_path / "state" / FILE
    first_model = Counting(use_model)
    first = embedder(first_model, path).embed_documents(TEXTS)
    assert first_model.read == TEXTS
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    second_model = Counting(use_model)  # a new process: nothing in its memory, the file on disk
    again = embedder(second_model, path).embed_documents([TEXTS[1], "部署前先跑冒烟测试", TEXTS[0]])
    assert second_model.read == ["部署前先跑冒烟测试"]  # only the new text was embedded
    np.testing.assert_array_equal(again[[0, 2]], first[[1, 0]])  # the very rows the model gave, bit for bit
    np.testing.assert_allclose(again[1], np.asarray(use_model.embed(["部署前先跑冒烟测试"]))[0], atol=1e-6)


def test_another_model_never_reads_them(use_model, tmp_path: Path) -> None:
    path = tmp_path / FILE
    embedder(Counting(use_model), path).embed_documents(TEXTS)
    other = Counting(use_model, identity="use:another-version:512")
    embedder(other, path).embed_documents(TEXTS)
    assert other.read == TEXTS


def test_a_row_of_another_length_is_embedded_again(use_model, tmp_path: Path) -> None:
    path = tmp_path / FILE
    StoredVectors(path).write(f"{use_model.identity}|", {TEXTS[1]: np.ones(3, dtype=np.float32)})  # forged
    model = Counting(use_model)
    vectors = embedder(model, path).embed_documents(TEXTS)
    assert model.read == TEXTS and vectors.shape == (2, 512)
    np.testing.assert_allclose(vectors, np.asarray(use_model.embed(TEXTS)), atol=1e-6)


def test_a_damaged_file_is_written_again_and_an_unwritable_one_only_costs_the_embedding(
    use_model, tmp_path: Path
) -> None:
    path = tmp_path / FILE
    path.write_bytes(b"not a database at all, " * 200)
    model = Counting(use_model)
    vectors = embedder(model, path).embed_documents(TEXTS)
    np.testing.assert_allclose(vectors, np.asarray(use_model.embed(TEXTS)), atol=1e-6)
    later = Counting(use_model)
    embedder(later, path).embed_documents(TEXTS)  # the file written again holds them
    assert later.read == []
    if os.geteuid() == 0:
        return  # root writes a read-only folder anyway: nothing more to check
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        stuck = Counting(use_model)
        found = embedder(stuck, folder / FILE).embed_documents(TEXTS)
        assert stuck.read == TEXTS and found.shape == (2, 512)
    finally:
        folder.chmod(0o700)


# -- end to end: cold with the file empty, cold with it filled, and the daemon, answer alike -------------------

BILINGUAL = [
    ("事件总线使用 Kafka", "事件总线使用 Kafka，消费者按分区并行"),
    ("Use Kafka as the event broker", "Producers write to Kafka topics; consumers scale by partition."),
    ("Retries wait 2 seconds, doubling up to 30 seconds", "The retry logic lives in net/retry.py."),
    ("重试等待两秒，最多翻倍到三十秒", "重试逻辑在 net/retry.py 里"),
    ("Redis 做会话缓存，过期时间 30 分钟", "会话缓存用 Redis，超时后重新登录"),
    ("We chose FastAPI instead of Flask", "FastAPI gives us async handlers and OpenAPI docs."),
    ("日志统一用 structlog 输出 JSON", "每行一个 JSON 对象"),
]
ASKED = ("which event broker do we use?", "会话缓存的过期时间")


def answers(cli_vectors, env: dict[str, str]) -> list[list[tuple[str, float]]]:
    """Each question's search and context, in one language and the other: (id, score) best first. A score decays
    with the clock between two runs (recency): `same` compares them within a tolerance, the order exactly."""
    found: list[list[tuple[str, float]]] = []
    for question in ASKED:
        searched = cli_vectors("mem", "search", question, "--json", env=env)
        assert searched.code == 0, searched.err
        found.append([(hit["id"], hit["score"]) for hit in json.loads(searched.out)])
        built = cli_vectors("mem", "context", question, "--json", env=env)
        assert built.code == 0, built.err
        sections = json.loads(built.out)["sections"]
        found.append([(item["id"], item["score"] or 0.0) for section in sections for item in section["items"]])
    return found


def same(one: list[list[tuple[str, float]]], other: list[list[tuple[str, float]]]) -> bool:
    if [[i for i, _ in found] for found in one] != [[i for i, _ in found] for found in other]:
        return False
    scores = [(a, b) for x, y in zip(one, other, strict=True) for (_, a), (_, b) in zip(x, y, strict=True)]
    return all(a == pytest.approx(b, abs=1e-3) for a, b in scores)


@pytest.mark.slow
def test_cold_answers_with_and_without_stored_vectors_and_the_daemons_are_the_same(
    cli_vectors, home: Path, workdir: Path
) -> None:
    assert cli_vectors("mem", "init").code == 0
    for title, body in BILINGUAL:
        assert cli_vectors("mem", "add", title, "--body", body).code == 0, title
    cold = {"AIMATE_NO_DAEMON": "1"}
    stored = home / "state" / FILE
    stored.unlink(missing_ok=True)
    empty = answers(cli_vectors, cold)
    with closing(sqlean.connect(str(stored))) as db:  # the cross-language texts the searches embedded are kept
        assert db.execute("SELECT count(*) FROM vectors").fetchone()[0] > 0
    filled = answers(cli_vectors, cold)
    assert same(filled, empty), (filled, empty)
    # An index that embeds (here: the index rebuilt from the files, as after an import or a clone) stores them
    # ahead of the first questions, in either language (cli/index_commands.py): the same vectors, the same answers.
    stored.unlink()
    for part in home.glob("index.db*"):
        part.unlink()
    reindexed = cli_vectors("mem", "index", env=cold)
    assert reindexed.code == 0, reindexed.err
    assert re.search(r"stored what a first question in the other language reads: [1-9]\d* texts", reindexed.out)
    with closing(sqlean.connect(str(stored))) as db:
        assert db.execute("SELECT count(*) FROM vectors").fetchone()[0] > 0
    ahead = answers(cli_vectors, cold)
    assert same(ahead, empty), (ahead, empty)
    assert all(found for found in empty[::2]), empty  # each question found something
    started = cli_vectors("mem", "daemon", "start", env={"AIMATE_NO_DAEMON": "0"})
    assert started.code == 0, started.err
    try:
        # Asked over the socket, not through `daemon status` (tested in tests/watch/test_daemon_process.py):
        # one CLI process per look every 0.5 s was several processes and up to half a second for the wait.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if (daemon_request(home, {"op": "status"}, 10) or {}).get("model_loaded"):
                break
            time.sleep(0.05)
        warm = answers(cli_vectors, {"AIMATE_NO_DAEMON": "0"})
        assert same(warm, empty), (warm, empty)
    finally:
        cli_vectors("mem", "daemon", "stop", env={"AIMATE_NO_DAEMON": "0"})
