"""Codex CLI: `[mcp_servers.aimate]` in `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`) and our
hooks in `$CODEX_HOME/hooks.json`, Claude Code's JSON shape (json_hooks.py).

What Codex 0.169.0 does, read from its binary (`codex features list`, `codex app-server` → `hooks/list`) and
openai/codex `codex-rs/hooks` (docs/agents.md, "Codex"):
- hooks are the `hooks` feature, stable and on by default; `codex_hooks` is its deprecated alias. We write
  `[features] hooks = true` (marked with our comment, so uninstall knows it is ours) unless the person set
  either key; a person's `false` is theirs, and install says hooks are off;
- `~/.codex/hooks.json` is read beside the user config layer; events SessionStart, UserPromptSubmit,
  PreCompact, SessionEnd (and others); SessionEnd's timeout is clamped to 3 s (others default to 600 s);
- a hook runs only once the person trusts it: Codex asks once, then keeps `[hooks.state."<hooks.json
  path>:<event>:<group>:<handler>"] trusted_hash = …` in config.toml. Uninstall removes those of our hooks.

Codex waits `startup_timeout_sec` (10 s by default) for a server's first answer; ours may load the embedding
model on its first search, so it gets more room."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.items import Item, Table

from aimate_memory.integrations import toml_config
from aimate_memory.integrations.edits import Change, ConfigSyntaxError, read_text
from aimate_memory.integrations.hook_commands import PROGRAM, VAULT_VARIABLE, hook_command
from aimate_memory.integrations.hook_events import Client, HookKind
from aimate_memory.integrations.json_hooks import HookEntry, our_positions, with_hooks, without_hooks
from aimate_memory.integrations.target import Target

SERVER_NAME = "aimate"
SERVER_ENTRY: dict[str, Any] = {"command": "aimate", "args": ["mem", "mcp"], "startup_timeout_sec": 30}
HOOK_EVENTS: dict[str, HookKind] = {
    "SessionStart": HookKind.SESSION_START,
    "UserPromptSubmit": HookKind.PROMPT,
    "PreCompact": HookKind.SESSION_END,
    "SessionEnd": HookKind.SESSION_END,
}
# Codex clamps a SessionEnd hook to 3 s (its warning when given more); the 1 s it gives by default is less
# than a cold session-end takes on a loaded machine (docs/agents.md, "Latency").
EXTRA_FIELDS: dict[str, dict[str, Any]] = {"SessionEnd": {"timeout": 3}}
FEATURE = "hooks"
LEGACY_FEATURE = "codex_hooks"
OUR_MARK = "# added by `aimate mem install codex`"


def hook_entries(vault: str | None = None, program: str = PROGRAM) -> list[HookEntry]:
    return [
        HookEntry(event, kind, hook_command(kind, Client.CODEX, vault, program), EXTRA_FIELDS.get(event, {}))
        for event, kind in HOOK_EVENTS.items()
    ]


# -- config.toml: the server ----------------------------------------------------------------------------


def add_server(text: str | None, vault: str | None = None, program: str = PROGRAM) -> str | None:
    """Add `[mcp_servers.aimate]` (with `[mcp_servers.aimate.env]` naming the vault); a server of that name
    that is there already is the person's to keep, only its AIMATE_HOME is set."""
    doc = toml_config.parse(text)
    servers = doc.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc.add("mcp_servers", servers)
    if not isinstance(servers, dict):
        raise ConfigSyntaxError("`mcp_servers` is not a table")
    if SERVER_NAME not in servers:
        entry = toml_config.table({**SERVER_ENTRY, "command": program}, blank_line_after=vault is None)
        if vault:
            entry.add("env", toml_config.table({VAULT_VARIABLE: vault}))
        servers[SERVER_NAME] = entry
        return toml_config.dumps(doc)
    existing = servers[SERVER_NAME]
    if not vault or not isinstance(existing, dict):
        return text
    env = existing.get("env")
    if env is None:
        existing["env"] = toml_config.table({VAULT_VARIABLE: vault})
    elif not isinstance(env, dict):
        raise ConfigSyntaxError(f"`mcp_servers.{SERVER_NAME}.env` is not a table")
    elif env.get(VAULT_VARIABLE) == vault:
        return text
    else:
        env[VAULT_VARIABLE] = vault
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


# -- config.toml: the feature flag and the trust Codex keeps ---------------------------------------------


