"""`aimate mem review | commit | diff | log | timeline | sync`: printing over the facade's git actions
(`system/history.py`). The interactive review loop lives here because it is I/O."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from aimate_memory.cli.answers import (
    NOTHING_TO_REVIEW,
    print_outcomes,
    print_possibly_stale,
    print_review_item,
    print_review_list,
    print_timeline,
)
from aimate_memory.cli.common import JSON, open_system, vault_client
from aimate_memory.cli.plain import say
from aimate_memory.cli.render import console, print_json
from aimate_memory.errors import AimateError, InvalidInputError
from aimate_memory.system.records import TimelineRecord
from aimate_memory.vault.layout import Scope
from aimate_memory.wording import plural

if TYPE_CHECKING:
    from rich.table import Table

    from aimate_memory.system import MemorySystem
    from aimate_memory.system.history import HistoryEntry, ReviewItem

commands = typer.Typer()

ALLOW_SECRET = typer.Option(False, "--allow-secret", help="Commit even if a secret is suspected.")


# -- review -----------------------------------------------------------------------------------------


@commands.command()
def review(
    as_json: bool = JSON,
    accept_all: bool = typer.Option(False, "--accept-all", help="Commit every pending change."),
    accept: list[str] = typer.Option(None, "--accept", help="Commit this change (id, id prefix or path); repeatable."),
    reject: list[str] = typer.Option(None, "--reject", help="Undo this change (id, id prefix or path); repeatable."),
    keep_both: bool = typer.Option(
        False, "--keep-both", help="With --accept: keep the memories it may contradict too (not superseded)."
    ),
    replace: list[str] = typer.Option(
        None,
        "--replace",
        metavar="ID",
        help="With one --accept: retire only this of the memories it may contradict (the others stay); repeatable.",
    ),
    allow_secret: bool = ALLOW_SECRET,
) -> None:
    """Review changed memories and pending captures by id: what changed (fields, body), then accept
    (commit), reject (restore) or skip. Files that are not memories (README, sessions) are not listed.
    A capture that may contradict active memories is shown with them: accepting it keeps it and supersedes
    them all, as review lists them (--replace ID only that one, --keep-both none), rejecting it keeps them."""
    if not (accept or reject or accept_all):
        _list_or_walk(as_json, allow_secret)
        return
    decided = {"accept": accept or [], "reject": reject or [], "accept_all": accept_all, "replace": replace or []}
    outcomes = vault_client().view("review", {**decided, "allow_secret": allow_secret, "keep_both": keep_both})
    outcomes = outcomes["outcomes"]
    if as_json:
        print_json(outcomes)
    elif outcomes:
        print_outcomes(outcomes)
    else:
        say(NOTHING_TO_REVIEW)


def _list_or_walk(as_json: bool, allow_secret: bool) -> None:
    """The pending changes: as JSON, printed (through the daemon when one runs), or walked one by one at a
    terminal (here: the answers change the vault as the person gives them)."""
    if sys.stdin.isatty() and not as_json:
        system = open_system()
        items = system.git.pending_changes()
        if items:
            _interactive(system, items, allow_secret)
        else:
            say(NOTHING_TO_REVIEW)
        system.refresh()
        print_possibly_stale([{**m.public_dict(), "stale_text": s.describe()} for m, s in system.stale()])
        return
    print_review_list(vault_client().view("review", {"stale": not as_json}), as_json)


def _interactive(system: MemorySystem, items: list[ReviewItem], allow_secret: bool) -> None:
    for number, item in enumerate(items, start=1):
        change = item.change
        console.rule(f"{number}/{len(items)}")
        print_review_item(item.to_dict())
        if change.status == "conflict":
            console.print("[yellow]holds conflict markers: edit the file to resolve them, then review again[/]")
            continue
        if change.parse_error is not None:  # said by print_review_item; nothing to accept until it parses
            continue
        both = ", keep [b]oth" if item.conflicts else ""
        both += ", accept retiring [o]nly one" if len(item.conflicts) > 1 else ""
        answer = typer.prompt(f"[a]ccept, [r]eject{both}, [d]iff, [s]kip, [q]uit", default="s").strip().lower()[:1]
        if answer == "d":
            console.print(_highlighted_diff(change.diff))
            answer = typer.prompt(f"[a]ccept, [r]eject{both}, [s]kip, [q]uit", default="s").strip().lower()[:1]
        if answer == "q":
            break
        scope = Scope(item.scope)
        try:
            if answer in ("a", "b", "o"):
                only = [typer.prompt("retire which one (id)").strip()] if answer == "o" else []
                accepted = system.git.accept(
                    [change.path.as_posix()],
                    allow_secret=allow_secret,
                    scope=scope,
                    keep_both=answer == "b",
                    replace=only,
                )
                print_outcomes([outcome.to_dict() for outcome in accepted])
            elif answer == "r":
                rejected = system.git.reject([change.path.as_posix()], scope=scope)
                print_outcomes([outcome.to_dict() for outcome in rejected])
        except AimateError as error:
            console.print(f"[red]not done:[/] {escape(error.message)}")
            if error.hint:
                console.print(f"[dim]hint: {escape(error.hint)}[/]")


# -- trust (docs/reliability.md, "Trust model: project vaults and the model's writes") --------------------


@commands.command()
def trust(
    paths: list[str] = typer.Argument(None, metavar="[PATH]...", help="Only these memories (vault paths)."),
    dry_run: bool = typer.Option(False, "--dry-run", "-n", help="List what would be trusted; record nothing."),
    as_json: bool = JSON,
) -> None:
    """Trust this project's memories as they are now, so contexts, searches and the assistant's tools use
    them. A memory someone else adds or changes later (a `git pull`) waits for you again, in `review`."""
    system = open_system()
    report = system.trust.trust(paths or None, dry_run=dry_run)
    if as_json:
        print_json(report.to_dict())
        return
    if not report.memories:
        console.print(f"nothing to trust: every memory of this project is trusted ({report.trusted})")
        return
    for memory in report.memories:
        title = memory.title or memory.path
        kind = "new" if memory.change == "new" else "changed since you trusted it"
        layer = f"{memory.layer}, " if memory.layer else ""
        console.print(f"[bold]{(memory.id or '-' * 8)[:8]}[/] {escape(title)} [dim]({layer}{kind}: {memory.path})[/]")
    count = plural(len(report.memories), "memory", "memories")
    if report.dry_run:
        hint = "run `aimate mem trust` (read them first: `aimate mem show ID`)"
        console.print(f"[dim]{count} would be trusted: {hint}[/]")
    else:
        console.print(f"trusted {count}: they are the team's notes in every context from now on")


@commands.command()
def untrust(
    paths: list[str] = typer.Argument(None, metavar="[PATH]...", help="Only these memories (vault paths)."),
    as_json: bool = JSON,
) -> None:
    """Stop trusting this project's memories (yours too): none reaches a context until `aimate mem trust`."""
    forgotten = open_system().trust.untrust(paths or None)
    if as_json:
        print_json({"untrusted": forgotten})
    else:
        console.print(f"no longer trusted: {plural(forgotten, 'memory', 'memories')} of this project")


