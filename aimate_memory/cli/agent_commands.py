"""Commands agents (and people) use while working: remember, session, context, perf."""

from __future__ import annotations

from typing import Any

import typer

from aimate_memory.cli.answers import print_capture, print_context
from aimate_memory.cli.common import JSON, NO_REFRESH, open_system, options, vault_client
from aimate_memory.cli.progress import refreshed
from aimate_memory.cli.render import console, print_json
from aimate_memory.cli.served import run_here
from aimate_memory.system.records import CaptureRecord, ContextRecord

commands = typer.Typer()
session_commands = typer.Typer(help="The conversation of the current session: start, append, show, end, list.")
commands.add_typer(session_commands, name="session")


@commands.command()
def remember(
    text: str = typer.Argument(..., help="The sentence to remember (a rule, preference, decision, fact, task, note)."),
    kind: str = typer.Option(
        None,
        "--kind",
        "-k",
        help="What it is: rule, preference, decision, knowledge, project, task or note (default: from the text).",
    ),
    force: bool = typer.Option(False, "--force", "-f", help="Write it even when it looks like small talk."),
    confidence: float = typer.Option(None, "--confidence", min=0.0, max=1.0, help="An agent's confidence (0–1)."),
    scope: str = typer.Option(None, "--scope", "-s", help="global or project (default: decided from the text)."),
    source: str = typer.Option("cli", "--source", help="Who captured it (cli, an agent's name, …)."),
    thread: str = typer.Option(None, "--thread", help="The conversation it was said in (see `add --thread`)."),
    keep_both: bool = typer.Option(
        False, "--keep-both", help="Write it even if it may contradict an active core memory or decision."
    ),
    replaces: str = typer.Option(
        None, "--replace", metavar="ID", help="The active memory it replaces (superseded by it): a conflict resolved."
    ),
    no_refresh: bool = NO_REFRESH,
    as_json: bool = JSON,
) -> None:
    """Remember a sentence where it belongs, and say why; small talk, thanks and questions are dropped
    (--force keeps them, --kind says what it is). With --confidence (agents): ≥ 0.85 written, ≥ 0.60 pending
    review, below dropped; an agent's capture into core waits for review. A restatement updates (supersedes)
    the memory it restates. A core memory or decision that may contradict an active one is written pending
    and both are named (`review --accept ID` keeps the new one, `--keep-both` both, `--reject ID` the old);
    --replace ID or --keep-both decide it at once."""
    if keep_both and replaces:
        raise typer.BadParameter("--keep-both keeps the other memory, --replace supersedes it: give one")
    chosen: dict[str, Any] = {
        "confidence": confidence,
        "scope": scope,
        "source": source,
        "thread": thread,
        "kind": kind,
        "force": force,
        "keep_both": keep_both,
        "replaces": replaces,
    }
    if no_refresh:  # the index as it is: in this process (a daemon's is kept fresh by its watcher)
        result = CaptureRecord.of(refreshed(open_system(), no_refresh=True).remember(text, **chosen))
    else:
        # `search_for`: answered here (no daemon), the models load on a thread while the facade is imported —
        # remember searches for what the sentence restates; answered by the daemon, nothing loads here.
        result = vault_client(search_for=text).remember(text, **chosen)
    print_capture(result, as_json)


# The session commands are answered by `cli.served` (in this process, without typer or rich); these declare
# their help and usage, and answer the command lines the fast path leaves to the app the same way.
@session_commands.command("start")
def session_start(
    title: str = typer.Option(None, "--title", "-t", help="What the session is about."),
    replace: bool = typer.Option(False, "--replace", help="End the active session first."),
    as_json: bool = JSON,
) -> None:
    """Start a session (refused while one is active, unless --replace)."""
    _served("session start", {"title": title, "replace": replace, "as_json": as_json})


@session_commands.command("append")
def session_append(
    text: str = typer.Argument(None, help="The turn's text (default: standard input)."),
    role: str = typer.Option(..., "--role", "-r", help="user, assistant, system or tool."),
    tokens: int = typer.Option(None, "--tokens", min=0, help="Its token count (default: estimated)."),
    as_json: bool = JSON,
) -> None:
    """Append one turn (starts a session when none is active); trims the window when it fills."""
    _served("session append", {"argument": text, "role": role, "tokens": tokens, "as_json": as_json})


@session_commands.command("show")
def session_show(ref: str = typer.Argument(None, metavar="[ID]"), as_json: bool = JSON) -> None:
    """Show the running sessions (one per assistant window, and the CLI's), or a past one: every turn, the
    window marked. --json: the session; a list when several are running."""
    _served("session show", {"argument": ref, "as_json": as_json})


@session_commands.command("end")
def session_end(ref: str = typer.Argument(None, metavar="[ID]"), as_json: bool = JSON) -> None:
    """End the active session (or check that ID is it: only the active session can end); maintenance
    files it by month."""
    _served("session end", {"argument": ref, "as_json": as_json})


@session_commands.command("list")
def session_list(as_json: bool = JSON) -> None:
    """Sessions of the current vault: the active one, then past ones, newest first."""
    _served("session list", {"as_json": as_json})


def _served(command: str, fields: dict[str, Any]) -> None:
    run_here(command, fields, options.project, options.global_only)


@commands.command()
def context(
    query: str = typer.Argument(None, help="What the conversation is about (memories relevant to it are added)."),
    budget: int = typer.Option(None, "--budget", min=1, help="Token budget (default: context.total_budget)."),
    no_refresh: bool = NO_REFRESH,
    as_json: bool = JSON,
) -> None:
    """The memory context for a prompt, as Markdown: core, session window, recent and relevant memories."""
    if no_refresh:
        built = ContextRecord.of(refreshed(open_system(search_for=query), no_refresh=True).build_context(query, budget))
    else:
        built = vault_client(search_for=query).build_context(query, budget)
    print_context(built, as_json)


@commands.command()
def perf(as_json: bool = JSON) -> None:
    """Timings of recent operations (search, context build, capture, session append, sync)."""
    stats = open_system().perf.summary()
    if as_json:
        keys = ("operation", "count", "p50_ms", "p95_ms", "max_ms", "slowest_breakdown")
        print_json({"operations": [{key: s.to_dict()[key] for key in keys} for s in stats]})
        return
    if not stats:
        console.print("no operations recorded yet")
    for s in stats:
        parts = ", ".join(f"{key} {value}" for key, value in s.slowest_breakdown.items())
        times = f"p50 {s.p50_ms:8.2f} ms  p95 {s.p95_ms:8.2f} ms  max {s.max_ms:8.2f} ms"
        console.print(f"{s.operation:<15} n={s.count:<6} {times}", markup=False)
        if parts:
            console.print(f"  slowest: {parts}", markup=False)
