"""Commands for the live vault: watch, daemon {start,stop,status,logs}, maintain, dedupe."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import typer
from rich.markup import escape
from rich.table import Table

from aimate_memory.cli.common import JSON, connect, open_system
from aimate_memory.cli.render import console, print_json, print_warning
from aimate_memory.wording import plural

if TYPE_CHECKING:
    from aimate_memory.vault.anchors import Staleness
    from aimate_memory.watch.service import ServicePlan, ServiceReport

commands = typer.Typer()


daemon_app = typer.Typer(
    help="The background daemon: watching, scheduled maintenance, warm search.", no_args_is_help=True
)
commands.add_typer(daemon_app, name="daemon")


def _home() -> Path:
    from aimate_memory.vault.roots import aimate_home

    return aimate_home()


# -- watch --------------------------------------------------------------------------------------------


@commands.command()
def watch(
    debounce: float = typer.Option(0.3, "--debounce", help="Seconds a file must be quiet before it is indexed."),
) -> None:
    """Run the daemon in the foreground, its log on the terminal (Ctrl-C to stop): the index follows the
    files of the global vault and every registered project (this one included), searches are answered warm."""
    from aimate_memory.errors import AimateError
    from aimate_memory.integrations.daemon import operations as hook_operations
    from aimate_memory.watch.daemon import Daemon
    from aimate_memory.watch.process import ALREADY_RUNNING_EXIT, running_pid

    client = connect()  # registers this project: the daemon watches it
    if not client.has_vault:
        print_warning("no vault to watch; run `aimate mem init`")
        raise typer.Exit(1)
    home = client.roots.home
    code = Daemon(home, debounce=debounce, echo=True, more_operations=hook_operations).run()
    if code == ALREADY_RUNNING_EXIT:
        raise AimateError(
            f"the daemon is already running (pid {running_pid(home)}) and keeps the index in sync",
            "`aimate mem daemon logs` shows what it does; `aimate mem daemon stop` to watch here instead",
        )
    raise typer.Exit(code)


# -- daemon -------------------------------------------------------------------------------------------


@daemon_app.command("start")
def daemon_start() -> None:
    """Start the daemon in the background (one per user)."""
    from aimate_memory.watch.paths import DaemonPaths
    from aimate_memory.watch.process import running_pid, start_daemon

    home = _home()
    before = running_pid(home)
    pid = start_daemon(home)
    if before is not None and before > 0:
        console.print(f"the daemon is already running (pid {pid})")
    else:
        console.print(f"daemon started (pid {pid}); log: {DaemonPaths.of(home).log}")


@daemon_app.command("install")
def daemon_install(
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the service file and commands; change nothing."),
    no_start: bool = typer.Option(False, "--no-start", help="Write the service file only."),
    as_json: bool = JSON,
) -> None:
    """Run the daemon as a user service from login (systemd on Linux, launchd on macOS), so hooks, searches
    and MCP starts are always answered warm. A daemon started by hand is stopped first: the service takes over."""
    from aimate_memory.watch.process import stop_daemon
    from aimate_memory.watch.service import install

    plan = _service_plan()
    if dry_run:
        _print_plan(plan, plan.start, as_json)
        return
    if not no_start:
        stop_daemon(_home())
    report = install(plan, start=not no_start)
    _print_service_report(report, as_json, "file written", plan.start)


@daemon_app.command("uninstall")
def daemon_uninstall(
    dry_run: bool = typer.Option(False, "--dry-run", help="Print what would be stopped and removed."),
    as_json: bool = JSON,
) -> None:
    """Stop the daemon's user service and remove it (`daemon install` undone)."""
    from aimate_memory.watch.service import uninstall

    plan = _service_plan()
    if dry_run:
        _print_plan(plan, plan.stop, as_json)
        return
    report = uninstall(plan)
    if not report.removed and not as_json:
        console.print(f"no service installed ({plan.path} does not exist)")
        return
    _print_service_report(report, as_json, "file removed", plan.stop)