# -- commit, diff -----------------------------------------------------------------------------------


@commands.command()
def commit(
    message: str = typer.Option(..., "-m", "--message", help="The commit message."),
    project: bool = typer.Option(False, "--project", help="The project vault (the default inside a project)."),
    allow_secret: bool = ALLOW_SECRET,
    as_json: bool = JSON,
) -> None:
    """Commit hand edits of one vault: the project's inside a project (vault paths only), else the global
    one (`aimate mem --global commit` inside a project)."""
    result = open_system().git.commit(message, scope=Scope.PROJECT if project else None, allow_secret=allow_secret)
    if as_json:
        print_json(result.to_dict())
    elif result.commit is None:
        console.print(f"nothing to commit in the {result.scope} vault")
    else:
        console.print(f"committed {result.commit[:8]} in the {result.scope} vault: {escape(result.message)}")


@commands.command()
def diff(
    ref: str = typer.Argument(None, metavar="[ID|TITLE|PATH]", help="One memory; all changes when omitted."),
    as_json: bool = JSON,
) -> None:
    """Show uncommitted memory changes as a diff."""
    items = open_system().git.diff_changes(ref)
    if as_json:
        print_json([item.to_dict() for item in items])
        return
    text = "".join(item.change.diff for item in items)
    if not text:
        console.print("no uncommitted memory changes")
    elif sys.stdout.isatty():
        console.print(_highlighted_diff(text))
    else:
        sys.stdout.write(text)


# -- log, sync --------------------------------------------------------------------------------------


