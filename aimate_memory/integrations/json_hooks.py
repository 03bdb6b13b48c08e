"""Hooks in Claude Code's JSON shape, which Codex reads too (`~/.codex/hooks.json`):
`{"hooks": {EVENT: [{"matcher"?: …, "hooks": [{"type": "command", "command": …, …}]}]}}`.

Each of our commands goes in a group of its own, appended after the person's groups (no `matcher`: the event
then fires for every source). Codex keys a hook's trust by its group's position, so appending never moves
a group the person has already trusted. Ours are known by their command (hook_commands.is_our_hook), so
uninstall removes them and nothing else, even from a group the person shares with their own commands."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aimate_memory.integrations.edits import ConfigSyntaxError
from aimate_memory.integrations.hook_commands import is_our_hook
from aimate_memory.integrations.hook_events import Client, HookKind
from aimate_memory.integrations.json_config import dump_like, load_object


@dataclass(frozen=True)
class HookEntry:
    """One of our hooks on one client event; `extra`: more handler fields (Codex's `timeout`)."""

    event: str
    kind: HookKind
    command: str
    extra: Mapping[str, Any] = field(default_factory=dict)

    def handler(self) -> dict[str, Any]:
        return {"type": "command", "command": self.command, **self.extra}


def with_hooks(text: str | None, entries: Sequence[HookEntry], client: Client) -> str | None:
    """`text` with each entry's hook present: added when missing, updated in place when ours is there with
    another command (another vault) or other fields; unchanged text when all are there already."""
    data = load_object(text)
    events = _events(data, create=True)
    changed = False
    for entry in entries:
        groups = events.setdefault(entry.event, [])
        if not isinstance(groups, list):
            raise ConfigSyntaxError(f"`hooks.{entry.event}` is not a list")
        ours: list[dict[str, Any]] = [
            h for g in groups for h in _handlers(g) if is_our_hook(_command(h), entry.kind, client)
        ]
        if not ours:
            groups.append({"hooks": [entry.handler()]})
            changed = True
            continue
        wanted = entry.handler()
        if any(ours[0].get(key) != value for key, value in wanted.items()):
            ours[0].update(wanted)
            changed = True
    return dump_like(data, text) if changed else text


def without_hooks(text: str | None, entries: Sequence[HookEntry], client: Client) -> str | None:
    """`text` without our hooks on the entries' events; a group left empty goes, an event left empty goes,
    and a file holding nothing else is deleted (None)."""
    data = load_object(text)
    events = _events(data, create=False)
    removed = False
    for entry in entries:
        groups = events.get(entry.event)
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            handlers = _handlers(group)
            kept = [h for h in handlers if not is_our_hook(_command(h), entry.kind, client)]
            if len(kept) == len(handlers):
                kept_groups.append(group)
                continue
            removed = True
            if kept:  # the person's own commands in the same group stay
                kept_groups.append({**group, "hooks": kept})
        if kept_groups:
            events[entry.event] = kept_groups
        else:
            del events[entry.event]
    if not removed:
        return text
    if not events:
        del data["hooks"]
    return dump_like(data, text)


def our_positions(text: str | None, entries: Sequence[HookEntry], client: Client) -> list[tuple[str, int, int]]:
    """(event, group index, handler index) of each of our hooks in `text`: Codex's trust keys are made of
    them (codex.trust_keys)."""
    events = _events(load_object(text), create=False)
    positions = []
    for entry in entries:
        groups = events.get(entry.event)
        for group_index, group in enumerate(groups if isinstance(groups, list) else []):
            for handler_index, handler in enumerate(_handlers(group)):
                if is_our_hook(_command(handler), entry.kind, client):
                    positions.append((entry.event, group_index, handler_index))
    return positions


def _events(data: dict[str, Any], create: bool) -> dict[str, Any]:
    events = data.setdefault("hooks", {}) if create else data.get("hooks", {})
    if not isinstance(events, dict):
        raise ConfigSyntaxError("`hooks` is not an object")
    return events


def _handlers(group: Any) -> list[Any]:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return handlers if isinstance(handlers, list) else []


def _command(handler: Any) -> object:
    return handler.get("command") if isinstance(handler, dict) else None