def _service_plan() -> ServicePlan:
    from aimate_memory.errors import AimateError
    from aimate_memory.watch.process import daemon_command
    from aimate_memory.watch.service import service_plan

    home = _home()
    try:
        return service_plan(sys.platform, Path.home(), daemon_command(home), home)
    except ValueError as exc:
        raise AimateError(str(exc), "start it at login yourself: `aimate mem daemon start`") from exc


def _print_plan(plan: ServicePlan, commands: list[list[str]], as_json: bool) -> None:
    import shlex

    if as_json:
        print_json({"manager": plan.manager, "path": str(plan.path), "text": plan.text, "commands": commands})
        return
    console.print(f"# {plan.manager}: {escape(str(plan.path))}", style="dim")
    sys.stdout.write(plan.text)
    for command in commands:
        console.print(f"$ {escape(shlex.join(command))}", style="dim")


def _print_service_report(report: ServiceReport, as_json: bool, done: str, commands: list[list[str]]) -> None:
    import shlex

    from aimate_memory.errors import AimateError

    if as_json:
        print_json(report.to_dict())
    else:
        console.print(f"{report.plan.manager} service {done}: {escape(str(report.plan.path))}")
        for command in report.ran:
            console.print(f"  ran `{escape(command)}`", style="dim")
    if report.failed is not None:
        rest = "; ".join(shlex.join(command) for command in commands)
        raise AimateError(f"the service manager failed: {report.failed}", f"run it yourself: {rest}")


@daemon_app.command("stop")
def daemon_stop() -> None:
    """Stop the daemon after its current task."""
    from aimate_memory.watch.process import stop_daemon

    pid = stop_daemon(_home())
    console.print("the daemon is not running" if pid is None else f"daemon stopped (pid {pid})")


@daemon_app.command("status")
def daemon_status(as_json: bool = JSON) -> None:
    """Running?, pid, uptime, vaults, last refresh and maintenance, queue, errors, memory."""
    from aimate_memory.watch.process import running_pid
    from aimate_memory.watch.transport import daemon_request

    home = _home()
    pid = running_pid(home)
    status = daemon_request(home, {"op": "status"}, timeout=5.0) if pid is not None else None
    if status is None:
        status = {"running": pid is not None, "pid": pid if pid and pid > 0 else None}
        if pid is not None:
            status["note"] = "the daemon holds its lock but does not answer (starting, or busy)"
    status.pop("ok", None)
    if as_json:
        print_json(status)
        return
    if not status.get("running"):
        console.print("the daemon is not running (start it with `aimate mem daemon start`)")
        return
    table = Table(show_header=False, box=None)
    table.add_row("pid", str(status.get("pid")))
    if "uptime_seconds" in status:
        table.add_row("uptime", _duration(status["uptime_seconds"]))
        for vault in status.get("vaults", []):
            table.add_row(
                f"{vault['scope']} vault", f"{escape(vault['root'])} (refreshed {vault['last_refresh'] or 'not yet'})"
            )
        table.add_row("last maintenance", str(status.get("last_maintenance") or "not yet"))
        table.add_row("queue", str(status.get("queue")))
        table.add_row("memory (RSS)", f"{(status.get('rss_bytes') or 0) / 1e6:.0f} MB")
        table.add_row("model loaded", "yes" if status.get("model_loaded") else "no")
        table.add_row("errors", str(len(status.get("errors", []))))
    else:
        table.add_row("note", status.get("note", ""))
    console.print(table)
    for error in status.get("errors", [])[-5:]:
        print_warning(error)


@daemon_app.command("logs")
def daemon_logs(lines: int = typer.Option(50, "--lines", "-n", help="How many lines from the end.")) -> None:
    """Print the end of the daemon's log."""
    from aimate_memory.watch.paths import DaemonPaths

    path = DaemonPaths.of(_home()).log
    if not path.exists():
        console.print(f"no log yet ({path})")
        return
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    sys.stdout.write("\n".join(text[-lines:]) + ("\n" if text else ""))


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h {minutes:02d}m {secs:02d}s" if hours else f"{minutes}m {secs:02d}s"


# -- maintain / dedupe ----------------------------------------------------------------------------------


