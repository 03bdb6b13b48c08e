"""A project's config is a guest (docs/reliability.md, "Trust model: the person's config and a project's
config"): the keys it sets that only the person's own config may set are ignored (`load_config`, by
`KEY_SCOPES`), and the person is told which, once per session — the CLI on stderr, a hook in its
`systemMessage`. A CLI "session" is the shell the command runs in (its parent process); a hook's is the
assistant's session id. What was said is kept in `$AIMATE_HOME/state/config-warnings.json`."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from aimate_memory.errors import ConfigError

WARNINGS_FILE = "config-warnings.json"
MAX_SESSIONS = 200  # sessions remembered; the oldest are forgotten first


def project_refusals(home: Path, project_root: Path) -> list[str]:
    """The keys `{project_root}/config.yaml` sets that it may not (KEY_SCOPES: the person's only, or a guard
    set looser than the person's). A broken file gives none here: the command's own load reports it."""
    from aimate_memory.config.loader import config_path, load_config

    if not config_path(project_root).is_file():
        return []
    try:
        return load_config(home, project_root, env={}).refused
    except (ConfigError, OSError):
        return []


def refused_line(keys: list[str], config_file: Path) -> str:
    """One line, English then Chinese, naming every refused key."""
    names = ", ".join(keys)
    return (
        f"the project's config {config_file} sets {names}, which only your own config may set (or loosen): ignored"
        f" / 项目配置 {config_file} 设置了 {names}，这些只能由你自己的配置设置（或放宽）：已忽略"
    )


def warning_once(home: Path, project_root: Path | None, session: str) -> str:
    """The refused-keys line for this project if this session has not been told it yet, else ""."""
    if project_root is None:
        return ""
    keys = project_refusals(home, project_root)
    if not keys:
        return ""
    from aimate_memory.config.loader import config_path

    config_file = config_path(project_root)
    said_key = f"{config_file}#{','.join(keys)}"
    from aimate_memory.vault.roots import Roots

    state_dir = Roots.state_dir(home)
    record = state_dir / WARNINGS_FILE
    said: dict[str, list[str]] = {}
    with contextlib.suppress(OSError, ValueError):
        loaded = json.loads(record.read_text(encoding="utf-8"))
        said = {str(k): [str(x) for x in v] for k, v in loaded.items() if isinstance(v, list)}
    if said_key in said.get(session, []):
        return ""
    said.setdefault(session, []).append(said_key)
    said = dict(list(said.items())[-MAX_SESSIONS:])
    with contextlib.suppress(OSError):  # an unwritable state folder: the person is told every time instead
        from aimate_memory.vault.atomic import atomic_write_text

        state_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(record, json.dumps(said, ensure_ascii=False))
    return refused_line(keys, config_file)