def hooks_feature(text: str | None) -> bool | None:
    """The person's setting of Codex's hooks feature (either key), None when they set none."""
    features = toml_config.parse(text).get("features")
    if not isinstance(features, dict):
        return None
    for key in (FEATURE, LEGACY_FEATURE):
        value = features.get(key)
        if isinstance(value, bool):
            return value
    return None


def add_feature(text: str | None) -> str | None:
    """`[features] hooks = true`, marked as ours, unless the person set `hooks` or `codex_hooks`."""
    doc = toml_config.parse(text)
    features = doc.get("features")
    if features is not None and not isinstance(features, dict):
        raise ConfigSyntaxError("`features` is not a table")
    if features is not None and (FEATURE in features or LEGACY_FEATURE in features):
        return text
    flag = tomlkit.item(True)
    flag.comment(OUR_MARK)
    if features is None:
        features = tomlkit.table()
        features.add(FEATURE, flag)
        if doc.body:
            doc.add(tomlkit.nl())
        doc.add("features", features)
    else:
        features[FEATURE] = flag
    return toml_config.dumps(doc)


def remove_feature(text: str | None) -> str | None:
    """Take out `hooks = true` only when it carries our mark; `[features]` goes when nothing is left in it."""
    doc = toml_config.parse(text)
    # The `[features]` table holding the flag: one of the pieces when the table is split across the file.
    holder = next(
        (
            item
            for key, item in doc.body
            if key is not None and key.key == "features" and isinstance(item, Table) and FEATURE in item
        ),
        None,
    )
    if holder is None:
        return text
    flag = holder.item(FEATURE)
    if not isinstance(flag, Item) or flag.trivia.comment.strip() != OUR_MARK:
        return text
    del holder[FEATURE]
    features = doc.get("features")
    if isinstance(features, dict) and not features:
        del doc["features"]
    return toml_config.dumps(doc)


def trust_keys(hooks_path: Path, hooks_text: str | None) -> list[str]:
    """The keys under which Codex keeps its trust in our hooks (`<path>:<event in snake case>:<group>:<handler>`,
    as `codex app-server`'s `hooks/list` shows them)."""
    return [
        f"{hooks_path}:{_snake(event)}:{group}:{handler}"
        for event, group, handler in our_positions(hooks_text, hook_entries(), Client.CODEX)
    ]


def remove_trust(text: str | None, keys: list[str]) -> str | None:
    """`[hooks.state."KEY"]` of each key out; `[hooks.state]` and `[hooks]` go when left empty."""
    doc = toml_config.parse(text)
    hooks = doc.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    if not isinstance(hooks, dict) or not isinstance(state, dict) or not any(key in state for key in keys):
        return text
    for key in keys:
        if key in state:
            del state[key]
    if not state:
        del hooks["state"]
    if not hooks:
        del doc["hooks"]
    return toml_config.dumps(doc)


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


# -- hooks.json ------------------------------------------------------------------------------------------


def add_hooks(text: str | None, vault: str | None = None, program: str = PROGRAM) -> str | None:
    return with_hooks(text, hook_entries(vault, program), Client.CODEX)


def remove_hooks(text: str | None) -> str | None:
    return without_hooks(text, hook_entries(), Client.CODEX)


# -- where ---------------------------------------------------------------------------------------------


def codex_home(target: Target) -> Path:
    return target.env_dir("CODEX_HOME", ".codex")


def config_file(target: Target) -> Path:
    return codex_home(target) / "config.toml"


def hooks_file(target: Target) -> Path:
    return codex_home(target) / "hooks.json"


def user_agents_md(target: Target) -> Path:
    """Codex reads `$CODEX_HOME/AGENTS.md` in every session, before the project's: the person's core goes here."""
    return codex_home(target) / "AGENTS.md"


def changes(target: Target, install: bool) -> list[Change]:
    config, hooks = config_file(target), hooks_file(target)
    if install:
        vault, program = target.vault, target.program
        return [
            Change(config, lambda text: add_feature(add_server(text, vault, program))),
            Change(hooks, lambda text: add_hooks(text, vault, program)),
        ]
    try:
        keys = trust_keys(hooks, read_text(hooks))
    except ConfigSyntaxError:
        keys = []  # planning the hooks.json change names the broken file
    return [
        Change(config, lambda text: remove_trust(remove_feature(remove_server(text)), keys)),
        Change(hooks, remove_hooks),
    ]
