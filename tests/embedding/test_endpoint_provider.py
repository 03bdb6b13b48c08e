"""The `endpoint` embedding provider (embedding/endpoint_provider.py) against a fake OpenAI-compatible server
this test starts on 127.0.0.1: it embeds, a switch of model re-embeds the vault, and a server that died leaves
the offline model in charge with a warning. Chinese and English."""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.config import load_config
from aimate_memory.config.loader import config_path, set_config_value
from aimate_memory.embedding import create_embedder, endpoint_provider
from aimate_memory.embedding.base import EmbedderUnavailable
from aimate_memory.embedding.endpoint_provider import TIMEOUT_S, EndpointEmbedder
from aimate_memory.embedding.lazy import embedder_for
from aimate_memory.retrieval.hybrid import SearchHit, SearchResponse
from aimate_memory.system import MemorySystem
from aimate_memory.system import reembed as reembed_worker
from aimate_memory.vault.layout import Layer
from aimate_memory.vault.roots import Roots
from tests.conftest import reembedded, seed_models

DIMENSION = 48
KEY = "sk-test-endpoint-key"


class FakeServer:
    """`POST /v1/embeddings`: a bag-of-words vector per text (each word or Han character hashed to a bucket,
    salted by the model's name, so two models give two spaces); every request is recorded."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.keys: list[str | None] = []
        self.held: dict[str, threading.Event] = {}  # by model: its requests (not its probe) wait until set
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                gate = server.held.get(body["model"])
                if gate is not None and body["input"] != ["dimension probe"]:
                    gate.wait(60)
                server.requests.append(body)
                server.keys.append(self.headers.get("Authorization"))
                size = int(body.get("dimensions") or DIMENSION)
                data = [
                    {"index": i, "embedding": bag(text, body["model"], size)} for i, text in enumerate(body["input"])
                ]
                payload = json.dumps({"object": "list", "data": data}).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # a search that did not need the vector left
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)  # stops at once
        self.thread.start()

    def texts(self, model: str) -> list[str]:
        return [text for body in self.requests if body["model"] == model for text in body["input"]]

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def bag(text: str, model: str, size: int) -> list[float]:
    out = np.zeros(size)
    for word in re.findall(r"[a-z0-9]+|[\u4e00-\u9fff]", text.lower()):
        out[int(hashlib.sha256(f"{model}:{word}".encode()).hexdigest(), 16) % size] += 1.0
    out[0] += 0.01  # never a zero vector
    return out.tolist()


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    yield fake
    fake.stop()


def test_it_embeds_with_the_key_from_the_named_variable(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_EMBEDDINGS_KEY", KEY)
    embedder = EndpointEmbedder(server.url, "bge-m3", 0, "MY_EMBEDDINGS_KEY")
    vectors = embedder.embed(["retry with backoff", "重试 等待", "retry with backoff"])
    assert vectors.shape == (3, DIMENSION) and embedder.dimension == DIMENSION
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0) and np.allclose(vectors[0], vectors[2])
    assert float(vectors[0] @ vectors[1]) < 0.99
    assert server.keys and all(key == f"Bearer {KEY}" for key in server.keys)
    assert embedder.identity.startswith("endpoint:bge-m3:48")
    sized = EndpointEmbedder(server.url, "bge-m3", 16)
    assert sized.embed_query("缓存").shape == (16,) and server.requests[-1]["dimensions"] == 16


def test_a_missing_or_dead_server_is_said_at_once(server: FakeServer) -> None:
    with pytest.raises(EmbedderUnavailable, match="base_url"):
        create_embedder({"provider": "endpoint", "model": "bge-m3"})
    url = server.url
    server.stop()
    with pytest.raises(EmbedderUnavailable, match="did not answer"):
        create_embedder({"provider": "endpoint", "base_url": url, "model": "bge-m3"})


def configure(home: Path, **settings: str) -> None:
    for key, value in settings.items():
        set_config_value(config_path(home), f"embedding.{key}", value)


def open_system(home: Path) -> MemorySystem:
    config = load_config(home, None)
    clock = FixedClock(datetime(2026, 5, 1, tzinfo=timezone.utc))
    return MemorySystem(Roots(home, None), config, clock, embedder_for(config, home / "state"))


LINES = ["The retry logic lives in net/retry.py", "重试逻辑在 net/retry.py 里", "Use Kafka as the event broker"]


def retry_first(results: Sequence[SearchHit]) -> bool:
    """The two retry memories (English and Chinese) are the first two results, in either order."""
    return {result.memory.title for result in results[:2]} == {LINES[0], LINES[1]}


def workers_done(timeout: float = 600.0) -> None:
    """Wait until every re-embedding worker this process started has exited. A sync that runs before a
    worker it launched holds its lock (a second or more under load: the worker is a new Python process)
    launches another, which finds nothing to do once the first swapped its index in — but only after it has
    asked the endpoint for its model: were the server stopped first, that straggler would fall back to the
    offline model, refuse to build and record a failure, and the next switch's sync would wait out the
    failure's backoff (index/reembed.py) instead of starting its worker. Waiting on the processes, not a
    fixed time: at load ~25 a worker's start and model load took minutes."""
    for worker in reembed_worker._started:
        worker.wait(timeout)


