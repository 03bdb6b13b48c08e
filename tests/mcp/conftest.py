"""`aimate mem mcp` as a real subprocess, driven over stdio by the SDK's own client.

The SDK's client is async and its stdio transport must be opened and closed by one task, so a background
event loop holds the session and tests call it synchronously (`server.call("memory_search", query=…)`)."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

from tests.conftest import AIMATE, built_seeded_home, initialized_template, seed_models

CALL_TIMEOUT_S = 120


class McpProcess:
    """One server process and one initialized `ClientSession` on it."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str], elicitation: Any = None) -> None:
        """`elicitation`: the client's answer to the server's `elicitation/create` (the SDK's callback; with
        it the client declares the capability), standing in for the person at the client's form."""
        self.params = StdioServerParameters(command=str(AIMATE), args=args, cwd=str(cwd), env=env)
        self.elicitation = elicitation
        self.session: ClientSession | None = None
        self.initialized: Any = None  # the server's InitializeResult
        self.started = time.perf_counter()
        self._loop = asyncio.new_event_loop()
        self._ready: Future[None] = Future()
        self._closed: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._main(),), daemon=True)
        self._thread.start()
        self._ready.result(timeout=CALL_TIMEOUT_S)

    async def _main(self) -> None:
        self._closed = asyncio.Event()
        try:
            async with (
                stdio_client(self.params) as (read, write),
                ClientSession(read, write, elicitation_callback=self.elicitation) as session,
            ):
                self.initialized = await session.initialize()
                self.session = session
                self._ready.set_result(None)
                await self._closed.wait()
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(exc)

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=CALL_TIMEOUT_S)

    def call(self, tool: str, **arguments: Any) -> CallToolResult:
        assert self.session is not None
        return self.run(self.session.call_tool(tool, arguments))

    def ok(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """The structured result of a call that must succeed."""
        result = self.call(tool, **arguments)
        assert not result.isError, result.content
        assert result.structuredContent is not None
        return result.structuredContent

    def close(self) -> None:
        if self._closed is not None:
            self._loop.call_soon_threadsafe(self._closed.set)
        self._thread.join(timeout=30)


def server_env(home: Path, vectors: bool = False) -> dict[str, str]:
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_NO_DAEMON": "1"}
    if not vectors:
        env["AIMATE_EMBEDDING__ENABLED"] = "false"
    return env


@pytest.fixture
def spawn(home: Path, workdir: Path, request: pytest.FixtureRequest) -> Iterator[Any]:
    """`spawn(*args, cwd=…, vectors=…)` starts `aimate mem mcp ARGS` and returns its McpProcess; with vectors,
    the home has the model cache a first search would have left (conftest's `model_cache`)."""
    started: list[McpProcess] = []

    def start(*args: str, cwd: Path | None = None, vectors: bool = False, env: dict[str, str] | None = None):
        if vectors:
            seed_models(home, request.getfixturevalue("model_cache"))
        process = McpProcess(["mem", "mcp", *args], cwd or workdir, {**server_env(home, vectors), **(env or {})})
        started.append(process)
        return process

    yield start
    for process in started:
        process.close()


def add_two(cli: Any) -> None:
    """One Chinese and one English decision, through the CLI."""
    zh = cli(
        "mem", "add", "选用 Redis 做会话缓存", "--category", "decision", "--tags", "cache,redis",
        "--body", "我们决定用 Redis 做会话缓存：延迟低，支持过期。",
    )  # fmt: skip
    en = cli(
        "mem", "add", "Tests run with pytest", "--category", "decision", "--tags", "testing",
        "--body", "Every test uses pytest fixtures and a temporary AIMATE_HOME.",
    )  # fmt: skip
    assert zh.code == 0 and en.code == 0, zh.err + en.err


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A home with a global vault holding one Chinese and one English memory (read-only tests share it): `init`
    and the two `add`s run once per run (`built_seeded_home`; three processes in each of six modules before),
    each module gets its own copy."""
    root = tmp_path_factory.mktemp("mcp-seeded")
    home, workdir = root / "aimate-home", root / "work"
    workdir.mkdir()
    shutil.copytree(built_seeded_home(tmp_path_factory, "mcp-two", add_two), home, symlinks=True)
    yield home, workdir


@pytest.fixture(scope="module")
def shared(seeded: tuple[Path, Path]) -> Iterator[McpProcess]:
    """One keyword-only server over the seeded home, for tests that only read."""
    home, workdir = seeded
    process = McpProcess(["mem", "mcp"], workdir, server_env(home))
    yield process
    process.close()


@pytest.fixture(scope="module")
def writer_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The home `writer` serves, a fresh global vault (a copy of the `initialized` home), and a folder outside
    any project: for a module's CLI calls on what its tests write through `writer`."""
    root = tmp_path_factory.mktemp("mcp-writer")
    home, workdir = root / "aimate-home", root / "work"
    workdir.mkdir()
    shutil.copytree(initialized_template(tmp_path_factory), home, symlinks=True)
    return home, workdir


@pytest.fixture(scope="module")
def writer(writer_home: tuple[Path, Path]) -> Iterator[McpProcess]:
    """One keyword-only server over `writer_home`, shared by a module's tests that each write memories of their
    own and read back only those: a server's start is ~1.4 s of CPU, and each of them started one. Tests whose
    reads another test's writes could change keep `spawn` (or a server of their own)."""
    home, workdir = writer_home
    process = McpProcess(["mem", "mcp"], workdir, server_env(home))
    yield process
    process.close()
