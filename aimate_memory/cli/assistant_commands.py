"""`aimate mem install|uninstall claude|codex|kimi`, `aimate mem hook …` (run by the assistants) and
`aimate mem agents-md`."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from aimate_memory.cli.common import open_system, options
from aimate_memory.cli.progress import prepare_models_ahead
from aimate_memory.cli.render import console
from aimate_memory.integrations.hook_commands import PROGRAM
from aimate_memory.vault.layout import Scope

if TYPE_CHECKING:
    from aimate_memory.integrations.edits import Change, FileEdit

commands = typer.Typer()
hook_app = typer.Typer(
    help="What the assistants run: JSON on stdin, context on stdout; never fails (errors go to state/hooks.log).",
    no_args_is_help=True,
)
commands.add_typer(hook_app, name="hook")


class Assistant(str, Enum):
    CLAUDE = "claude"
    CODEX = "codex"
    KIMI = "kimi"


class HookClient(str, Enum):
    CLAUDE = "claude"
    CODEX = "codex"
    KIMI = "kimi"


PROJECT = typer.Option(None, "--project", help="The project folder (default: the current project).")
USER = typer.Option(
    False,
    "--user",
    help="User scope only: ~/.claude.json, ~/.claude/settings.json, ~/.codex, ~/.kimi-code; no project files.",
)
DRY_RUN = typer.Option(False, "--dry-run", help="Print the diff of every file; write nothing.")
NO_DAEMON = typer.Option(
    False, "--no-daemon", help="Set up no warm daemon (by default: a user service, else autostart)."
)
CLIENT = typer.Option(HookClient.CLAUDE, "--client", help="Which assistant runs the hook (output, session keys).")
# Codex and Kimi read a project's AGENTS.md (it gets the project's core) and a user-level one of their own
# ($CODEX_HOME/AGENTS.md, $KIMI_CODE_HOME/AGENTS.md: the person's core). Claude Code gets both through its
# SessionStart hook (docs/agents.md, "What goes where").
AGENTS_MD_CLIENTS = (Assistant.CODEX, Assistant.KIMI)
USER_AGENTS_MD_CLIENTS = (Assistant.CODEX, Assistant.KIMI)


@commands.command("install")
def install(
    assistant: Assistant,
    project: Path = PROJECT,
    user: bool = USER,
    dry_run: bool = DRY_RUN,
    no_daemon: bool = NO_DAEMON,
) -> None:
    """Register the MCP server and the hooks in ASSISTANT's own config files (merged; originals saved in
    $AIMATE_HOME/state/backups/), and set up a warm daemon unless --no-daemon."""
    _setup(assistant, True, project, user, dry_run, no_daemon)


@commands.command("uninstall")
def uninstall(assistant: Assistant, project: Path = PROJECT, user: bool = USER, dry_run: bool = DRY_RUN) -> None:
    """Remove what `install` added: a file untouched since comes back byte for byte; lists the backups."""
    _setup(assistant, False, project, user, dry_run, no_daemon=False)


def _setup(
    assistant: Assistant, install: bool, project: Path | None, user: bool, dry_run: bool, no_daemon: bool
) -> None:
    from aimate_memory.integrations import claude, codex, kimi, warm_daemon
    from aimate_memory.integrations.apply import apply_edits, unified_diff
    from aimate_memory.integrations.backups import BackupStore
    from aimate_memory.integrations.edits import plan_edits
    from aimate_memory.integrations.target import Target
    from aimate_memory.vault.roots import aimate_home

    planners = {Assistant.CLAUDE: claude.changes, Assistant.CODEX: codex.changes, Assistant.KIMI: kimi.changes}
    user_agents_md = {Assistant.CODEX: codex.user_agents_md, Assistant.KIMI: kimi.user_agents_md}
    folder = None if user else _project_folder(project, fallback_to_cwd=assistant is Assistant.CLAUDE)
    target = Target.from_env(folder, user)
    changes = planners[assistant](target, install)
    if assistant in AGENTS_MD_CLIENTS and folder is not None:
        changes.append(_agents_md_change(folder / "AGENTS.md", install, folder, Scope.PROJECT))
    if assistant in USER_AGENTS_MD_CLIENTS:
        path = user_agents_md[assistant](target)
        changes.append(_agents_md_change(path, install, folder, Scope.GLOBAL, backup=True))
    store = BackupStore()
    edits = plan_edits(changes)
    if not install:
        edits = store.exact_restores(edits)
    if dry_run:
        for edit in edits:
            if edit.changed:
                sys.stdout.write(unified_diff(edit))
    saved = store.before_install(edits) if install and not dry_run else {}
    for outcome in apply_edits(edits, dry_run, saved):
        console.print(outcome.describe(dry_run), highlight=False, soft_wrap=True)
    if install and not dry_run:
        store.after_install(edits)  # first: whatever the daemon's set-up meets, uninstall can restore exactly
    # Which install wants the daemon: a project's Claude install and the user-scope one are two.
    key = assistant.value if assistant is not Assistant.CLAUDE or folder is None else f"claude:{folder}"
    if install:
        if not dry_run:
            # Before the daemon starts: a daemon started first loads the models and builds the same cache at
            # the same time, twice the CPU (docs/benchmarks.md, "The daemon's memory, third round").
            prepare_models_ahead(open_system(needs_vault=False))
        lines = warm_daemon.set_up(aimate_home(), target.home, key, no_daemon=no_daemon, dry_run=dry_run)
        if not dry_run:
            lines += _client_notes(assistant, folder is None, edits, target.vault)
        if target.program != PROGRAM:
            lines.append(
                f"`aimate` is not on your PATH, so the config names it by its full path: {target.program}. "
                "Run `pipx ensurepath` (or add its folder to PATH) and open a new shell to use `aimate` itself."
            )
    else:
        lines = warm_daemon.tear_down(aimate_home(), target.home, key, dry_run=dry_run)
    for line in lines:
        console.print(line, highlight=False, soft_wrap=True)
    if install or dry_run:
        return
    kept = store.after_uninstall(edits)
    if kept:
        console.print("changed since install, so edited rather than restored; the originals are kept:")
    for copy in kept:
        console.print(f"  backup {copy}", highlight=False, soft_wrap=True)
    for copy in (copy for copy in store.files() if copy not in kept):
        console.print(f"backup kept (another install): {copy}", highlight=False, soft_wrap=True)


def _client_notes(assistant: Assistant, user: bool, edits: list[FileEdit], vault: str | None) -> list[str]:
    """What the person does next in the client itself."""
    from aimate_memory.integrations import codex

    if assistant is Assistant.CLAUDE and not user:
        notes = ["Claude Code asks once before it starts a project's .mcp.json server: approve `aimate`."]
        if vault:  # the project's files are usually shared: a teammate's hooks would look for this folder
            notes.append(
                f"The project's .mcp.json and .claude/settings.json name your vault ({vault}): "
                "keep them out of git, or install with --user instead."
            )
        return notes
    if assistant is not Assistant.CODEX:
        return []
    notes = [
        "Codex asks once to trust the new hooks (start `codex`, review them, trust them); until then it skips them."
    ]
    config = next((edit.new for edit in edits if edit.path.name == "config.toml"), None)
    if codex.hooks_feature(config) is False:
        notes.append("Codex's hooks are off in its config.toml (`[features] hooks = false`): set it true to use them.")
    return notes


def _project_folder(project: Path | None, fallback_to_cwd: bool) -> Path | None:
    from aimate_memory.errors import InvalidInputError
    from aimate_memory.vault.layout import find_project_root
    from aimate_memory.vault.roots import aimate_home

    chosen = project or options.project
    if chosen is not None:
        folder = chosen.expanduser().resolve()
        if not folder.is_dir():
            raise InvalidInputError(f"project folder {chosen} does not exist", "give an existing folder")
        return folder
    found = find_project_root(Path.cwd(), aimate_home())
    return found or (Path.cwd() if fallback_to_cwd else None)


def _agents_md_change(path: Path, install: bool, folder: Path | None, scope: Scope, backup: bool = False) -> Change:
    """The block in one AGENTS.md: a project's file (in git: no backup) gets the project's core, the
    user-level one the person's."""
    from aimate_memory.integrations.agents_md import current_block, remove_block, replace_block
    from aimate_memory.integrations.edits import Change
    from aimate_memory.system import MemorySystem

    if not install:
        return Change(path, remove_block, backup=backup)
    with MemorySystem.open(project=folder, global_only=folder is None) as system:
        block = current_block(system, scope)
    return Change(path, lambda text: replace_block(text, block), backup=backup)


