"""JSON config files edited in place: the user's key order, indentation, non-ASCII text and final newline
are kept; only the keys we add or remove change."""

from __future__ import annotations

import json
import re
from typing import Any

from aimate_memory.integrations.edits import ConfigSyntaxError

DEFAULT_INDENT = "  "
_FIRST_INDENT = re.compile(r"\{[ \t]*\r?\n([ \t]+)\S")


def load_object(text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigSyntaxError(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    if not isinstance(data, dict):
        raise ConfigSyntaxError(f"expected a JSON object at the top, found {type(data).__name__}")
    return data


def dump_like(data: dict[str, Any], original: str | None) -> str | None:
    """`data` as JSON in the style of `original`; None (delete the file) when nothing is left in it."""
    if not data:
        return None
    match = _FIRST_INDENT.search(original or "")
    indent = match.group(1) if match else DEFAULT_INDENT
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    ends_with_newline = original is None or original.endswith("\n") or not original.strip()
    return text + "\n" if ends_with_newline else text


def with_mcp_server(text: str | None, name: str, entry: dict[str, Any]) -> str | None:
    """Add `mcpServers.NAME` unless a server of that name is there: a user's edit of it (say, an absolute
    path to `aimate`) is theirs to keep — only the variables of the entry's `env` (AIMATE_HOME: the vault
    the person installs for) are set in it."""
    data = load_object(text)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigSyntaxError("`mcpServers` is not an object")
    if name not in servers:
        servers[name] = entry
        return dump_like(data, text)
    existing = servers[name]
    wanted = entry.get("env") or {}
    if not isinstance(existing, dict) or not wanted:
        return text
    env = existing.setdefault("env", {})
    if not isinstance(env, dict):
        raise ConfigSyntaxError(f"`mcpServers.{name}.env` is not an object")
    if all(env.get(key) == value for key, value in wanted.items()):
        return text
    env.update(wanted)
    return dump_like(data, text)


def without_mcp_server(text: str | None, name: str) -> str | None:
    data = load_object(text)
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or name not in servers:
        return text
    del servers[name]
    if not servers:
        del data["mcpServers"]
    return dump_like(data, text)
