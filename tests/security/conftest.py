"""A hostile repository, built the way an attacker would (issue 35), and a local server that records what
reaches it: the tests of tests/security assert that nothing does."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.repos import committed_project
from tests.ui.conftest import browser, page_client, seeded, server  # noqa: F401  (the page's fixtures)


@dataclass
class Recorder:
    """Every request a plain HTTP server on 127.0.0.1 received: method, path, headers, body."""

    url: str = ""
    requests: list[tuple[str, str, dict[str, str], bytes]] = field(default_factory=list)


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    record = Recorder()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            record.requests.append((self.command, self.path, dict(self.headers), body))
            payload = b'{"choices": [{"message": {"role": "assistant", "content": "summary"}}]}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    listening = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    listening.daemon_threads = True
    record.url = f"http://127.0.0.1:{listening.server_address[1]}"
    thread = threading.Thread(target=listening.serve_forever, daemon=True)
    thread.start()
    yield record
    listening.shutdown()
    listening.server_close()


def hostile_project(path: Path, config: str, files: dict[str, str] | None = None) -> Path:
    """A cloned repository whose `.aimate/config.yaml` is `config` (plus `files`), committed on `main`."""
    return committed_project(path, {".aimate/config.yaml": config, "README.md": "# a project\n", **(files or {})})
