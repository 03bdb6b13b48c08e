"""Claude Code: the MCP server in `.mcp.json` (project) or `~/.claude.json` (user scope, where
`claude mcp add --scope user` keeps it), and the hooks in `.claude/settings.json` / `~/.claude/settings.json`
(the JSON shape of json_hooks.py). With AIMATE_HOME set at install, the server's `env` and each hook's
command name that vault (hook_commands.py)."""

from __future__ import annotations

from typing import Any

from aimate_memory.integrations.edits import Change
from aimate_memory.integrations.hook_commands import PROGRAM, hook_command, vault_env
from aimate_memory.integrations.hook_events import Client, HookKind
from aimate_memory.integrations.json_config import with_mcp_server, without_mcp_server
from aimate_memory.integrations.json_hooks import HookEntry, with_hooks, without_hooks
from aimate_memory.integrations.target import Target

SERVER_NAME = "aimate"
SERVER_ENTRY: dict[str, Any] = {"command": "aimate", "args": ["mem", "mcp"]}
HOOK_EVENTS: dict[str, HookKind] = {
    "SessionStart": HookKind.SESSION_START,
    "UserPromptSubmit": HookKind.PROMPT,
    "PreCompact": HookKind.SESSION_END,
    "SessionEnd": HookKind.SESSION_END,
}


def hook_entries(vault: str | None = None, program: str = PROGRAM) -> list[HookEntry]:
    return [
        HookEntry(event, kind, hook_command(kind, Client.CLAUDE, vault, program)) for event, kind in HOOK_EVENTS.items()
    ]


def server_entry(vault: str | None = None, program: str = PROGRAM) -> dict[str, Any]:
    env = vault_env(vault)
    entry = {**SERVER_ENTRY, "command": program}
    return {**entry, "env": env} if env else entry


def add_server(text: str | None, vault: str | None = None, program: str = PROGRAM) -> str | None:
    return with_mcp_server(text, SERVER_NAME, server_entry(vault, program))


def remove_server(text: str | None) -> str | None:
    return without_mcp_server(text, SERVER_NAME)


def add_hooks(text: str | None, vault: str | None = None, program: str = PROGRAM) -> str | None:
    return with_hooks(text, hook_entries(vault, program), Client.CLAUDE)


def remove_hooks(text: str | None) -> str | None:
    return without_hooks(text, hook_entries(), Client.CLAUDE)


def changes(target: Target, install: bool) -> list[Change]:
    if target.user_scope or target.project is None:
        server_file = target.home / ".claude.json"
        settings_file = target.home / ".claude" / "settings.json"
    else:
        server_file = target.project / ".mcp.json"
        settings_file = target.project / ".claude" / "settings.json"
    if install:
        vault, program = target.vault, target.program
        return [
            Change(server_file, lambda text: add_server(text, vault, program)),
            Change(settings_file, lambda text: add_hooks(text, vault, program)),
        ]
    return [Change(server_file, remove_server), Change(settings_file, remove_hooks)]
