"""`aimate mem mcp`: serve the memory to MCP clients (Claude Code, Codex, Cursor, …) over stdio."""

from __future__ import annotations

from pathlib import Path

import typer

from aimate_memory.cli.common import options

commands = typer.Typer()


@commands.command("mcp")
def mcp(
    project: Path = typer.Option(
        None, "--project", help="The project to serve (default: the working directory the client starts it in)."
    ),
) -> None:
    """Run the MCP server over stdio: memory_search, memory_get, memory_remember, … and memory://core."""
    if project is not None:
        options.project = project
    # The same function the fast path (`cli.fast`) runs without typer.
    from aimate_memory.cli.fast import run_mcp_command

    run_mcp_command(options.project, options.global_only)
