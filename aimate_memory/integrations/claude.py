"""Claude Code: the MCP server in `.mcp.json` (project) or `~/.claude.json` (user scope, where
`claude mcp add --scope user` keeps it), and the hooks in `.claude/settings.json` / `~/.claude/settings.json`.

Hook entries have Claude Code's shape, `{"hooks": {EVENT: [{"hooks": [{"type": "command", "command": …}]}]}}`
(no `matcher`: SessionStart and the others then fire for every source). Ours are known by their exact command
strings, so uninstall removes them and nothing else, even from a group the user shares with other commands."""

from __future__ import annotations

from typing import Any

from aimate_memory.integrations.edits import Change, ConfigSyntaxError
from aimate_memory.integrations.json_config import dump_like, load_object, with_mcp_server, without_mcp_server
from aimate_memory.integrations.target import Target

SERVER_NAME = "aimate"
SERVER_ENTRY: dict[str, Any] = {"command": "aimate", "args": ["mem", "mcp"]}
HOOK_COMMANDS: dict[str, str] = {
    "SessionStart": "aimate mem hook session-start",
    "UserPromptSubmit": "aimate mem hook prompt",
    "PreCompact": "aimate mem hook session-end",
    "SessionEnd": "aimate mem hook session-end",
}


def add_server(text: str | None) -> str | None:
    return with_mcp_server(text, SERVER_NAME, dict(SERVER_ENTRY))


def remove_server(text: str | None) -> str | None:
    return without_mcp_server(text, SERVER_NAME)


def add_hooks(text: str | None) -> str | None:
    data = load_object(text)
    events = _hooks_table(data, create=True)
    added = False
    for event, command in HOOK_COMMANDS.items():
        groups = events.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigSyntaxError(f"`hooks.{event}` is not a list")
        if not any(_is_ours(handler, command) for group in groups for handler in _handlers(group)):
            groups.append({"hooks": [{"type": "command", "command": command}]})
            added = True
    return dump_like(data, text) if added else text


def remove_hooks(text: str | None) -> str | None:
    data = load_object(text)
    events = _hooks_table(data, create=False)
    removed = False
    for event, command in HOOK_COMMANDS.items():
        groups = events.get(event)
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            handlers = _handlers(group)
            kept = [handler for handler in handlers if not _is_ours(handler, command)]
            if len(kept) == len(handlers):
                kept_groups.append(group)
                continue
            removed = True
            if kept:  # the user's own commands in the same group stay
                kept_groups.append({**group, "hooks": kept})
        if kept_groups:
            events[event] = kept_groups
        else:
            del events[event]
    if not removed:
        return text
    if not events:
        del data["hooks"]
    return dump_like(data, text)


def changes(target: Target, install: bool) -> list[Change]:
    if target.user_scope or target.project is None:
        server_file = target.home / ".claude.json"
        settings_file = target.home / ".claude" / "settings.json"
    else:
        server_file = target.project / ".mcp.json"
        settings_file = target.project / ".claude" / "settings.json"
    if install:
        return [Change(server_file, add_server), Change(settings_file, add_hooks)]
    return [Change(server_file, remove_server), Change(settings_file, remove_hooks)]


def _hooks_table(data: dict[str, Any], create: bool) -> dict[str, Any]:
    events = data.setdefault("hooks", {}) if create else data.get("hooks", {})
    if not isinstance(events, dict):
        raise ConfigSyntaxError("`hooks` is not an object")
    return events


def _handlers(group: Any) -> list[Any]:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return handlers if isinstance(handlers, list) else []


def _is_ours(handler: Any, command: str) -> bool:
    return isinstance(handler, dict) and handler.get("command") == command