@commands.command()
def maintain(
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan; change nothing."),
    as_json: bool = JSON,
) -> None:
    """Expire, promote and archive by the lifecycle rules (a read never rewrites a file); report near-duplicates."""
    runs = open_system().upkeep.maintain(dry_run=dry_run)
    if as_json:
        print_json([run.to_dict() for run in runs])
        return
    for run in runs:
        actions = [*run.resumed, *run.actions]
        verb = "would do" if dry_run else "done"
        console.print(f"[bold]{run.scope}[/] vault: {run.to_dict()['summary']}" + (f" ({verb})" if actions else ""))
        if actions:
            table = Table(show_edge=False, box=None, header_style="bold")
            for column in ("action", "memory", "from", "to", "reason"):
                table.add_column(column, overflow="fold")
            for action in actions:
                table.add_row(
                    action.kind + (" (resumed)" if action in run.resumed else ""),
                    escape(action.title),
                    escape(action.rel_path.as_posix()),
                    escape(action.target_rel_path.as_posix()) if action.target_rel_path else "",
                    escape(action.reason),
                )
            console.print(table)
        _print_duplicates(run.duplicates, hint=True)
        _print_stale(run.stale)
        for warning in run.warnings:
            print_warning(warning)


class _Stale(Protocol):
    """What the CLI prints of lifecycle's StaleMemory (the faces may not import lifecycle)."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def stale(self) -> Staleness: ...
    @property
    def propose_archive(self) -> bool: ...


def _print_stale(stale: Sequence[_Stale]) -> None:
    """The possibly stale memories a run found; an archive is proposed, never done (docs/anchors.md)."""
    if not stale:
        return
    console.print(f"{plural(len(stale), 'memory', 'memories')} possibly stale (the code they cite changed):")
    for entry in stale:
        console.print(f"  {entry.id[:8]}  {escape(entry.title)}: [yellow]{escape(entry.stale.describe())}[/]")
        if entry.propose_archive:
            console.print(
                f"    [dim]proposed for archive: deleted over long_term.archive_after_days ago; "
                f"`aimate mem rm {entry.id[:8]}` archives it, `aimate mem verify {entry.id[:8]}` keeps it[/]"
            )


@commands.command()
def dedupe(
    apply: bool = typer.Option(False, "--apply", help="Merge each group into its survivor."),
    as_json: bool = JSON,
) -> None:
    """Find near-duplicate memories (same layer and vault); --apply merges them."""
    runs = open_system().upkeep.dedupe(apply=apply)
    if as_json:
        print_json([run.to_dict() for run in runs])
        return
    for run in runs:
        if not run.duplicates and not run.actions:
            console.print(f"[bold]{run.scope}[/] vault: no near-duplicates")
            continue
        _print_duplicates(run.duplicates, hint=not apply, scope=run.scope)
        if apply and run.changeset:
            console.print(f"[bold]{run.scope}[/] vault: {escape(run.changeset.subject)}")
            for change in run.changeset.changes:
                console.print("  " + escape(change.describe()))
        for warning in run.warnings:
            print_warning(warning)


class _Listed(Protocol):
    @property
    def title(self) -> str: ...
    @property
    def path(self) -> str: ...


class _Duplicates(Protocol):
    """What the CLI prints of lifecycle's DuplicateGroup (the faces may not import lifecycle)."""

    @property
    def survivor(self) -> _Listed: ...
    @property
    def others(self) -> Sequence[tuple[_Listed, float, str]]: ...  # (entry, similarity, method)


def _print_duplicates(groups: Sequence[_Duplicates], hint: bool, scope: str | None = None) -> None:
    if not groups:
        return
    where = f"{scope} vault: " if scope else ""
    console.print(f"{where}{len(groups)} group(s) of near-duplicates:")
    for group in groups:
        console.print(f"  keep [bold]{escape(group.survivor.title)}[/] [dim]{escape(group.survivor.path)}[/]")
        for entry, similarity, method in group.others:
            console.print(f"    ≈ {escape(entry.title)} [dim]{escape(entry.path)}  {similarity:.3f} ({method})[/]")
    if hint:
        console.print("[dim]merge them with `aimate mem dedupe --apply`[/]")
