"""The root `aimate` app, the `mem` group, shared options, and error handling."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import typer

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


@dataclass
class Options:
    project: Path | None = None
    global_only: bool = False
    debug: bool = False


_options = Options()


@mem.callback()
def mem_options(
    project: Path = typer.Option(None, "--project", help="Use the project at PATH instead of detecting it."),
    global_only: bool = typer.Option(False, "--global", help="Use only the global vault."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors."),
) -> None:
    _options.project = project
    _options.global_only = global_only
    _options.debug = debug or os.environ.get("AIMATE_DEBUG") == "1"


def open_system():  # -> MemorySystem; imported lazily to keep `--help` fast
    from aimate_memory.system import MemorySystem

    system = MemorySystem.open(project=_options.project, global_only=_options.global_only)
    if system.project_vault is not None and system.project_vault.exists:
        # Using the CLI in a project registers it, so the daemon watches its vault too (DESIGN §6).
        from aimate_memory.watch.daemon import register_project

        register_project(system.roots.home, system.project_vault.root.parent)
    return system


def main() -> None:
    # Command modules register themselves on `mem` when imported.
    from aimate_memory.cli import config_commands, index_commands, live_commands, memory_commands  # noqa: F401
    from aimate_memory.git.commands import register as register_git_commands

    register_git_commands(mem, open_system)

    # Standalone mode: typer turns usage errors into exit 2 and `typer.Exit` into its code; what
    # reaches here is ours.
    try:
        app()
    except AimateError as exc:
        if _options.debug:
            raise
        print_error(exc.message, exc.hint)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # a bug: one line for the person, the traceback with --debug
        if _options.debug:
            raise
        print_error(f"unexpected {type(exc).__name__}: {exc}", "run again with --debug and report the traceback")
        sys.exit(1)
