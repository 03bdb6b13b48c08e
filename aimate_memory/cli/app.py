"""The root `aimate` app and the `mem` group: mounts each command module's commands, handles errors.

Command modules declare their commands on their own `commands` Typer and import shared things from
`cli/common.py`; only this module imports them (imports go down, never back up)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from aimate_memory.cli import (
    config_commands,
    git_commands,
    index_commands,
    live_commands,
    mcp_commands,
    memory_commands,
)
from aimate_memory.cli.common import options
from aimate_memory.cli.render import print_error
from aimate_memory.errors import AimateError

app = typer.Typer(
    name="aimate",
    help="AIMate: tools for AI coding assistants.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
mem = typer.Typer(
    help="Long-term memory: Markdown files you can read, edit and review in git, with fast search.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(mem, name="mem")

# The order here is the order of `aimate mem --help`.
for module in (memory_commands, index_commands, git_commands, live_commands, mcp_commands, config_commands):
    mem.add_typer(module.commands)


@mem.callback()
def mem_options(
    project: Path = typer.Option(None, "--project", help="Use the project at PATH instead of detecting it."),
    global_only: bool = typer.Option(False, "--global", help="Use only the global vault."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors."),
) -> None:
    options.set(project, global_only, debug)


def main() -> None:
    # Standalone mode: typer turns usage errors into exit 2 and `typer.Exit` into its code; what
    # reaches here is ours.
    try:
        app()
    except AimateError as exc:
        if options.debug:
            raise
        print_error(exc.message, exc.hint)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # a bug: one line for the person, the traceback with --debug
        if options.debug:
            raise
        print_error(f"unexpected {type(exc).__name__}: {exc}", "run again with --debug and report the traceback")
        sys.exit(1)