@commands.command("agents-md")
def agents_md(
    write: bool = typer.Option(False, "--write", help="Write the block into the file."),
    check: bool = typer.Option(False, "--check", help="Exit 1 when the file's block is not what the vault gives now."),
    file: str = typer.Option("AGENTS.md", "--file", help="AGENTS.md or CLAUDE.md, in the project folder."),
    user: bool = typer.Option(
        False, "--user", help="The person's core in the user-level file ($CODEX_HOME/AGENTS.md, ~/.claude/CLAUDE.md)."
    ),
) -> None:
    """Core memories as a managed block in AGENTS.md / CLAUDE.md: the project's core in the project's file
    (shared with the team), the person's with --user (printed unless --write or --check)."""
    from aimate_memory.errors import InvalidInputError
    from aimate_memory.integrations.agents_md import current_block, is_fresh, write_agents_md
    from aimate_memory.integrations.edits import read_text

    if write and check:
        raise InvalidInputError("--write and --check exclude each other", "use one of them")
    scope = Scope.GLOBAL if user else Scope.PROJECT
    with open_system() as system:
        path = _user_file(file) if user else (system.roots.project_dir or Path.cwd()) / file
        if write:
            console.print(write_agents_md(system, path, scope).describe(False), highlight=False, soft_wrap=True)
            return
        block = current_block(system, scope)
    if not check:
        sys.stdout.write(block + "\n")
    elif is_fresh(read_text(path), block):
        console.print(f"fresh: {path}", highlight=False)
    else:
        option = ("" if file == "AGENTS.md" else f" --file {file}") + (" --user" if user else "")
        console.print(f"stale: {path}; run `aimate mem agents-md --write{option}`", highlight=False)
        raise typer.Exit(1)


