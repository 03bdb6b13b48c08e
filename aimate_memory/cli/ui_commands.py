"""`aimate mem ui`: the page (aimate_memory/ui, docs/ui.md) on a loopback address, opened in the browser. Starlette,
uvicorn and Jinja2 are imported when the command runs, so no other command pays for them."""

from __future__ import annotations

import typer

from aimate_memory.cli.common import options

commands = typer.Typer()


@commands.command()
def ui(
    port: int = typer.Option(
        0, "--port", "-p", min=0, max=65535, help="Port on the page's loopback address (0: a free one)."
    ),
    no_open: bool = typer.Option(False, "--no-open", help="Print the address; do not open a browser."),
) -> None:
    """Open the page: review captures and edits, see what the assistant will be told, search and browse
    memories (served on a loopback address of its own, 127.x.y.z, with a one-time token; Ctrl+C stops it)."""
    from aimate_memory.ui.serve import serve
    from aimate_memory.watch.client import connect
    from aimate_memory.watch.freshness import WatchedFreshness

    # Long-lived, like the MCP server: a file watcher says what changed instead of a walk before each read.
    client = connect(None, options.project, options.global_only, freshness=WatchedFreshness())
    client.require_vault()
    serve(client, port=port, open_browser=not no_open, say=lambda line: typer.echo(line))
