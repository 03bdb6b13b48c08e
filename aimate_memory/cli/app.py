"""The root `aimate` app and the `mem` group: mounts each command module's commands, handles errors.

Command modules declare their commands on their own `commands` Typer and import shared things from
`cli/common.py`; only this module imports them (imports go down, never back up)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer
import typer.core

from aimate_memory.cli.common import options
from aimate_memory.cli.faults import fault_or_bug
from aimate_memory.cli.render import print_error
from aimate_memory.errors import AimateError

if TYPE_CHECKING:
    # typer 0.28 vendors click as typer._click (its methods take these types) and re-exports neither name;
    # the click package is only a dependency of other packages, and importing it cost 8 ms of a cold start.
    from typer._click import Context, HelpFormatter

# `aimate mem --help` groups its commands (typer's `rich_help_panel`, drawn in click's plain format by
# `GroupedHelp`: rich's help cost 45 ms of a cold --help, see `rich_markup_mode=None` below).
HELP_PANELS: dict[str, tuple[str, ...]] = {
    "Everyday": ("init", "add", "list", "show", "edit", "set", "rm", "done", "search", "recall", "remember", "context",
                 "verify", "stale", "ui"),
    "Assistants": ("install", "uninstall", "agents-md", "session", "mcp", "hook"),
    "Git": ("review", "trust", "untrust", "commit", "diff", "log", "timeline", "sync"),
    "Maintenance": (
        "index", "reindex", "stats", "diagnose", "fix", "maintain", "dedupe", "daemon", "watch",
        "export", "import", "eval", "perf", "config",
    ),
}  # fmt: skip


class GroupedHelp(typer.core.TyperGroup):
    """Click's plain help, with the commands listed under their panels in `HELP_PANELS` order."""

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        listed = [
            (name, command)
            for name in self.list_commands(ctx)
            if (command := self.get_command(ctx, name)) is not None and not command.hidden
        ]
        width = formatter.width - 6 - max((len(name) for name, _ in listed), default=0)
        order = {name: position for names in HELP_PANELS.values() for position, name in enumerate(names)}
        for panel in [*HELP_PANELS, None]:
            rows = [
                (name, command.get_short_help_str(width))
                for name, command in sorted(listed, key=lambda item: order.get(item[0], len(order)))
                if getattr(command, "rich_help_panel", None) == panel
            ]
            if rows:
                with formatter.section(panel or "Commands"):
                    formatter.write_dl(rows)


def _set_panels(groups: list[typer.Typer]) -> None:
    panel_of = {name: panel for panel, names in HELP_PANELS.items() for name in names}
    for group in groups:
        for info in group.registered_commands:
            name = info.name or (info.callback.__name__.rstrip("_").replace("_", "-") if info.callback else "")
            info.rich_help_panel = panel_of.get(name)
        for group_info in group.registered_groups:
            group_info.rich_help_panel = panel_of.get(group_info.name or "")


app = typer.Typer(
    name="aimate",
    help="AIMate: tools for AI coding assistants.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
mem = typer.Typer(
    help="Long-term memory: Markdown files you can read, edit and review in git, with fast search.",
    cls=GroupedHelp,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
app.add_typer(mem, name="mem")

# Each command module and the commands (and command groups) it declares. `main` mounts only the module of
# the command on the command line — every one for `--help`, `mem` alone or a word none declares: importing
# all of them (rich's syntax and tables, the vault's filters, …) was a third of the app's import, paid by every
# command, also one the daemon answers (issue 38). tests/cli/test_fast_entry.py checks this table against
# what the modules declare.
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "memory_commands": (
        "init",
        "add",
        "list",
        "show",
        "edit",
        "set",
        "rm",
        "done",
        "verify",
        "stale",
        "fix",
        "diagnose",
    ),
    "agent_commands": ("remember", "context", "perf", "session"),
    "index_commands": ("index", "reindex", "search", "recall", "eval", "stats"),
    "git_commands": ("review", "commit", "diff", "log", "timeline", "sync", "trust", "untrust"),
    "transfer_commands": ("export", "import"),
    "live_commands": ("watch", "maintain", "dedupe", "daemon"),
    "mcp_commands": ("mcp",),
    "config_commands": ("config",),
    "assistant_commands": ("install", "uninstall", "agents-md", "hook"),
    "ui_commands": ("ui",),
}


def mount_commands(argv: list[str]) -> list[str]:
    """Mount on `mem` the command module(s) `argv` needs (see `COMMAND_MODULES`); their names."""
    command = _command_word(argv)
    names = [name for name, commands in COMMAND_MODULES.items() if command in commands] or list(COMMAND_MODULES)
    groups = [importlib.import_module(f"aimate_memory.cli.{name}").commands for name in names]
    _set_panels(groups)
    for group in groups:
        mem.add_typer(group)
    return names


@app.callback()
def aimate_options(
    version: bool = typer.Option(False, "--version", help="Print the version and exit.", is_eager=True),
) -> None:
    # `aimate --version` alone is answered by the fast path (cli/fast.py); this lists it in --help and
    # serves it in any other spelling.
    if version:
        from aimate_memory.cli.fast import print_version

        print_version()
        raise typer.Exit()


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
    mount_commands(sys.argv[1:])
    dash_query = query_starting_with_dash(sys.argv[1:])
    if dash_query is not None:
        print_error(
            f"no such option: {dash_query}", f"use -- before a query that starts with '-': search -- {dash_query}"
        )
        sys.exit(2)
    try:
        app()
    except AimateError as exc:
        if options.debug:
            raise
        print_error(exc.message, exc.hint)
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # the environment's fault, or a bug: one line, the traceback with --debug
        if options.debug:
            raise
        print_error(*fault_or_bug(exc))
        sys.exit(1)


def query_starting_with_dash(argv: list[str]) -> str | None:
    """`search -foo` / `search "-foo bar"`: click reads the query as an unknown option; name it with a hint.
    Only when `search`/`recall` is the command itself (`add search --body x` is not a search)."""
    command = _command_word(argv)
    if command not in ("search", "recall"):
        return None
    group = typer.main.get_command(mem)
    if not isinstance(group, typer.core.TyperGroup):  # `mem` has many commands: typer makes it a group
        return None
    search = group.commands[command]
    known = {name for param in search.params for name in (*param.opts, *param.secondary_opts)} | {"--help"}
    for arg in argv[argv.index(command) + 1 :]:
        if arg == "--":
            return None
        # A lone "-" is an argument to click, so it is searched as it is.
        if arg.startswith("-") and arg != "-" and arg.split("=", 1)[0] not in known:
            return arg
    return None


def _command_word(argv: list[str]) -> str | None:
    """The `mem` subcommand in `mem [--project PATH | --global | --debug] COMMAND …`, or None."""
    if not argv or argv[0] != "mem":
        return None
    words = iter(argv[1:])
    for word in words:
        if word == "--project":
            next(words, None)  # its value
        elif not word.startswith("-"):
            return word
    return None