def _user_file(file: str) -> Path:
    from aimate_memory.errors import InvalidInputError
    from aimate_memory.integrations.codex import user_agents_md
    from aimate_memory.integrations.target import Target

    target = Target.from_env(None, True)
    if file == "AGENTS.md":
        return user_agents_md(target)
    if file == "CLAUDE.md":
        return target.home / ".claude" / "CLAUDE.md"
    raise InvalidInputError(f"no user-level file for {file}", "with --user, --file is AGENTS.md or CLAUDE.md")


@hook_app.command("session-start")
def hook_session_start(client: HookClient = CLIENT) -> None:
    """SessionStart: the memory context for the new session."""
    _hook("session-start", client)


@hook_app.command("prompt")
def hook_prompt(client: HookClient = CLIENT) -> None:
    """UserPromptSubmit: relevant memories, and "remember: …" saved."""
    _hook("prompt", client)


@hook_app.command("session-end")
def hook_session_end(client: HookClient = CLIENT) -> None:
    """SessionEnd / PreCompact: the transcript's new turns appended to the session."""
    _hook("session-end", client)


def _hook(kind_name: str, client: HookClient) -> None:
    # The same function the fast path (`cli.fast`) runs without typer: one piece serves both.
    from aimate_memory.cli.fast import run_hook_command

    run_hook_command(kind_name, client.value, options.project, options.global_only)
