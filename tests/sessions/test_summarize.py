"""Summaries: the extractive default (zh + en), and an OpenAI-compatible endpoint on a local stub server."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from aimate_memory.sessions import (
    EndpointSummarizer,
    ExtractiveSummarizer,
    SummarizerError,
    Turn,
    summarize_with_fallback,
    summarizer_from_config,
)

T0 = datetime(2026, 11, 24, 10, 0, tzinfo=timezone.utc)
TURNS = [
    Turn("user", T0, 20, "你好！今天天气不错。我们决定用 Redis 做会话缓存，过期时间 30 分钟。"),
    Turn("assistant", T0, 20, "好的。配置写在 config/cache.yaml 里。还有别的吗？"),
    Turn("user", T0, 20, "Thanks, sounds good. We chose SQLite for the local index. See aimate_memory/index/db.py."),
    Turn("assistant", T0, 20, "Great! Anything else?\n```python\nprint('not a sentence')\n```\nThe pool size is 20."),
]


def test_extractive_keeps_decisions_paths_numbers_in_order() -> None:
    summary = ExtractiveSummarizer().summarize(TURNS, max_chars=400)
    lines = summary.split("\n")
    assert lines == [
        "- user: 我们决定用 Redis 做会话缓存，过期时间 30 分钟。",
        "- assistant: 配置写在 config/cache.yaml 里。",
        "- user: We chose SQLite for the local index.",
        "- user: See aimate_memory/index/db.py.",
        "- assistant: The pool size is 20.",
    ]
    assert "天气" not in summary and "Anything else" not in summary and "print" not in summary
    assert ExtractiveSummarizer().summarize(TURNS, max_chars=400) == summary  # deterministic


def test_extractive_is_bounded_and_keeps_the_best_first() -> None:
    summary = ExtractiveSummarizer().summarize(TURNS, max_chars=80)
    assert len(summary) <= 80
    assert "Redis" in summary  # a decision with a number outranks the rest
    chatter = [Turn("user", T0, 3, "hello there"), Turn("assistant", T0, 3, "hi")]
    assert ExtractiveSummarizer().summarize(chatter, max_chars=100) == "- user: hello there"
    assert len(ExtractiveSummarizer().summarize([Turn("user", T0, 1, "x" * 500)], max_chars=50)) <= 50


class _Stub:
    """A chat-completions stub on 127.0.0.1: answers with `reply`, or `status`, after `delay` seconds."""

    def __init__(self) -> None:
        self.reply = "摘要：决定用 Redis。"
        self.status = 200
        self.delay = 0.0
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                stub.requests.append((dict(self.headers), json.loads(self.rfile.read(length))))
                time.sleep(stub.delay)
                body = json.dumps({"choices": [{"message": {"role": "assistant", "content": stub.reply}}]})
                try:
                    self.send_response(stub.status)
                    self.send_header("Content-Type", "application/json")
                    self.end_headers()
                    self.wfile.write(body.encode("utf-8"))
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (the timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


@pytest.fixture
def stub() -> Iterator[_Stub]:
    server = _Stub()
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


def test_endpoint_success(stub: _Stub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_SUMMARY_KEY", "k-123")
    summarizer = EndpointSummarizer(stub.url, "tiny-model", "TEST_SUMMARY_KEY", timeout=5)
    result = summarize_with_fallback(TURNS, 200, summarizer)
    assert (result.text, result.summarizer, result.warning) == ("摘要：决定用 Redis。", "endpoint", None)
    headers, payload = stub.requests[0]
    assert headers["Authorization"] == "Bearer k-123"
    assert payload["model"] == "tiny-model" and payload["messages"][0]["role"] == "system"
    assert (
        "我们决定用 Redis" in payload["messages"][1]["content"]
        and "We chose SQLite" in payload["messages"][1]["content"]
    )


def test_endpoint_answer_is_cut_to_max_chars(stub: _Stub) -> None:
    stub.reply = "The team chose SQLite. " * 20
    assert len(EndpointSummarizer(stub.url, None, None, timeout=5).summarize(TURNS, 50)) == 50
    assert "model" not in stub.requests[0][1]


def test_endpoint_http_500_falls_back_with_a_warning(stub: _Stub) -> None:
    stub.status = 500
    result = summarize_with_fallback(TURNS, 400, EndpointSummarizer(stub.url, None, None, timeout=5))
    assert result.summarizer == "extractive" and "Redis" in result.text
    assert result.warning is not None and "HTTP 500" in result.warning and "extractive" in result.warning


def test_endpoint_timeout_falls_back_with_a_warning(stub: _Stub) -> None:
    stub.delay = 1.5
    started = time.monotonic()
    result = summarize_with_fallback(TURNS, 400, EndpointSummarizer(stub.url, None, None, timeout=0.3))
    assert time.monotonic() - started < 1.4
    assert result.summarizer == "extractive" and result.warning is not None and "timed out" in result.warning


def test_unreachable_endpoint_raises_a_summarizer_error() -> None:
    with pytest.raises(SummarizerError, match="failed"):
        EndpointSummarizer("http://127.0.0.1:9/v1/chat/completions", None, None, timeout=1).summarize(TURNS, 100)


def test_summarizer_from_config() -> None:
    class Config(dict):
        def get(self, key: str, default: Any = None) -> Any:
            return super().get(key, default)

    base = {"summarizer.model": None, "summarizer.api_key_env": "X", "summarizer.timeout_seconds": 20.0}
    assert summarizer_from_config(Config({**base, "summarizer.endpoint": None})) is None
    endpoint = summarizer_from_config(Config({**base, "summarizer.endpoint": "http://127.0.0.1:1/v1/"}))
    assert isinstance(endpoint, EndpointSummarizer) and endpoint.url == "http://127.0.0.1:1/v1/chat/completions"
