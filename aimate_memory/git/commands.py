"""`aimate mem review | commit | diff | log | sync`: the git commands, as plain functions taking a
`MemorySystem` plus `register(app, get_system)` that puts them on a Typer app.

Errors are raised as `AimateError(message, hint)`; the CLI prints them as one line plus a hint.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table

from aimate_memory.errors import AimateError, InvalidInputError, NotFoundError

if TYPE_CHECKING:
    from aimate_memory.git.repo import LogEntry, PendingChange, VaultRepo


def _repo_module():
    # gitpython costs ~100 ms to import: only commands that use git pay for it, not `aimate --help`.
    from aimate_memory.git import repo

    return repo


_console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


@dataclass
class _VaultRepoRef:
    scope: str
    vault: Any  # aimate_memory.vault.store.Vault
    repo: VaultRepo


def _git_settings(system: Any) -> tuple[str | None, list[str]]:
    config = system.config
    return config.get("git.author"), list(config.get("privacy.sensitive_keywords") or [])


def _repos(system: Any, scope: str | None = None) -> list[_VaultRepoRef]:
    """The vaults that are in a git repository, project first."""
    author, _ = _git_settings(system)
    found: list[_VaultRepoRef] = []
    for vault in system.vaults:
        if scope is not None and vault.scope.value != scope:
            continue
        is_global = vault.scope.value == "global"
        if is_global and not (vault.root / ".git").exists():
            continue
        try:
            found.append(
                _VaultRepoRef(
                    vault.scope.value, vault, _repo_module().VaultRepo(vault.root, author, own_repo=is_global)
                )
            )
        except _repo_module().GitError:
            continue
    if not found:
        where = f"the {scope} vault is" if scope else "no vault is"
        raise NotFoundError(
            f"{where} not in a git repository",
            "run `aimate mem init` (the global vault), or `git init` in the project",
        )
    return found


def _close(refs: list[_VaultRepoRef]) -> None:
    for ref in refs:
        ref.repo.close()


def _find_change(refs: list[_VaultRepoRef], path: str) -> tuple[_VaultRepoRef, PendingChange]:
    wanted = PurePosixPath(path)
    for ref in refs:
        candidates = {wanted}
        with contextlib.suppress(AimateError):  # also a path relative to the cwd, or absolute
            candidates.add(ref.vault.rel_path(_abs(path)))
        for change in ref.repo.pending_changes(with_diff=False):
            if candidates & {change.path, change.old_path}:
                return ref, change
    raise NotFoundError(f"no uncommitted memory change at {path}", "run `aimate mem review --json` to list them")


def _tag(scope: str) -> str:
    return escape(f"[{scope}]")


def _abs(path: str) -> Any:
    from pathlib import Path

    return Path(path).expanduser().absolute()


# -- review -----------------------------------------------------------------------------------------


def review_cmd(
    system: Any,
    *,
    json_out: bool = False,
    accept_all: bool = False,
    accept: list[str] | None = None,
    reject: list[str] | None = None,
    allow_secret: bool = False,
    interactive: bool | None = None,
) -> list[dict[str, Any]]:
    """List, accept or reject uncommitted memory changes. Returns what was done (for tests/tools)."""
    _, keywords = _git_settings(system)
    refs = _repos(system)
    done: list[dict[str, Any]] = []
    try:
        if accept or reject:
            for path in reject or []:
                ref, change = _find_change(refs, path)
                for result in ref.repo.reject(change.path):
                    _console.print(f"rejected {_tag(ref.scope)} {escape(result.describe())}")
                    done.append({"scope": ref.scope, "path": str(result.path), "action": "reject"})
            for path in accept or []:
                ref, change = _find_change(refs, path)
                sha = ref.repo.accept(change.path, allow_secret=allow_secret, sensitive_keywords=keywords)
                _console.print(f"accepted {_tag(ref.scope)} {escape(change.describe())} → {(sha or '')[:8]}")
                done.append({"scope": ref.scope, "path": str(change.path), "action": "accept", "commit": sha})
            return done
        pending = [(ref, change) for ref in refs for change in ref.repo.pending_changes()]
        if json_out:
            data = [{"scope": ref.scope, **change.to_dict()} for ref, change in pending]
            _print_json(data)
            return data
        if not pending:
            _console.print("nothing to review: every memory change is committed")
            return done
        if accept_all:
            return _accept_all(pending, allow_secret, keywords)
        if interactive is None:
            interactive = sys.stdin.isatty()
        if not interactive:
            _console.print(_pending_table(pending))
            _console.print(
                "[dim]accept with `aimate mem review --accept PATH` (or --accept-all), "
                "reject with --reject PATH; run in a terminal to review one by one[/]"
            )
            return done
        return _interactive(pending, allow_secret, keywords)
    finally:
        _close(refs)


def _pending_table(pending: list[tuple[_VaultRepoRef, PendingChange]]) -> Table:
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for column in ("scope", "status", "path", "title"):
        table.add_column(column, overflow="fold")
    for ref, change in pending:
        path = change.path.as_posix()
        if change.old_path is not None:
            path = f"{change.old_path.as_posix()} → {path}"
        table.add_row(ref.scope, change.status, escape(path), escape(change.title or ""))
    return table


def _accept_all(
    pending: list[tuple[_VaultRepoRef, PendingChange]], allow_secret: bool, keywords: list[str]
) -> list[dict[str, Any]]:
    done: list[dict[str, Any]] = []
    by_ref: dict[int, tuple[_VaultRepoRef, list[PendingChange]]] = {}
    for ref, change in pending:
        if change.status == "conflict":
            _console.print(
                f"[yellow]skipped[/] {_tag(ref.scope)} {escape(str(change.path))}: resolve its conflict first"
            )
            continue
        by_ref.setdefault(id(ref), (ref, []))[1].append(change)
    for ref, changes in by_ref.values():
        paths = [path for change in changes for path in change.paths]
        body = "\n".join(f"- {change.describe()}: accepted in review" for change in changes)
        subject = f"memory: accept {len(changes)} reviewed change(s)"
        sha = ref.repo.commit_paths(paths, subject, body, allow_secret=allow_secret, sensitive_keywords=keywords)
        _console.print(f"accepted {len(changes)} change(s) in the {ref.scope} vault → {(sha or '')[:8]}")
        done.extend({"scope": ref.scope, "path": str(c.path), "action": "accept", "commit": sha} for c in changes)
    return done


def _interactive(
    pending: list[tuple[_VaultRepoRef, PendingChange]], allow_secret: bool, keywords: list[str]
) -> list[dict[str, Any]]:
    done: list[dict[str, Any]] = []
    for number, (ref, change) in enumerate(pending, start=1):
        _console.rule(f"{number}/{len(pending)} {_tag(ref.scope)} {escape(change.describe())}")
        if change.title:
            _console.print(f"[bold]{escape(change.title)}[/]")
        if change.diff:
            _console.print(Syntax(change.diff, "diff", theme="ansi_dark", word_wrap=True))
        if change.status == "conflict":
            _console.print("[yellow]holds conflict markers: edit the file to resolve them, then review again[/]")
            continue
        answer = typer.prompt("[a]ccept, [r]eject, [s]kip, [q]uit", default="s").strip().lower()[:1]
        if answer == "q":
            break
        if answer == "a":
            try:
                sha = ref.repo.accept(change.path, allow_secret=allow_secret, sensitive_keywords=keywords)
            except AimateError as error:
                _console.print(f"[red]not accepted:[/] {escape(error.message)}")
                if error.hint:
                    _console.print(f"[dim]hint: {escape(error.hint)}[/]")
                continue
            _console.print(f"accepted → {(sha or '')[:8]}")
            done.append({"scope": ref.scope, "path": str(change.path), "action": "accept", "commit": sha})
        elif answer == "r":
            for result in ref.repo.reject(change.path):
                _console.print(f"rejected: {escape(result.describe())}")
            done.append({"scope": ref.scope, "path": str(change.path), "action": "reject"})
    return done


# -- commit -----------------------------------------------------------------------------------------


def commit_cmd(system: Any, message: str, *, project: bool = False, allow_secret: bool = False) -> str | None:
    """Commit every uncommitted memory change of one vault (global, or the project's with --project);
    in a project only vault paths are staged — never the project's other files."""
    if not message or not message.strip():
        raise InvalidInputError("a commit needs a message", "pass -m MESSAGE")
    author, keywords = _git_settings(system)
    scope = "project" if project else "global"
    refs = _repos(system, scope)
    try:
        vault_root = refs[0].vault.root
    finally:
        _close(refs)
    sha = _repo_module().commit_pending(vault_root, message.strip(), author, allow_secret, keywords)
    if sha is None:
        _console.print(f"nothing to commit in the {scope} vault")
    else:
        _console.print(f"committed {sha[:8]} in the {scope} vault: {escape(message.strip())}")
    return sha


# -- diff -------------------------------------------------------------------------------------------


def diff_cmd(system: Any, ref: str | None = None) -> str:
    """Uncommitted changes as a unified diff: all of them, or one memory's (ID or PATH)."""
    refs = _repos(system)
    try:
        chunks: list[str] = []
        if ref is None:
            chunks = [change.diff for r in refs for change in r.repo.pending_changes()]
        else:
            target = _locate(system, refs, ref)
            if target is None:
                raise NotFoundError(f"no uncommitted change for {ref}", "`aimate mem diff` lists every change")
            r, path = target
            chunks = [r.repo.diff(path)]
        text = "".join(chunks)
        if not text:
            _console.print("no uncommitted memory changes")
        elif sys.stdout.isatty():
            _console.print(Syntax(text, "diff", theme="ansi_dark", word_wrap=True))
        else:
            sys.stdout.write(text)
        return text
    finally:
        _close(refs)


def _locate(system: Any, refs: list[_VaultRepoRef], ref: str) -> tuple[_VaultRepoRef, PurePosixPath] | None:
    try:
        r, change = _find_change(refs, ref)
        return r, change.path
    except NotFoundError:
        pass
    memory = system.get(ref)
    for r in refs:
        if r.scope == memory.scope.value:
            return r, memory.rel_path
    return None


# -- log --------------------------------------------------------------------------------------------


def log_cmd(system: Any, ref: str | None = None, *, json_out: bool = False, limit: int = 20) -> list[LogEntry]:
    """One memory's history across renames and lifecycle moves, or the vaults' recent commits."""
    refs = _repos(system)
    try:
        entries: list[tuple[str, LogEntry]] = []
        if ref is None:
            for r in refs:
                entries.extend((r.scope, entry) for entry in r.repo.log_vault(limit))
        else:
            try:
                memory = system.get(ref)
            except AimateError:
                memory = None
            if memory is not None:
                for r in refs:
                    if r.scope == memory.scope.value:
                        entries.extend((r.scope, e) for e in r.repo.log_memory(memory.id, memory.rel_path))
            else:  # an id no longer in the vault (purged): history still knows it
                for r in refs:
                    entries.extend((r.scope, e) for e in r.repo.log_memory(ref))
                if not entries:
                    raise NotFoundError(f"no memory or history for {ref}", "give an id, a title or a path")
        if json_out:
            _print_json([{"scope": scope, **entry.to_dict()} for scope, entry in entries])
        else:
            _console.print(_log_table(entries))
        return [entry for _, entry in entries]
    finally:
        _close(refs)


def _log_table(entries: list[tuple[str, LogEntry]]) -> Table:
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for column in ("commit", "date", "scope", "action", "path", "subject"):
        table.add_column(column, overflow="fold", no_wrap=column in ("commit", "date"))
    for scope, entry in entries:
        path = entry.path.as_posix()
        if entry.old_path is not None:
            path = f"{entry.old_path.as_posix()} → {path}"
        table.add_row(entry.commit[:8], entry.date[:19], scope, entry.action, escape(path), escape(entry.subject))
    return table


# -- sync -------------------------------------------------------------------------------------------


def sync_cmd(system: Any, *, remote: str | None = None, json_out: bool = False) -> Any:
    """Pull and push the global vault through `git.remote` (or --remote)."""
    author, keywords = _git_settings(system)
    remote = remote or system.config.get("git.remote")
    result = _repo_module().sync(system.global_vault.root, remote, author, keywords)
    if json_out:
        _print_json(result.to_dict())
    else:
        _console.print(f"sync: {escape(result.summary())}")
        for path in result.conflicts:
            _console.print(
                f"[yellow]conflict:[/] {escape(str(system.global_vault.abs_path(path)))} — "
                "edit it to resolve, then `aimate mem review`"
            )
    return result


# -- registration -----------------------------------------------------------------------------------


def register(app: typer.Typer, get_system: Callable[..., Any]) -> None:
    """Add `review`, `commit`, `diff`, `log`, `sync` to `app`. `get_system` takes the Typer context
    (or nothing) and returns a MemorySystem."""
    wants_ctx = bool(inspect.signature(get_system).parameters)

    def system_for(ctx: typer.Context) -> Any:
        return get_system(ctx) if wants_ctx else get_system()

    @app.command("review")
    def review(
        ctx: typer.Context,
        json_out: bool = typer.Option(False, "--json", help="Print the pending changes as JSON."),
        accept_all: bool = typer.Option(False, "--accept-all", help="Commit every pending change."),
        accept: list[str] = typer.Option(None, "--accept", help="Commit this change (vault path); repeatable."),
        reject: list[str] = typer.Option(None, "--reject", help="Undo this change (vault path); repeatable."),
        allow_secret: bool = typer.Option(False, "--allow-secret", help="Commit even if a secret is suspected."),
    ) -> None:
        """Review uncommitted memory changes (hand edits, pending captures): accept, reject or skip."""
        review_cmd(
            system_for(ctx),
            json_out=json_out,
            accept_all=accept_all,
            accept=accept or None,
            reject=reject or None,
            allow_secret=allow_secret,
        )

    @app.command("commit")
    def commit(
        ctx: typer.Context,
        message: str = typer.Option(..., "-m", "--message", help="The commit message."),
        project: bool = typer.Option(False, "--project", help="Commit the project vault (vault paths only)."),
        allow_secret: bool = typer.Option(False, "--allow-secret", help="Commit even if a secret is suspected."),
    ) -> None:
        """Commit hand edits of the global vault (or, with --project, of the project vault)."""
        commit_cmd(system_for(ctx), message, project=project, allow_secret=allow_secret)

    @app.command("diff")
    def diff(
        ctx: typer.Context,
        ref: str = typer.Argument(None, metavar="[ID|PATH]", help="One memory; all changes when omitted."),
    ) -> None:
        """Show uncommitted memory changes as a diff."""
        diff_cmd(system_for(ctx), ref)

    @app.command("log")
    def log(
        ctx: typer.Context,
        ref: str = typer.Argument(None, metavar="[ID]", help="One memory (id, title or path)."),
        json_out: bool = typer.Option(False, "--json", help="Print JSON."),
        limit: int = typer.Option(20, "-n", "--limit", help="Commits to show without ID."),
    ) -> None:
        """History of one memory across renames and moves, or the latest vault commits."""
        log_cmd(system_for(ctx), ref, json_out=json_out, limit=limit)

    @app.command("sync")
    def sync_command(
        ctx: typer.Context,
        remote: str = typer.Option(None, "--remote", help="Remote URL (default: git.remote)."),
        json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """Pull and push the global vault (git.remote): cross-device sync; never force-pushes."""
        sync_cmd(system_for(ctx), remote=remote, json_out=json_out)