def progress_shown(system: MemorySystem, query: str, timeout: float = 600.0) -> SearchResponse:
    """The search made once the worker said how much it has to embed (or once no worker runs any more: the
    search then says why). Under load a worker takes a while to start; `timeout` only bounds a hang."""
    index = system.store.index_for(system.global_vault)
    deadline = time.monotonic() + timeout
    while (index.reembedding is None or not index.reembedding.total) and time.monotonic() < deadline:
        if all(worker.poll() is not None for worker in reembed_worker._started):
            break
        time.sleep(0.1)
    return system.search(query, 3)


def vault_on_endpoint(server: FakeServer, tmp_path: Path) -> Path:
    """A home whose global vault holds LINES, embedded by the server's model-a."""
    home = tmp_path / "home"
    home.mkdir()
    configure(home, provider="endpoint", base_url=server.url, model="model-a")
    with open_system(home) as system:
        system.init()
        for line in LINES:
            system.add(line, line, layer=Layer.LONG_TERM)
        system.refresh()
    return home


def test_a_query_the_endpoint_does_not_answer_in_time_is_searched_by_keywords_with_a_warning(
    server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that answered the probe but stalls on a query: the search waits no longer than the probe's
    timeout (shortened here: what is tested is what follows it) and answers by keywords, saying why — in either
    language."""
    home = vault_on_endpoint(server, tmp_path)
    with open_system(home) as system:
        monkeypatch.setattr(endpoint_provider, "PROBE_TIMEOUT_S", 0.2)
        server.held["model-a"] = threading.Event()
        try:
            for question, wanted in (("event broker", LINES[2]), ("重试逻辑", LINES[1])):
                found = system.search(question, 3)
                assert found.mode == "keyword" and found.results[0].memory.title == wanted, found
                assert any("did not answer" in w and "keyword results only" in w for w in found.warnings), found
        finally:
            server.held["model-a"].set()


def test_memories_the_endpoint_stops_embedding_are_searched_by_keywords_and_embedded_later(
    server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that answers the probe but not a batch of memories (timeout shortened here): the sync that
    embeds them leaves them for a later one and the search answers by keywords, saying why, instead of failing;
    once the server answers, the next sync embeds them and search is by vectors again. Both languages."""
    home = tmp_path / "home"
    home.mkdir()
    configure(home, provider="endpoint", base_url=server.url, model="model-a")
    monkeypatch.setattr(endpoint_provider, "TIMEOUT_S", 0.2)
    monkeypatch.setattr(endpoint_provider, "PROBE_TIMEOUT_S", 0.2)
    server.held["model-a"] = threading.Event()
    with open_system(home) as system:
        system.init()
        for line in LINES:
            system.add(line, line, layer=Layer.LONG_TERM)
        try:
            report = system.refresh()["global"]
            assert any("did not answer" in w and "keyword search only" in w for w in report.warnings), report
            for question, wanted in (("event broker", LINES[2]), ("重试逻辑", LINES[1])):
                found = system.search(question, 3)
                assert found.mode == "keyword" and found.results[0].memory.title == wanted, found
                assert any("keyword results only" in w for w in found.warnings), found
        finally:
            server.held["model-a"].set()
        monkeypatch.setattr(endpoint_provider, "TIMEOUT_S", 30.0)
        monkeypatch.setattr(endpoint_provider, "PROBE_TIMEOUT_S", 3.0)
        system.refresh()
        found = system.search("event broker", 3)
        assert found.mode == "hybrid" and not found.warnings and found.results[0].memory.title == LINES[2], found


@pytest.mark.slow
def test_switching_model_re_embeds_in_the_background_and_a_dead_server_falls_back_with_a_warning(
    server: FakeServer, tmp_path: Path, model_cache: Path
) -> None:
    home = vault_on_endpoint(server, tmp_path)
    with open_system(home) as system:
        found = system.search("retry logic", 3)
        assert found.mode == "hybrid" and not found.warnings
        # The retry memory and its translation lead in either language (a question is also compared in the
        # other script: docs/design.md "Across languages"), the Kafka one after them.
        assert retry_first(found.results)
        assert retry_first(system.search("重试逻辑", 3).results)
    assert all(any(line in text for text in server.texts("model-a")) for line in LINES)

    # Another model: the sync that notices answers at once and a worker embeds every memory again, by it;
    # meanwhile searches run on keywords and say how far the re-embedding is, in either language.
    server.held["model-b"] = threading.Event()
    configure(home, model="model-b")
    with open_system(home) as system:
        report = system.refresh()["global"]
        assert not report.rebuilt and any("re-embedding in the background" in w for w in report.warnings)
        system.add("日志统一用 structlog 输出 JSON", "日志统一用 structlog 输出 JSON", layer=Layer.LONG_TERM)
        system.refresh()  # the old index keeps up with the files by keywords
        found = progress_shown(system, "event broker")
        assert found.mode == "keyword" and found.results[0].memory.title == LINES[2]
        # 3 or 4 chunks: whether the worker's walk saw the memory written after it started
        assert any(re.search(r"re-embedded for the new model \(0 of [34] chunks\)", w) for w in found.warnings)
        found = system.search("日志 structlog", 3)
        assert found.mode == "keyword" and found.results[0].memory.title.startswith("日志统一用")
        assert server.texts("model-b") == ["dimension probe"] * len(server.texts("model-b"))  # the worker waits
        server.held["model-b"].set()
        workers_done()
        assert reembedded(system), (home / "state" / "reembed.log").read_text()
        system.refresh()  # the memory written while the worker ran gets its vector now
        found = system.search("event broker", 3)
        assert found.mode == "hybrid" and not found.warnings and found.results[0].memory.title == LINES[2]
        assert system.search("structlog JSON 日志", 3).results[0].memory.title.startswith("日志统一用")
    assert all(any(line in text for text in server.texts("model-b")) for line in LINES)

    workers_done()  # none still starting asks the server for model-b after it stopped
    server.stop()  # the server is gone: the offline model answers, and the search says why
    seed_models(home, model_cache)
    with open_system(home) as system:
        system.refresh()
        workers_done()
        assert reembedded(system), (home / "state" / "reembed.log").read_text()
        found = system.search("where is the retry logic", 3)
        assert found.mode == "hybrid" and retry_first(found.results)
        assert any("did not answer" in warning and "offline model" in warning for warning in found.warnings)


def test_an_unknown_provider_is_refused_at_once_with_the_list(cli) -> None:
    refused = cli("mem", "config", "set", "embedding.provider", "openai")
    assert refused.code != 0
    assert all(name in refused.err for name in ("auto", "fastembed", "use", "endpoint")), refused.err
    assert cli("mem", "config", "set", "embedding.provider", "endpoint").code == 0
    assert cli("mem", "config", "get", "embedding.provider").out.strip() == "endpoint"


@pytest.mark.slow
def test_a_switch_of_model_through_the_cli_answers_at_once_and_says_how_far(
    server: FakeServer, cli_vectors, home: Path
) -> None:
    """The same switch through the real CLI (a process a command): the search after it answers by keywords,
    in either language, while the worker it started waits for the server — at once: it finishes while the
    server still holds every request for the new model, and before the endpoint's request timeout, which a
    search that waited for its query's vector would have sat out (docs/design.md, "A search never waits on the
    endpoint it does not need"). Once the server answers, a search is by vectors again with nothing to warn
    about."""
    settings = {"provider": "endpoint", "base_url": server.url, "model": "model-a"}
    for key, value in settings.items():
        assert cli_vectors("mem", "config", "set", f"embedding.{key}", value).code == 0
    assert cli_vectors("mem", "init").code == 0
    for line in LINES:
        assert cli_vectors("mem", "add", line, "--body", line).code == 0
    assert "Use Kafka" in cli_vectors("mem", "search", "event broker").out

    server.held["model-b"] = threading.Event()
    assert cli_vectors("mem", "config", "set", "embedding.model", "model-b").code == 0
    for question, wanted in (("event broker", "Use Kafka"), ("重试逻辑", "重试逻辑在 net/retry.py 里")):
        found = cli_vectors("mem", "search", question, timeout=TIMEOUT_S)
        assert found.code == 0 and wanted in found.out, found
        assert "re-embed" in found.out + found.err, found
        # nothing of model-b's was answered yet: the search did not get (nor wait for) its query's vector
        assert not server.held["model-b"].is_set() and set(server.texts("model-b")) <= {"dimension probe"}
    server.held["model-b"].set()
    with open_system(home) as system:
        assert reembedded(system), (home / "state" / "reembed.log").read_text()
    found = cli_vectors("mem", "search", "event broker")
    assert "re-embed" not in found.out + found.err and "vector search is off" not in found.out + found.err, found
    assert "Use Kafka" in found.out and all(any(line in t for t in server.texts("model-b")) for line in LINES)
