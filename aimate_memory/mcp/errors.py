"""Failures as tool results: what the client sees is the CLI's `error: …` line and its `hint: …`, never a
traceback. A bug (any exception that is not an AimateError) is one line on stderr plus a generic message;
its traceback goes to `$AIMATE_HOME/state/mcp.log`, where a person can read it."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from aimate_memory.errors import AimateError
from aimate_memory.system.masking import MaskingFormatter, mask_text

LOGGER_NAME = "aimate.mcp"
LOG_FILE = "mcp.log"
BUG_HINT = f"this is a bug in aimate; the traceback is in $AIMATE_HOME/state/{LOG_FILE}"

logger = logging.getLogger(LOGGER_NAME)


@dataclass(frozen=True)
class ToolFailure:
    """An error as the client receives it (`isError: true`, the text as the result's content)."""

    message: str
    hint: str | None = None

    @property
    def text(self) -> str:
        return mask_text(f"error: {self.message}" + (f"\nhint: {self.hint}" if self.hint else ""))


def invalid_arguments(tool: str, fields: list[str], detail: str, parameters: list[str]) -> ToolFailure:
    """Arguments the tool's schema rejects (a missing `query`, `limit='many'`): which ones, and what the tool takes."""
    where = ", ".join(fields) if fields else "arguments"
    return ToolFailure(f"{tool}: invalid {where}: {detail}", f"{tool} takes: {', '.join(parameters)}")


def failure_from(exc: BaseException, tool: str) -> ToolFailure:
    """AimateError → its message and hint; anything else → logged with its traceback, generic to the client."""
    if isinstance(exc, AimateError):
        logger.info("%s: %s", tool, exc.message)
        return ToolFailure(exc.message, exc.hint)
    logger.error("%s failed: %s: %s", tool, type(exc).__name__, exc, exc_info=exc)
    return ToolFailure(f"{tool} failed unexpectedly ({type(exc).__name__})", BUG_HINT)


def configure_logging(state_dir: Path) -> None:
    """Tracebacks and details to `state/mcp.log`; one line per warning or error to stderr (MCP clients
    show a server's stderr in their logs; stdout is the protocol and must stay clean)."""
    logger.setLevel(logging.INFO)
    logger.propagate = False
    if logger.handlers:
        return
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        to_file = logging.FileHandler(state_dir / LOG_FILE, encoding="utf-8")
        to_file.setFormatter(MaskingFormatter("%(asctime)s %(levelname)s %(message)s"))
        logger.addHandler(to_file)
    except OSError:
        pass  # a read-only home must not stop the server; stderr still says what failed
    to_stderr = logging.StreamHandler()
    to_stderr.setLevel(logging.WARNING)
    to_stderr.setFormatter(_OneLine("aimate mcp: %(levelname)s %(message)s"))
    logger.addHandler(to_stderr)


class _OneLine(MaskingFormatter):
    """The message on one line, without the traceback (that belongs in the file), secrets masked."""

    def format(self, record: logging.LogRecord) -> str:
        record.message = record.getMessage().replace("\n", " ")
        return mask_text(self.formatMessage(record))
