"""Which of a project vault's memory files the person trusts (docs/reliability.md, "Trust model: project vaults
and the model's writes").

A project's `.aimate/memory/` comes with the code: whoever wrote the repository wrote it. The person trusts a
file *as it is*: the ledger keeps, per vault-relative path, the sha256 of the file's bytes (the hash the index
keeps as `file_hash`), in the person's own state folder — `$AIMATE_HOME/state/trust/<project key>.json`,
0600 — never in the project, where the repository could write it. A file is trusted when its bytes hash to
what the ledger holds for its path; a file someone else adds or changes (a `git pull`) is not, until the person
trusts it again (`aimate mem trust`, or accepting it in `review`).

The ledger learns a file three ways: the person trusts the vault as it is (`trust`); the tool creates a memory
for the person (`add`, `remember`, a session); the tool rewrites a file that was trusted just before (an
update, a move, maintenance) — trust carries over to the new bytes. A tool write to an untrusted file carries
nothing: fixing or anchoring a team file does not launder it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from pathlib import Path, PurePosixPath

from aimate_memory.locks import file_lock
from aimate_memory.vault.atomic import atomic_write_text
from aimate_memory.wording import plural

TRUST_DIR = "trust"
LEDGER_VERSION = 1


def file_digest(data: bytes) -> str:
    """The hash a trusted file is known by: sha256 of its bytes, as the index keeps it (`file_hash`)."""
    return hashlib.sha256(data).hexdigest()


def ledger_path(state_dir: Path, project_dir: Path) -> Path:
    """The person's ledger for the project at `project_dir` (the folder holding `.aimate/`)."""
    key = hashlib.sha256(str(project_dir.resolve()).encode("utf-8")).hexdigest()[:24]
    return state_dir / TRUST_DIR / f"{key}.json"


def withheld(files: Mapping[str, str], trusted: Mapping[str, str]) -> dict[str, str]:
    """The files (path → hash) whose bytes the person has not trusted: not in `trusted`, or changed since."""
    return {path: digest for path, digest in files.items() if trusted.get(path) != digest}


def untrusted_notice(count: int) -> str:
    """The one line a context or a search gives instead of the memories it withheld, in English and Chinese
    (a hook's notice reaches the person in either): how many, and the command that reviews them."""
    english = (
        f"this project has {plural(count, 'team memory', 'team memories')} you have not trusted yet "
        "(new, or changed since you trusted them): `aimate mem trust` to review and use them"
    )
    chinese = (
        f"此项目有 {count} 条你尚未信任的团队记忆（新加入的，或在你信任后被改动的）："
        "运行 `aimate mem trust` 审阅并启用它们"
    )
    return f"{english} / {chinese}"


class TrustLedger:
    """The person's trusted files of one project vault: path → sha256 of the bytes trusted. Every change is
    one locked read-modify-write of the file (a daemon and a CLI may write at once)."""

    def __init__(self, path: Path, project_dir: Path) -> None:
        self.path = path
        self.project_dir = project_dir
        self._cache: tuple[tuple[int, int], dict[str, str]] | None = None

    @property
    def exists(self) -> bool:
        return self.path.is_file()

    def files(self) -> dict[str, str]:
        """The trusted files now (re-read only when the ledger file changed)."""
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return {}
        stamp = (info.st_mtime_ns, info.st_size)
        if self._cache is None or self._cache[0] != stamp:
            self._cache = (stamp, _read(self.path))
        return dict(self._cache[1])

    def is_trusted(self, rel_path: PurePosixPath | str, digest: str | None) -> bool:
        return digest is not None and self.files().get(PurePosixPath(rel_path).as_posix()) == digest

    def trust(self, files: Mapping[str, str]) -> None:
        """Trust these files (path → hash) as they are."""
        if files:
            self._change(lambda known: known.update(files))

    def forget(self, paths: Iterable[str] | None = None) -> int:
        """Stop trusting `paths` (None: every file of the project); how many were trusted."""
        if paths is None:
            count = len(self.files())
            with file_lock(self._lock_path), suppress(FileNotFoundError):
                self.path.unlink()
            self._cache = None
            return count
        wanted = set(paths)
        dropped = [0]

        def drop(known: dict[str, str]) -> None:
            for path in wanted & set(known):
                del known[path]
                dropped[0] += 1

        self._change(drop)
        return dropped[0]

    def carry(self, origin: PurePosixPath, before: str | None, target: PurePosixPath, after: str) -> None:
        """The tool wrote `target` (from `origin`'s content, `before` its hash then; None: a new memory the
        tool created for the person): the new bytes are trusted when the tool created the file, or when the
        bytes it replaced were trusted. A move forgets the old path."""
        old, new = origin.as_posix(), target.as_posix()
        if before is not None and self.files().get(old) != before:
            return

        def carried(known: dict[str, str]) -> None:
            if old != new:
                known.pop(old, None)
            known[new] = after

        self._change(carried)

    @property
    def _lock_path(self) -> Path:
        return self.path.with_suffix(".lock")

    def _change(self, edit: Callable[[dict[str, str]], None]) -> None:
        with file_lock(self._lock_path):
            known = _read(self.path)
            edit(known)
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            data = {"version": LEDGER_VERSION, "project": str(self.project_dir), "files": dict(sorted(known.items()))}
            atomic_write_text(self.path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
            os.chmod(self.path, 0o600)
        self._cache = None


def _read(path: Path) -> dict[str, str]:
    """The ledger's files; a missing or unreadable ledger trusts nothing (the safe side)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}
    return {str(key): str(value) for key, value in files.items() if isinstance(value, str)}
