"""Kimi Code CLI (MoonshotAI/kimi-code, checked at 0.38.0-13-gd723cc47e, 2026-08-22): everything in its home,
`$KIMI_CODE_HOME` or `~/.kimi-code` — the MCP server in `mcp.json` (`mcpServers`, with `env`), `[[hooks]]` in
`config.toml` (exactly `event`, `matcher`, `command`, `timeout`: any other field fails the whole file), and
the person's own instructions in `AGENTS.md` (read in every session, before the project's).

Kimi's hooks take plain text: a UserPromptSubmit hook's stdout (exit 0) is added to the turn's context
(agent-core `session/hooks/user-prompt.ts`); SessionStart's output is ignored, so the prompt hook puts the
session context before a session's first prompt, and AGENTS.md carries the core memories too. Kimi sends a
hook no transcript: the prompt hook records each prompt as a session turn instead.

The archived kimi-cli (1.x, `~/.kimi` or `$KIMI_SHARE_DIR`) is no longer installed into: its `kimi` now only
points at Kimi Code, which migrates `~/.kimi` on its first start. Uninstall still takes our entries out of
its files when they are there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import tomlkit

from aimate_memory.integrations import toml_config
from aimate_memory.integrations.edits import Change, ConfigSyntaxError
from aimate_memory.integrations.hook_commands import PROGRAM, hook_command, is_our_hook, vault_env
from aimate_memory.integrations.hook_events import Client, HookKind
from aimate_memory.integrations.json_config import with_mcp_server, without_mcp_server
from aimate_memory.integrations.target import Target

SERVER_NAME = "aimate"
SERVER_ENTRY: dict[str, Any] = {"command": "aimate", "args": ["mem", "mcp"]}
HOOK_EVENTS: dict[str, HookKind] = {"UserPromptSubmit": HookKind.PROMPT, "SessionEnd": HookKind.SESSION_END}
LEGACY_FILES = ("mcp.json", "config.toml")  # where an older `install kimi` wrote, in kimi-cli's folder


def hook_commands(vault: str | None = None, program: str = PROGRAM) -> dict[str, str]:
    return {event: hook_command(kind, Client.KIMI, vault, program) for event, kind in HOOK_EVENTS.items()}


def add_server(text: str | None, vault: str | None = None, program: str = PROGRAM) -> str | None:
    env = vault_env(vault)
    entry = {**SERVER_ENTRY, "command": program}
    return with_mcp_server(text, SERVER_NAME, {**entry, "env": env} if env else entry)


def remove_server(text: str | None) -> str | None:
    return without_mcp_server(text, SERVER_NAME)


def add_hooks(text: str | None, vault: str | None = None, program: str = PROGRAM) -> str | None:
    """One `[[hooks]]` per event, appended after the person's; ours with another vault's command is updated."""
    doc = toml_config.parse(text)
    hooks = doc.get("hooks")
    entries = _entries(hooks)
    missing = []
    changed = False
    for event, command in hook_commands(vault, program).items():
        ours = [entry for entry in entries if _is_ours(entry, event)]
        if not ours:
            missing.append((event, command))
        elif ours[0].get("command") != command:
            ours[0]["command"] = command
            changed = True
    if not missing:
        return toml_config.dumps(doc) if changed else text
    created = hooks is None
    if hooks is None:
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
    positions = [i for i, entry in enumerate(_entries(hooks)) if any(_is_ours(entry, e) for e in HOOK_EVENTS)]
    if not positions or hooks is None:
        return text
    for position in reversed(positions):
        del hooks[position]
    if len(hooks) == 0:
        del doc["hooks"]
    return toml_config.dumps(doc)


def kimi_home(target: Target) -> Path:
    return target.env_dir("KIMI_CODE_HOME", ".kimi-code")


def legacy_share_dir(target: Target) -> Path:
    """The archived kimi-cli's folder (kimi_cli/share.py)."""
    return target.env_dir("KIMI_SHARE_DIR", ".kimi")


def user_agents_md(target: Target) -> Path:
    """Kimi Code reads `$KIMI_CODE_HOME/AGENTS.md` in every session: the person's core goes here."""
    return kimi_home(target) / "AGENTS.md"


def changes(target: Target, install: bool) -> list[Change]:
    folder = kimi_home(target)
    if install:
        vault, program = target.vault, target.program
        return [
            Change(folder / "mcp.json", lambda text: add_server(text, vault, program)),
            Change(folder / "config.toml", lambda text: add_hooks(text, vault, program)),
        ]
    legacy = [path for path in (legacy_share_dir(target) / name for name in LEGACY_FILES) if path.exists()]
    return [
        Change(path, remove_server if path.name == "mcp.json" else remove_hooks)
        for path in [folder / "mcp.json", folder / "config.toml", *legacy]
    ]


def _is_ours(entry: Any, event: str) -> bool:
    return entry.get("event") == event and is_our_hook(entry.get("command"), HOOK_EVENTS[event], Client.KIMI)


def _entries(hooks: Any) -> list[Any]:
    if hooks is None:
        return []
    if not isinstance(hooks, list):
        raise ConfigSyntaxError("`hooks` is not an array of tables")
    return [entry if isinstance(entry, dict) else {} for entry in hooks]
