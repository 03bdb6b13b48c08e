"""Codex CLI: `[mcp_servers.aimate]` in `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`).

Codex waits `startup_timeout_sec` (10 s by default) for a server's first answer; ours may load the embedding
model on its first search, so it gets more room. Context reaches Codex through AGENTS.md (see agents_md.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit

from aimate_memory.integrations import toml_config
from aimate_memory.integrations.edits import Change, ConfigSyntaxError
from aimate_memory.integrations.target import Target

SERVER_NAME = "aimate"
SERVER_ENTRY: dict[str, Any] = {"command": "aimate", "args": ["mem", "mcp"], "startup_timeout_sec": 30}


def add_server(text: str | None) -> str | None:
    doc = toml_config.parse(text)
    servers = doc.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc.add("mcp_servers", servers)
    if not isinstance(servers, dict):
        raise ConfigSyntaxError("`mcp_servers` is not a table")
    if SERVER_NAME in servers:  # the user's own edit of our entry is kept
        return text
    servers.add(SERVER_NAME, toml_config.table(SERVER_ENTRY))
    return toml_config.dumps(doc)


def remove_server(text: str | None) -> str | None:
    doc = toml_config.parse(text)
    servers = doc.get("mcp_servers")
    if not isinstance(servers, dict) or SERVER_NAME not in servers:
        return text
    del servers[SERVER_NAME]
    if not servers:
        del doc["mcp_servers"]
    return toml_config.dumps(doc)


def config_file(target: Target) -> Path:
    return target.env_dir("CODEX_HOME", ".codex") / "config.toml"


def user_agents_md(target: Target) -> Path:
    """Codex reads `$CODEX_HOME/AGENTS.md` in every session, before the project's: the person's core goes here."""
    return target.env_dir("CODEX_HOME", ".codex") / "AGENTS.md"


def changes(target: Target, install: bool) -> list[Change]:
    return [Change(config_file(target), add_server if install else remove_server)]
