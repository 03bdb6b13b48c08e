"""Commands over memory files: init, add, list, show, edit, set, rm, verify, stale, fix, diagnose."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import typer
from rich.markup import escape

from aimate_memory.cli.answers import list_paged, print_added, print_list, print_show, print_stale_view
from aimate_memory.cli.common import (
    JSON,
    NO_REFRESH,
    open_system,
    options,
    vault_client,
    when,
)
from aimate_memory.cli.progress import refreshed
from aimate_memory.cli.render import console, print_json, print_warning
from aimate_memory.cli.served import body_from, run_here, say_made_private, written_conflicts
from aimate_memory.errors import InvalidInputError, MemoryFileError, printable_path
from aimate_memory.system.records import where_to_dict
from aimate_memory.vault.filters import MemoryFilter, parse_layer, parse_scope, parse_statuses
from aimate_memory.vault.lists import split_list
from aimate_memory.wording import plural

commands = typer.Typer()


@commands.command()
def init(
    local: bool = typer.Option(
        False, "--local", help="Keep this project's .aimate/ out of its git repository (.git/info/exclude)."
    ),
) -> None:
    """Create the global vault (and, inside a project, the project vault). Safe to run again."""
    run_here("init", {"local": local}, options.project, options.global_only)  # what `cli.served` answers


@commands.command()
def add(
    title: str = typer.Argument(..., help="Title of the memory."),
    body: str = typer.Option(None, "--body", "-b", help="Body text (Markdown)."),
    file: Path = typer.Option(None, "--file", "-f", help="Read the body from a file."),
    layer: str = typer.Option("long_term", "--layer", "-l", help="core, short_term or long_term."),
    category: str = typer.Option(None, "--category", "-c", help="task, note, context, project, knowledge, decision…"),
    tags: str = typer.Option("", "--tags", "-t", help="Tags separated by commas (, ，), 、 or ;."),
    importance: int = typer.Option(3, "--importance", "-i", min=1, max=5, help="1 (low) to 5 (high)."),
    ttl: float = typer.Option(None, "--ttl", help="Days until a short-term memory expires."),
    scope: str = typer.Option(None, "--scope", "-s", help="global or project (default: project when in one)."),
    allow_secret: bool = typer.Option(False, "--allow-secret", help="Write even if the text looks like a secret."),
    thread: str = typer.Option(
        None, "--thread", help="The conversation it comes from: a search shows a hit's neighbours in it."
    ),
    as_json: bool = JSON,
) -> None:
    """Add a memory. The body comes from --body, --file or standard input. Nothing is written when the
    text is refused (a secret, a control character). A core memory or decision that may contradict an
    active one is written as asked, with a warning naming the other (`--json`: `conflicts`)."""
    text = body_from(body, file)
    system = open_system()
    memory = system.add(
        title,
        text,
        layer=layer,
        category=category,
        tags=tags,
        importance=importance,
        ttl_days=ttl,
        scope=scope,
        allow_secret=allow_secret,
        thread=thread,
    )
    print_added(memory, written_conflicts(system, memory), as_json)


@commands.command("list")
def list_(
    layer: str = typer.Option(None, "--layer", "-l"),
    category: str = typer.Option(None, "--category", "-c"),
    tag: list[str] = typer.Option([], "--tag", "-t", help="Only memories with this tag (repeatable; a,b gives two)."),
    status: str = typer.Option(None, "--status", help="active, pending, archived, expired, superseded, all."),
    scope: str = typer.Option(None, "--scope", "-s"),
    since: str = typer.Option(None, "--since", help="Updated on or after: 2026-03-01, yesterday, 7d, 2w."),
    until: str = typer.Option(None, "--until", help="Updated before this date."),
    limit: int = typer.Option(None, "--limit", "-n", min=1, help="At most this many (newest first)."),
    show_all: bool = typer.Option(False, "--all", help="Every memory, not the first `cli.list_page`."),
    no_refresh: bool = NO_REFRESH,
    as_json: bool = JSON,
) -> None:
    """List memories (default: active and pending ones; at a terminal the newest `cli.list_page`)."""
    where = MemoryFilter(
        layers=(parse_layer(layer),) if layer else (),
        scopes=(parse_scope(scope),) if scope else (),
        categories=(category,) if category else (),
        tags=tuple(split_list(tag)),
        statuses=parse_statuses(status),
        updated_after=when(since, "--since"),
        updated_before=when(until, "--until"),
    )
    page = list_paged(limit, show_all, as_json)
    listed = vault_client().view(
        "list", {"where": where_to_dict(where), "limit": limit, "page": page, "no_refresh": no_refresh}
    )
    print_list(listed, as_json)


@commands.command()
def show(
    ref: str = typer.Argument(..., metavar="ID|PATH"),
    no_refresh: bool = NO_REFRESH,
    as_json: bool = JSON,
    details: bool = typer.Option(
        False, "--details", "-d", help="Also its history, supersede chain, thread neighbours and related memories."
    ),
) -> None:
    """Show one memory: its file exactly as written (with --details, what surrounds it too)."""
    shown = vault_client().view("show", {"ref": ref, "details": details, "no_refresh": no_refresh})
    print_show(shown, as_json, details)


@commands.command()
def edit(ref: str = typer.Argument(..., metavar="ID|PATH|TITLE")) -> None:
    """Open a memory in $EDITOR (a broken file too), then check what was saved; offers to reopen the editor
    when the saved file does not parse."""
    system = open_system()
    vault, rel = system.memories.locate(ref)
    path = vault.abs_path(rel)
    before = path.read_bytes()
    while True:
        _run_editor(path)
        try:
            edited = system.memories.after_edit(vault, rel, before)
        except MemoryFileError as exc:
            if sys.stdin.isatty() and typer.confirm(f"{exc.message}. Open the editor again?", default=True):
                continue
            raise
        break
    console.print(f"saved {edited.scope.value}:{edited.rel_path.as_posix()}")


def _run_editor(path: Path) -> None:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        result = subprocess.run([*shlex.split(editor), str(path)], check=False)
    except FileNotFoundError:
        raise InvalidInputError(
            f"editor not found: {editor}", "set $EDITOR (or $VISUAL) to an installed editor, e.g. EDITOR=nano"
        ) from None
    if result.returncode != 0:
        raise InvalidInputError(f"the editor exited with code {result.returncode}", f"editor was: {editor}")


@commands.command("set")
def set_(
    ref: str = typer.Argument(..., metavar="ID|PATH"),
    assignments: list[str] = typer.Argument(..., metavar="KEY=VALUE..."),
    as_json: bool = JSON,
) -> None:
    """Set fields: title, tags (a,b), importance (1-5), status, category, expires_at, related, confidence."""
    system = open_system()
    from aimate_memory.vault.fields import parse_assignments  # YAML-free but ~15 ms: only `set` needs it

    memory = system.set_fields(ref, parse_assignments(assignments))
    if as_json:
        print_json(memory.public_dict())
    else:
        console.print(f"updated {memory.id[:8]}  {memory.scope.value}:{memory.rel_path.as_posix()}")


@commands.command()
def rm(
    ref: str = typer.Argument(..., metavar="ID|PATH"),
    purge: bool = typer.Option(False, "--purge", help="Delete the file instead of archiving it."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask before --purge."),
) -> None:
    """Archive a memory (moved to archive/, status archived). --purge deletes it."""
    system = open_system()
    if purge and not yes:
        memory = system.get(ref)
        if not sys.stdin.isatty():
            raise InvalidInputError("--purge deletes a file and needs confirmation", "add --yes to confirm")
        typer.confirm(f'Delete "{memory.title}" ({memory.rel_path}) for good?', abort=True)
    memory = system.remove(ref, purge=purge)
    verb = "deleted" if purge else "archived to"
    console.print(f"{verb} {memory.scope.value}:{memory.rel_path.as_posix()}")


@commands.command()
def done(ref: str = typer.Argument(..., metavar="ID|PATH|TITLE")) -> None:
    """Close a task you finished: moved to archive/ with status done (one commit)."""
    memory = open_system().complete(ref)
    console.print(f"done: {memory.title}  → {memory.scope.value}:{memory.rel_path.as_posix()}")


@commands.command()
def verify(ref: str = typer.Argument(..., metavar="ID|PATH|TITLE"), as_json: bool = JSON) -> None:
    """Say a project memory still holds: re-anchor it to the files as they are now (moves followed,
    deleted files dropped) and clear its possibly-stale mark. One commit."""
    system = refreshed(open_system())
    done = system.verify(ref)
    memory = done.memory
    if as_json:
        print_json(
            {
                **memory.public_dict(),
                "was_stale": done.was.to_dict() if done.was is not None else None,
                "stale": None,
            }
        )
        return
    anchored = ", ".join(anchor.path for anchor in memory.anchors) or "no project file"
    console.print(f"verified {memory.id[:8]}  {escape(memory.title)}: anchored to {escape(anchored)}")
    if done.was is not None:
        console.print(f"[dim]was possibly stale: {escape(done.was.describe())}[/]")


@commands.command()
def stale(no_refresh: bool = NO_REFRESH, as_json: bool = JSON) -> None:
    """List the project memories that may be out of date: a file they cite changed, moved or was deleted
    since they were verified. Exit 0 either way."""
    print_stale_view(vault_client().view("stale", {"no_refresh": no_refresh}), as_json)


@commands.command()
def fix(
    dry_run: bool = typer.Option(False, "--dry-run", help="Print what would change."), as_json: bool = JSON
) -> None:
    """Write missing ids and derived fields into hand-made files; give duplicate ids new ones."""
    system = open_system()
    report = system.memories.fix(dry_run=dry_run)
    if as_json:
        print_json(report.to_dict())
        return
    for vault, change in report.changes:
        console.print(f"{vault.scope.value}:{change.describe()}")
    verb = "would fix" if dry_run else "fixed"
    console.print(f"{verb} {plural(len(report.changes), 'file')}")
    say_made_private(report.made_private)
    for warning in report.warnings:
        print_warning(warning)


@commands.command()
def diagnose(no_refresh: bool = NO_REFRESH, as_json: bool = JSON) -> None:
    """List every problem file with path:line and reason, and how the index disagrees with the files or
    the model. Exit 1 when there are problems."""
    system = refreshed(open_system(), no_refresh)
    problems = system.memories.diagnose()
    if as_json:
        print_json(
            [
                {"path": printable_path(p.path), "line": p.line, "kind": p.kind, "reason": p.reason, "hint": p.hint}
                for p in problems
            ]
        )
    else:
        for problem in problems:
            console.print(f"{problem.location}: [red]{problem.kind}[/] {problem.reason}")
            if problem.hint:
                console.print(f"  [dim]hint: {problem.hint}[/]")
        console.print("no problems found" if not problems else f"{len(problems)} problem(s)")
    if problems:
        raise typer.Exit(1)
