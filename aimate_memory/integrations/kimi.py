"""Kimi Code CLI (MoonshotAI/kimi-cli): the MCP server in `mcp.json` and `[[hooks]]` in `config.toml`, both in
its share folder, `$KIMI_SHARE_DIR` or `~/.kimi` (kimi_cli/share.py; not `~/.kimi-code`).

Kimi has no `additionalContext` channel: the prompt hook prints plain text (its docs say exit-0 stdout is
added to the context). In kimi-cli 1.49.0's source the UserPromptSubmit result is only checked for a block,
so AGENTS.md, which Kimi reads, carries the core memories too. Kimi gives hooks no transcript: the prompt hook
records each prompt as a session turn instead."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit

from aimate_memory.errors import InvalidInputError
from aimate_memory.integrations import toml_config
from aimate_memory.integrations.edits import Change, ConfigSyntaxError
from aimate_memory.integrations.json_config import with_mcp_server, without_mcp_server
from aimate_memory.integrations.target import Target

SERVER_NAME = "aimate"
SERVER_ENTRY: dict[str, Any] = {"command": "aimate", "args": ["mem", "mcp"]}
HOOK_COMMANDS: dict[str, str] = {
    "UserPromptSubmit": "aimate mem hook prompt --client kimi",
    "SessionEnd": "aimate mem hook session-end --client kimi",
}


def add_server(text: str | None) -> str | None:
    return with_mcp_server(text, SERVER_NAME, dict(SERVER_ENTRY))


def remove_server(text: str | None) -> str | None:
    return without_mcp_server(text, SERVER_NAME)


def add_hooks(text: str | None) -> str | None:
    doc = toml_config.parse(text)
    hooks = doc.get("hooks")
    present = {entry.get("command") for entry in _entries(hooks)}
    missing = [(event, command) for event, command in HOOK_COMMANDS.items() if command not in present]
    if not missing:
        return text
    created = hooks is None
    if created:
        # An array of tables after whatever the file ends with, which TOML allows.
        hooks = tomlkit.aot()
        if doc.body:
            doc.add(tomlkit.nl())
        doc.append("hooks", hooks)
    for event, command in missing:
        hooks.append(toml_config.table({"event": event, "command": command}, blank_line_after=not created))
    return toml_config.dumps(doc)


def remove_hooks(text: str | None) -> str | None:
    doc = toml_config.parse(text)
    hooks = doc.get("hooks")
    ours = set(HOOK_COMMANDS.values())
    positions = [i for i, entry in enumerate(_entries(hooks)) if entry.get("command") in ours]
    if not positions:
        return text
    for position in reversed(positions):
        del hooks[position]
    if len(hooks) == 0:
        del doc["hooks"]
    return toml_config.dumps(doc)


def share_dir(target: Target) -> Path:
    return target.env_dir("KIMI_SHARE_DIR", ".kimi")


def changes(target: Target, install: bool) -> list[Change]:
    folder = share_dir(target)
    config = folder / "config.toml"
    if install and not config.exists() and (folder / "config.json").exists():
        # Kimi migrates a legacy config.json only while config.toml is missing; creating it would skip that.
        raise InvalidInputError(f"{folder / 'config.json'} has not been migrated yet", "run `kimi` once, then again")
    if install:
        return [Change(folder / "mcp.json", add_server), Change(config, add_hooks)]
    return [Change(folder / "mcp.json", remove_server), Change(config, remove_hooks)]


def _entries(hooks: Any) -> list[Any]:
    if hooks is None:
        return []
    if not isinstance(hooks, list):
        raise ConfigSyntaxError("`hooks` is not an array of tables")
    return [entry if isinstance(entry, dict) else {} for entry in hooks]
