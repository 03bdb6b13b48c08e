"""History (docs/design.md §8): one memory's commits across renames and lifecycle moves, and a vault's recent
commits. Functions over a `VaultRepo`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from aimate_memory.git.repo import VaultRepo

_STATUS_ACTION = {"A": "add", "M": "update", "D": "delete", "R": "move", "T": "update"}
_LOG_FORMAT = "--format=%x01%H%x1f%aI%x1f%an%x1f%s"


@dataclass
class LogEntry:
    commit: str
    date: str  # ISO 8601 with offset (author date)
    author: str
    subject: str
    action: str  # add | update | move | delete
    path: PurePosixPath  # vault-relative; the new path for a move
    old_path: PurePosixPath | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "date": self.date,
            "author": self.author,
            "subject": self.subject,
            "action": self.action,
            "path": self.path.as_posix(),
            "old_path": self.old_path.as_posix() if self.old_path else None,
        }


def log_memory(repo: VaultRepo, memory_id: str, current_path: PurePosixPath | str | None = None) -> list[LogEntry]:
    """One memory's commits, newest first, across renames and lifecycle moves.

    The paths it ever lived at come from commits whose diff adds or removes its `id:` line
    (`git log -G`, renames off); then every commit touching those paths, with renames on."""
    if not repo.head_commit():
        return []
    spec = repo.scope_spec
    pattern = "^id:[[:space:]]*[\"']?" + _ere_escape(memory_id) + "[\"']?[[:space:]]*$"
    out = repo.git(
        "log",
        "--no-renames",
        "--format=%x01%H",
        "--name-only",
        "-z",
        "-G",
        pattern,
        "--",
        spec,
        strip=False,
    )[1]
    paths: set[str] = set()
    for record in out.split("\x01")[1:]:
        _, _, files = record.partition("\0")
        paths.update(p.strip("\n") for p in files.split("\0") if p.strip("\n"))
    if current_path is not None:
        paths.add(repo.repo_path(current_path))
    if not paths:
        return []
    out = repo.git("log", "-M", "--name-status", "-z", _LOG_FORMAT, "--", *sorted(paths), strip=False)[1]
    entries: list[LogEntry] = []
    for record in out.split("\x01")[1:]:
        header, _, rest = record.partition("\0")
        commit, date, author, subject = header.split("\x1f", 3)
        for status, path, old in _touched(rest, paths):
            entries.append(
                LogEntry(
                    commit,
                    date,
                    author,
                    subject,
                    _STATUS_ACTION.get(status, "update"),
                    repo.vault_path(path) or PurePosixPath(path),
                    (repo.vault_path(old) or PurePosixPath(old)) if old else None,
                )
            )
    return entries


def _touched(name_status: str, paths: set[str]) -> list[tuple[str, str, str | None]]:
    """(status, path, old path) of one commit's `--name-status -z` output, for the memory's paths."""
    tokens = [t.lstrip("\n") for t in name_status.split("\0")]
    touched: list[tuple[str, str, str | None]] = []
    i = 0
    while i < len(tokens):
        status = tokens[i]
        if not status:
            i += 1
            continue
        if status[:1] in "RC":
            touched.append(("R", tokens[i + 2], tokens[i + 1]))
            i += 3
        else:
            touched.append((status[:1], tokens[i + 1], None))
            i += 2
    touched = [t for t in touched if t[1] in paths or (t[2] in paths)]
    deleted = [t for t in touched if t[0] == "D"]
    added = [t for t in touched if t[0] == "A"]
    if len(deleted) == 1 and len(added) == 1:  # a move git did not pair (content changed a lot)
        return [("R", added[0][1], deleted[0][1])]
    return touched


def log_vault(repo: VaultRepo, limit: int = 20) -> list[LogEntry]:
    """Recent commits touching the vault, newest first (one entry per commit, first file shown)."""
    if not repo.head_commit():
        return []
    out = repo.git("log", f"-n{limit}", _LOG_FORMAT, "--name-only", "-z", "--", repo.scope_spec, strip=False)[1]
    entries = []
    for record in out.split("\x01")[1:]:
        header, _, rest = record.partition("\0")
        commit, date, author, subject = header.split("\x1f", 3)
        files = [p.strip("\n") for p in rest.split("\0") if p.strip("\n")]
        first = repo.vault_path(files[0]) if files else None
        entries.append(LogEntry(commit, date, author, subject, "commit", first or PurePosixPath(".")))
    return entries


def _ere_escape(text: str) -> str:
    return re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", text)
