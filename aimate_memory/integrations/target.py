"""Where an install goes: the user's home (honoured from HOME, so tests use a temp one), the project, scope."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Target:
    home: Path
    project: Path | None  # the project folder; None with --user or outside any project
    user_scope: bool = False
    env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, project: Path | None, user_scope: bool, env: Mapping[str, str] | None = None) -> Target:
        env = dict(os.environ if env is None else env)
        home = Path(env.get("HOME") or Path.home()).expanduser()
        return cls(home, project, user_scope, env)

    @property
    def vault(self) -> str | None:
        """The AIMATE_HOME the client's config should name (None: the default vault)."""
        from aimate_memory.integrations.hook_commands import vault_home

        return vault_home(self.env, self.home)

    @property
    def program(self) -> str:
        """How the client's config names `aimate`: bare when the PATH finds it, else its absolute path."""
        from aimate_memory.integrations.hook_commands import program_for, running_program

        return program_for(self.env, running_program())

    def env_dir(self, variable: str, default: str) -> Path:
        """A client's folder: its own environment variable when set, else `~/default`."""
        value = self.env.get(variable)
        return Path(value).expanduser() if value else self.home / default
