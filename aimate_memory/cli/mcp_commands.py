"""`aimate mem mcp`: serve the memory to MCP clients (Claude Code, Codex, Cursor, …) over stdio."""

from __future__ import annotations

from pathlib import Path

import typer

from aimate_memory.cli.common import open_system, options

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
    # Imported here: every other command must not pay for the SDK (~0.4 s).
    from aimate_memory.mcp.server import serve

    serve(open_system, project=options.project, global_only=options.global_only)
