"""What every command module shares: the global options, `open_system`, option declarations (the refresh
shown before a read, `refreshed`, is cli/progress.py's).

Imports only go down from here (render, progress, the facade), so command modules can import it without
importing each other or the app."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from aimate_memory.cli.progress import ShownRefresh, opener
from aimate_memory.cli.served import say_refused_config

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.system.client import RoutedClient

JSON = typer.Option(False, "--json", help="Print JSON for tools.")
# `--no-sync` is the flag's old name, kept as an alias: `aimate mem sync` is git's pull/push (issue 28 §7).
NO_REFRESH = typer.Option(
    False, "--no-refresh", "--no-sync", help="Read the index as it is, without refreshing it from the files first."
)


@dataclass
class Options:
    """`aimate mem [--project PATH | --global] [--debug] COMMAND`: set once by the `mem` callback."""

    project: Path | None = None
    global_only: bool = False
    debug: bool = False

    def set(self, project: Path | None, global_only: bool, debug: bool) -> None:
        self.project = project
        self.global_only = global_only
        self.debug = debug or os.environ.get("AIMATE_DEBUG") == "1"


options = Options()


def connect(search_for: str | None = None) -> RoutedClient:
    """The one client (`system.client`) for this command line's options: the daemon while one answers, else
    the facade here, refreshed before reads as `refreshed` shows it. `search_for`: the query of a command that
    searches (its model starts loading at once)."""
    # Imported there: `aimate --help` must not pay for the facade's imports.
    from aimate_memory.watch.client import connect as connect_client

    opened = opener(options.project, options.global_only, search_for)
    client = connect_client(
        None, options.project, options.global_only, open_system=opened, search_for=search_for, freshness=ShownRefresh()
    )
    say_refused_config(client.roots)
    return client


def vault_client(search_for: str | None = None) -> RoutedClient:
    """`connect`, for a command that reads or changes memories: there must be a vault (see `open_system`)."""
    client = connect(search_for)
    client.require_vault()
    return client


def open_system(search_for: str | None = None, needs_vault: bool = True) -> MemorySystem:
    """The facade for this command line's options (the client's local one); `search_for`: the query of a
    command that searches. Before `init` there is nothing to read or change: a command that `needs_vault`
    says so rather than answer "no memory about that" or "0 memories" (only init, config and sync work
    without one)."""
    client = connect(search_for)
    if needs_vault:
        client.require_vault()
    return client.local.system


def when(value: str | None, option: str) -> datetime | None:
    """A date option (`--since 7d`, `yesterday`, `2026-03-01`, `昨天`) as an aware datetime."""
    from aimate_memory.vault.dates import parse_optional_when

    return parse_optional_when(value, datetime.now().astimezone(), option)