@commands.command()
def log(
    ref: str = typer.Argument(None, metavar="[ID|TITLE|PATH]", help="One memory (id, title or path)."),
    as_json: bool = JSON,
    limit: int = typer.Option(20, "-n", "--limit", help="Commits to show without ID."),
) -> None:
    """History of one memory across renames and moves, or the latest vault commits."""
    entries = open_system().git.log(ref, limit=limit)
    if as_json:
        print_json([entry.to_dict() for entry in entries])
    else:
        console.print(_log_table(entries))


def _highlighted_diff(text: str) -> Any:
    """A diff coloured for a terminal. rich's syntax module (pygments) is imported here, not with the module:
    `review` and `timeline` — which the daemon answers — never show one (~20 ms of every git command's start)."""
    from rich.syntax import Syntax

    return Syntax(text, "diff", theme="ansi_dark", word_wrap=True)


def _log_table(entries: list[HistoryEntry]) -> Table:
    from rich.table import Table

    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for column in ("commit", "date", "scope", "action", "path", "subject"):
        table.add_column(column, overflow="fold", no_wrap=column in ("commit", "date"))
    for item in entries:
        entry = item.entry
        path = entry.path.as_posix()
        if entry.old_path is not None:
            path = f"{entry.old_path.as_posix()} → {path}"
        table.add_row(entry.commit[:8], entry.date[:19], item.scope, entry.action, escape(path), escape(entry.subject))
    return table


@commands.command()
def timeline(
    since: str = typer.Option(None, "--since", help="Only events since: 7d, 2 weeks, yesterday, 2026-03-01, 昨天."),
    by: str = typer.Option("day", "--by", help="Group by day or by session."),
    limit: int = typer.Option(100, "-n", "--limit", help="The newest N events."),
    scope: str = typer.Option(None, "--scope", "-s", help="global or project (default: both)."),
    as_json: bool = JSON,
) -> None:
    """What the assistant learned and what changed — captures, edits, lifecycle moves — by day or session."""
    if by not in ("day", "session"):
        raise InvalidInputError(f"--by takes day or session, got {by!r}", "e.g. --by session")
    record = TimelineRecord.from_dict(vault_client().view("timeline", {"since": since, "limit": limit, "scope": scope}))
    print_timeline(record, by, since, limit, as_json)


@commands.command()
def sync(
    remote: str = typer.Option(None, "--remote", help="Remote URL (default: git.remote)."),
    join: bool = typer.Option(False, "--join", help="Merge this vault's unrelated history into the remote's, once."),
    status: bool = typer.Option(
        False, "--status", help="Show the last sync (the daemon's or yours), ahead/behind and what was left out."
    ),
    as_json: bool = JSON,
) -> None:
    """Pull and push the global vault (git.remote) on the remote's branch: cross-device sync; never
    force-pushes, stops with the fix when the two sides disagree. With git.remote set, a running daemon
    does this by itself (sync.interval, and after each change)."""
    system = open_system(needs_vault=False)  # a new device's first sync makes the vault from the remote
    if status:
        _print_sync_status(system.git.sync_status(), as_json)
        return
    result = system.git.sync_recorded("cli", remote, join=join).result
    if as_json:
        print_json(result.to_dict())
        return
    console.print(f"sync: {escape(result.summary())}")
    for path in result.conflicts:
        where = escape(str(system.global_vault.abs_path(path)))
        console.print(f"[yellow]conflict:[/] {where} — edit it to resolve, then `aimate mem review`")


def _print_sync_status(status: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(status)
        return
    console.print(f"remote: {escape(str(status['remote'] or 'none (aimate mem config set git.remote URL)'))}")
    last = status["last"]
    if last is None:
        console.print("last sync: never")
    else:
        outcome = escape(last["summary"]) if last["ok"] else f"[red]failed[/]: {escape(last['error'])}"
        console.print(f"last sync: {last['at']} by {last['by']}: {outcome}")
        if not last["ok"] and last.get("last_ok"):
            console.print(f"last successful sync: {last['last_ok']}")
    state = status["state"]
    if state is None:
        console.print("the global vault is not a git repository yet: the first sync makes it")
        return
    if state["ahead"] is None:
        console.print(f"branch {escape(str(state['branch']))}: not fetched from the remote yet")
    else:
        console.print(
            f"branch {escape(str(state['branch']))}: {state['ahead']} commit(s) to send, {state['behind']} to "
            "receive (as of the last fetch)"
        )
    left_out = state["left_out"]
    if left_out:
        console.print(f"left out (uncommitted, not sent): {len(left_out)} file(s) — `aimate mem review` commits them")
        for path in left_out[:10]:
            console.print(f"  {escape(path)}")
