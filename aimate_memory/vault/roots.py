"""Where the global root and the current project's `.aimate/` are (docs/design.md §3).

A hook the daemon answers imports this module (for `aimate_home`) and little else, so it stays light: no
`dataclasses` (it imports `inspect`, ~12 ms) and `vault.layout` only when a project is looked for
(docs/agents.md, "Latency")."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from aimate_memory.errors import InvalidInputError

AIMATE_DIR = ".aimate"
VAULT_DIR = "memory"
STATE_DIR = "state"
INDEX_FILE = "index.db"


def aimate_home(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    value = env.get("AIMATE_HOME")
    return Path(value).expanduser().resolve() if value else (Path.home() / AIMATE_DIR).resolve()


class Roots(NamedTuple):
    """`home` is `~/.aimate` (or AIMATE_HOME); `project` is `{project}/.aimate`, or None."""

    home: Path
    project: Path | None

    @property
    def project_dir(self) -> Path | None:
        return self.project.parent if self.project else None

    @staticmethod
    def vault_dir(root: Path) -> Path:
        return root / VAULT_DIR

    @staticmethod
    def state_dir(root: Path) -> Path:
        return root / STATE_DIR

    @staticmethod
    def index_path(root: Path) -> Path:
        return root / INDEX_FILE


def detect_roots(
    cwd: Path | None = None,
    project: Path | None = None,
    global_only: bool = False,
    env: Mapping[str, str] | None = None,
) -> Roots:
    """`--global` → no project; `--project PATH` → that project; else walk up from the cwd."""
    home = aimate_home(env)
    if global_only:
        return Roots(home, None)
    if project is not None:
        folder = project.expanduser().resolve()
        if not folder.is_dir():
            raise InvalidInputError(f"project folder {project} does not exist", "give an existing folder")
        return Roots(home, _project_aimate(folder, home))
    from aimate_memory.vault.layout import find_project_root

    found = find_project_root(cwd or Path.cwd(), home)
    return Roots(home, _project_aimate(found, home) if found else None)


def _project_aimate(folder: Path, home: Path) -> Path | None:
    candidate = folder / AIMATE_DIR
    # The global root is never a project vault, whatever folder it sits in.
    return None if candidate.resolve() == home else candidate
