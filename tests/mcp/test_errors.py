"""A bug inside a tool: the client gets a generic one-line error; the traceback goes to the log only."""

from __future__ import annotations

import logging

import anyio
import pytest

from aimate_memory.errors import NotFoundError
from aimate_memory.mcp.errors import BUG_HINT, LOGGER_NAME, failure_from
from aimate_memory.mcp.server import build_server


def test_aimate_error_keeps_message_and_hint() -> None:
    failure = failure_from(NotFoundError("no memory with id '0958'", "run `aimate mem list` to see ids"), "memory_get")
    assert failure.text == "error: no memory with id '0958'\nhint: run `aimate mem list` to see ids"


def test_unexpected_exception_is_generic_for_the_client_and_logged_whole(caplog: pytest.LogCaptureFixture) -> None:
    def broken_opener():
        raise RuntimeError("secret internals: /home/someone/.aimate/index.db")

    server = build_server(broken_opener)
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME):
        result = anyio.run(server.call_tool, "memory_get", {"id": "0958"})
    server.worker.shutdown()
    assert result.isError is True
    text = result.content[0].text
    assert text == f"error: memory_get failed unexpectedly (RuntimeError)\nhint: {BUG_HINT}"
    logged = [record for record in caplog.records if record.name == LOGGER_NAME and record.exc_info]
    assert logged and "secret internals" in logged[0].getMessage()
