"""Memories as JSON Lines records and back (pure): what `export` writes and `import` reads.

One record per line: `{"scope", "path", "frontmatter", "body"}` — every frontmatter key in file order
(unknown keys too), timestamps as ISO 8601 strings, the body as it is. A record renders back to the bytes
the tool writes for those fields, so export → import into a fresh home reproduces tool-written files exactly.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import PurePosixPath
from typing import Any

from aimate_memory.vault.codec import MemoryDocument

FORMAT_VERSION = 1
REQUIRED_KEYS = ("id", "title")
# What YAML would have read as a timestamp; such strings go back into the file unquoted, as they came out.
_ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)?$")


class RecordError(ValueError):
    """One line that is not a memory record; the message says why."""


@dataclass(frozen=True)
class MemoryRecord:
    frontmatter: dict[str, Any]
    body: str
    path: PurePosixPath | None = None  # vault-relative; None → where `add` would put it
    scope: str | None = None

    @property
    def id(self) -> str:
        return str(self.frontmatter["id"])

    @property
    def title(self) -> str:
        return str(self.frontmatter.get("title") or "")

    def document(self) -> MemoryDocument:
        from aimate_memory.vault.anchors import anchors_of
        from aimate_memory.vault.store import anchors_value

        meta = {
            # `anchors` in the block style the tool writes (a JSON list would become one flow-style line)
            key: anchors_value(anchors_of(_from_json(value))) if key == "anchors" else _from_json(value)
            for key, value in self.frontmatter.items()
        }
        return MemoryDocument.new(meta, self.body)

    def render(self) -> str:
        return self.document().render()


@dataclass(frozen=True)
class Entry:
    """A record and where it came from: `line` of the input (a JSON Lines line, or where an importer found
    it), in `source` — the file within a folder that was imported (empty for a single file)."""

    line: int
    record: MemoryRecord
    source: str = ""


@dataclass(frozen=True)
class ImportProblem:
    """Input that is not a record: the line (0: the whole file) of `source`, and why."""

    line: int
    detail: str
    source: str = ""


def record_line(scope: str, path: PurePosixPath, meta: Any, body: str) -> str:
    """One export line (no newline) for a memory file's frontmatter mapping and body."""
    record = {"scope": scope, "path": path.as_posix(), "frontmatter": to_json_value(meta), "body": body}
    return json.dumps(record, ensure_ascii=False)


def parse_record(line: str) -> MemoryRecord:
    """A record from one line; RecordError (what is wrong, never a traceback) when it is not one."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as error:
        raise RecordError(f"not JSON: {error.msg} at column {error.colno}") from error
    if not isinstance(data, dict) or not isinstance(data.get("frontmatter"), dict):
        raise RecordError('not a memory record: expected {"frontmatter": {...}, "body": "..."}')
    frontmatter, body = data["frontmatter"], data.get("body", "")
    missing = [key for key in REQUIRED_KEYS if not str(frontmatter.get(key) or "").strip()]
    if missing:
        raise RecordError(f"frontmatter lacks {', '.join(missing)}")
    if not isinstance(body, str):
        raise RecordError("body is not text")
    return MemoryRecord(frontmatter, body, _safe_path(data.get("path")), _scope(data.get("scope")))


def _safe_path(value: Any) -> PurePosixPath | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise RecordError("path is not text")
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts or "\\" in value or "\0" in value:
        raise RecordError(f"path {value} would leave the vault")
    if path.suffix != ".md" or len(path.parts) < 2 or any(part.startswith(".") for part in path.parts):
        raise RecordError(f"path {value} is not a memory file inside a layer folder")
    return path


def _scope(value: Any) -> str | None:
    if value in (None, "", "global", "project"):
        return value or None
    raise RecordError(f"scope {value!r} is neither global nor project")


def to_json_value(value: Any) -> Any:
    """A frontmatter value as JSON data: mappings and lists recursively, times as ISO strings."""
    if isinstance(value, dict):
        return {str(key): to_json_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json_value(item) for item in value]
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return str(value)


def _from_json(value: Any) -> Any:
    if isinstance(value, str) and _ISO_DATETIME.match(value):
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    if isinstance(value, list):
        return [_from_json(item) for item in value]
    if isinstance(value, dict):
        return {key: _from_json(item) for key, item in value.items()}
    return value
