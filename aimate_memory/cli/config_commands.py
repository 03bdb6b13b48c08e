"""`aimate mem config get|set|path`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from aimate_memory.cli.common import open_system
from aimate_memory.cli.render import console, err_console, print_json, print_warning
from aimate_memory.errors import InvalidInputError

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem

commands = typer.Typer()
config_app = typer.Typer(help="Read and change configuration (comments in the file are kept).", no_args_is_help=True)
commands.add_typer(config_app, name="config")

PROJECT = typer.Option(False, "--project-file", help="Use the project's .aimate/config.yaml.")


@config_app.command("get")
def get(
    key: str = typer.Argument(None, help="section.key; omit for everything."),
    as_json: bool = typer.Option(False, "--json", "--as-json", help="Print JSON for tools."),
) -> None:
    """Print the effective value of a key (after files and environment), and on stderr where it came from:
    default, global, project or env (a project sets only the keys docs/reliability.md's trust table allows)."""
    system = open_system(needs_vault=False)
    _say_renamed(system.config.deprecations)
    value = system.config.get(key) if key else system.config.as_dict()
    if as_json or not key or isinstance(value, (dict, list)):
        print_json(value)
    else:
        console.print("null" if value is None else str(value).lower() if isinstance(value, bool) else str(value))
    if key:  # where it came from, on stderr: stdout stays the value alone for scripts
        err_console.print(f"from: {system.config.origin(key)}", highlight=False)


@config_app.command("set")
def set_(key: str, value: str, project_file: bool = PROJECT) -> None:
    """Set KEY to VALUE in the global config file (or the project's with --project-file)."""
    from aimate_memory.config.loader import project_may_set, set_config_value

    if project_file and not project_may_set(key):
        raise InvalidInputError(
            f"{key} comes from your own config only: a project's config may not set it (it would be ignored)",
            'drop --project-file (docs/reliability.md, "Trust model")',
        )
    system = open_system(needs_vault=False)
    path = _target(system, project_file)
    written = set_config_value(path, key, value)
    from aimate_memory.config.defaults import RENAMED_KEYS

    console.print(f"{RENAMED_KEYS.get(key, key)} = {written!r}  ({path})")


@config_app.command("path")
def path(project_file: bool = PROJECT) -> None:
    """Print the path of the config file."""
    console.print(str(_target(open_system(needs_vault=False), project_file)))


def _say_renamed(deprecations: list[str]) -> None:
    for line in deprecations:
        print_warning(f"{line}; `aimate mem config set` writes the new name")


def _target(system: MemorySystem, project_file: bool) -> Path:
    from aimate_memory.config.loader import config_path

    if not project_file:
        return config_path(system.roots.home)
    if system.roots.project is None:
        raise InvalidInputError("not inside a project", "run inside a project or pass --project PATH")
    return config_path(system.roots.project)
