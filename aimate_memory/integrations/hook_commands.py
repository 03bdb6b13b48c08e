"""The hook command lines `install` writes into a client's config, and how `uninstall` knows them again.

A command is `aimate mem hook KIND [--client NAME]`, with `AIMATE_HOME=<path> ` in front when the person
installed with `AIMATE_HOME` set: a client runs hooks through the shell with its own environment, which need
not carry the variable (docs/agents.md, "The vault the person meant"). Ours are recognised whatever vault
they name, so a second install with another `AIMATE_HOME` updates the command in place instead of adding
a second one, and uninstall removes ours and nothing else."""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

from aimate_memory.integrations.hook_events import Client, HookKind

VAULT_VARIABLE = "AIMATE_HOME"
PROGRAM = "aimate"  # what a client runs, found on its PATH; an absolute path when it is not there (`program_for`)
DEFAULT_VAULT_FOLDER = ".aimate"  # ~/.aimate, where the CLI looks when AIMATE_HOME is not set (vault/roots.py)


def vault_home(env: Mapping[str, str], user_home: Path) -> str | None:
    """The AIMATE_HOME to write into a client's config: the installing environment's, when it is set and
    is not the default `~/.aimate` (a client that passes no AIMATE_HOME gets that one anyway)."""
    value = env.get(VAULT_VARIABLE, "").strip()
    if not value:
        return None
    chosen = Path(value).expanduser()
    if chosen.resolve() == (user_home / DEFAULT_VAULT_FOLDER).resolve():
        return None
    return str(chosen.resolve())


def program_for(env: Mapping[str, str], running: Path | None) -> str:
    """`aimate` when the installing environment's PATH finds it, else the absolute path of the one running
    (pipx's ~/.local/bin is often not on PATH: the client would find no `aimate` and the person no word of
    why; docs/agents.md, "Use with Claude Code / Codex / Kimi")."""
    if shutil.which(PROGRAM, path=env.get("PATH", "")) is not None or running is None:
        return PROGRAM
    return str(running)


def running_program() -> Path | None:
    """The `aimate` the person ran (pipx's `~/.local/bin/aimate` link, which survives an upgrade), else the
    script beside this interpreter (a venv's bin folder), when there is one."""
    for candidate in (Path(sys.argv[0]), Path(sys.executable).with_name(PROGRAM)):
        if candidate.name == PROGRAM and candidate.exists():
            return candidate.absolute()
    return None


def vault_env(vault: str | None) -> dict[str, str]:
    """The `env` an MCP server entry gets: AIMATE_HOME when there is one to name."""
    return {VAULT_VARIABLE: vault} if vault else {}


def hook_command(kind: HookKind, client: Client, vault: str | None = None, program: str = PROGRAM) -> str:
    """Claude Code is the hook's default client, so its commands carry no `--client`."""
    words = [program, "mem", "hook", kind.value]
    if client is not Client.CLAUDE:
        words += ["--client", client.value]
    prefix = f"{VAULT_VARIABLE}={shlex.quote(vault)} " if vault else ""
    return prefix + shlex.join(words)


def is_our_hook(command: object, kind: HookKind, client: Client) -> bool:
    """`command` is the one `hook_command(kind, client, …)` writes, for any vault (or none)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:  # unbalanced quotes: a command of the person's own
        return False
    if words and words[0].startswith(VAULT_VARIABLE + "="):
        words = words[1:]
    if words and Path(words[0]).name == PROGRAM:  # `aimate` or an absolute path to it
        words[0] = PROGRAM
    return shlex.join(words) == hook_command(kind, client)
