"""`aimate mem review | commit | diff | log | sync`."""

from __future__ import annotations

import typer

from aimate_memory.cli.common import open_system
from aimate_memory.git.commands import register

commands = typer.Typer()
register(commands, open_system)
