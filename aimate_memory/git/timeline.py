"""A vault's memory files as its commits changed them, newest first (the timeline, docs/usage.md "Timeline"):
one `git log --raw` for every commit and file, then one `git cat-file --batch` for the text of the files kept —
two git processes however many commits there are. Functions over a `VaultRepo`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath

from aimate_memory.git.repo import ZERO_SHA, VaultRepo

_FORMAT = "--format=%x01%H%x1f%aI%x1f%s"


@dataclass(frozen=True)
class FileCommit:
    """One memory file one commit touched. status: A | M | D | R (a move, paired by git or by id);
    `before`/`after`: the file's text before and after the commit (None where it did not exist)."""

    commit: str
    date: str  # ISO 8601 with offset (author date)
    subject: str
    status: str
    path: PurePosixPath  # vault-relative; the new path for a move
    old_path: PurePosixPath | None
    before: str | None
    after: str | None


@dataclass
class _Raw:
    commit: str
    date: str
    subject: str
    status: str
    path: PurePosixPath
    old_path: PurePosixPath | None
    old_sha: str
    new_sha: str


def file_commits(
    repo: VaultRepo,
    keep: Callable[[PurePosixPath], bool],
    since: datetime | None = None,
    limit: int | None = None,
) -> tuple[list[FileCommit], bool]:
    """The changes to vault files `keep` accepts, newest first, at most `limit` (renames followed, `-M`),
    and whether `limit` cut the list. A delete and an add of the same id in one commit are one move (git
    does not pair a small file whose frontmatter changed a lot, e.g. a promotion)."""
    if not repo.head_commit():
        return [], False
    args = ["log", "-M", "--raw", "-z", "--no-abbrev", _FORMAT]
    if since is not None:
        args.append(f"--since={since.isoformat()}")
    out = repo.git(*args, "--", repo.scope_spec, strip=False)[1]
    raws: list[_Raw] = []
    cut = False
    for record in out.split("\x01")[1:]:
        header, _, rest = record.partition("\0")
        commit, date, subject = header.split("\x1f", 2)
        touched = [raw for raw in _raw_changes(repo, commit, date, subject, rest) if keep(raw.path)]
        if limit is not None and len(raws) + len(touched) > limit:
            cut = True
            break
        raws.extend(touched)
    blobs = repo.read_blobs({sha for raw in raws for sha in (raw.old_sha, raw.new_sha) if sha != ZERO_SHA})
    changes = [
        FileCommit(
            raw.commit,
            raw.date,
            raw.subject,
            raw.status,
            raw.path,
            raw.old_path,
            _text(blobs.get(raw.old_sha)),
            _text(blobs.get(raw.new_sha)),
        )
        for raw in raws
    ]
    return _pair_moves(changes, id_of), cut


def _raw_changes(repo: VaultRepo, commit: str, date: str, subject: str, rest: str) -> list[_Raw]:
    """One commit's `--raw -z` lines: `:mode mode old new STATUS\\0path\\0[new path\\0]`."""
    tokens = [token.lstrip("\n") for token in rest.split("\0")]
    found: list[_Raw] = []
    i = 0
    while i < len(tokens):
        fields = tokens[i].split()
        if len(fields) != 5 or not fields[0].startswith(":"):
            i += 1
            continue
        old_sha, new_sha, status = fields[2], fields[3], fields[4][:1]
        if status in "RC":
            old, new = tokens[i + 1], tokens[i + 2]
            i += 3
        else:
            old, new = None, tokens[i + 1]
            i += 2
        path = repo.vault_path(new)
        if path is None:
            continue
        old_path = repo.vault_path(old) if old is not None else None
        if status == "C" or (status == "R" and old_path is None):  # a copy, or a move in from outside: an add
            status, old_path, old_sha = "A", None, ZERO_SHA
        found.append(_Raw(commit, date, subject, status if status in "AMDR" else "M", path, old_path, old_sha, new_sha))
    return found


def _text(data: bytes | None) -> str | None:
    return data.decode("utf-8", "replace") if data is not None else None


def id_of(text: str | None) -> str | None:
    """The `id:` line of a memory file's frontmatter (no YAML parse: pairing only needs the id)."""
    if not text or not text.startswith("---"):
        return None
    for line in text.splitlines()[1:]:
        if line.strip() == "---":
            return None
        key, _, value = line.partition(":")
        if key.strip() == "id":
            return value.strip().strip("\"'") or None
    return None


def _pair_moves(changes: list[FileCommit], identify: Callable[[str | None], str | None]) -> list[FileCommit]:
    """A delete and an add holding the same id in one commit → one move at the add's place."""
    deleted: dict[tuple[str, str], FileCommit] = {}
    for change in changes:
        memory_id = identify(change.before) if change.status == "D" else None
        if memory_id:
            deleted[(change.commit, memory_id)] = change
    if not deleted:
        return changes
    paired: list[FileCommit] = []
    used: set[int] = set()
    for change in changes:
        gone = deleted.get((change.commit, identify(change.after) or "")) if change.status == "A" else None
        if gone is not None and id(gone) not in used:
            used.add(id(gone))
            paired.append(
                FileCommit(
                    change.commit,
                    change.date,
                    change.subject,
                    "R",
                    change.path,
                    gone.path,
                    gone.before,
                    change.after,
                )
            )
        else:
            paired.append(change)
    return [change for change in paired if id(change) not in used]
