"""Anchors: the project files a memory cites, and whether they changed since (docs/anchors.md). Pure: text and
what the project holds in, anchors and staleness out; git is asked by `git/anchors.py`.

- `cited_paths` / `cited_identifiers`: what a memory's text names that could be a project file or a symbol
  defined in one (`auth/session.py`, `src/api/`, `auth/session.py:42`, `refresh_token()`, `SessionStore`),
  in any language: only ASCII runs are read, so "在auth/session.py里" cites `auth/session.py`.
- `Anchor`: one frontmatter entry `{path, blob, verified_at}`; `anchors_of` reads what a person may have
  written by hand (a bare path string is an anchor still to be verified), `anchor_meta` writes it back.
- `staleness_of`: an anchor against the project now → None, or `Staleness` (changed | moved | deleted).
  `Staleness` is the record every face shows (`to_dict`/`from_dict`, `describe` for people).

Only the standard library: `system/records.py` carries `Staleness` across the daemon's socket.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

STALE_KINDS = ("changed", "moved", "deleted")
#: an identifier defined in more files than this names no one file (`__init__`, `main()`): not an anchor
MAX_DEFINING_FILES = 3

# A path-like run of ASCII: CJK text around it is not part of it ("在auth/session.py里"). `:12` or `:12-30`
# after it is a line (`path:line`), `#L12` a GitHub-style one.
_PATH_RUN = re.compile(r"(?<![A-Za-z0-9_.\-/:@])((?:\./)?[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)*/?)(?::\d+(?:-\d+)?)?")
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,9}$")
_CALL = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\(")
_CAMEL = re.compile(
    r"(?<![A-Za-z0-9_])([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+)(?![A-Za-z0-9_])"
)
_SNAKE = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?![A-Za-z0-9_])")
_BACKTICKED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]{2,})`")
# Words that look like identifiers in prose but name nothing of the project's (Python's keywords and
# builtins people write with parentheses).
_NOT_IDENTIFIERS = frozenset(
    [
        "print",
        "len",
        "str",
        "int",
        "list",
        "dict",
        "set",
        "tuple",
        "open",
        "range",
        "type",
        "self",
        "super",
        "init",
        "main",
        "test",
        "setup",
        "if",
        "for",
        "while",
        "return",
        "import",
        "from",
        "class",
        "def",
        "async",
        "await",
        "lambda",
        "with",
        "yield",
        "none",
        "true",
        "false",
        "null",
    ]
)


def cited_paths(text: str) -> list[str]:
    """Path-like runs the text holds, in order, without duplicates: project-relative, POSIX, `./` dropped,
    a trailing `/` kept (a folder), lines (`:42`) and sentence punctuation dropped. Whether each names a
    project file is the caller's question. A run must hold a `/` or end in a file extension; URLs are not paths."""
    found: dict[str, None] = {}
    for match in _PATH_RUN.finditer(text):
        start, run = match.start(1), match.group(1)
        if text[max(0, start - 3) : start] == "://" or text[match.end(1) : match.end(1) + 3] == "://":
            continue
        run = run.rstrip(".-")
        run = run.removeprefix("./")
        if not run or run.startswith("/"):
            continue
        if "/" not in run.rstrip("/") and not run.endswith("/") and not _EXTENSION.search(run):
            continue
        if ".." in run.split("/"):
            continue
        found.setdefault(run)
    return list(found)


def cited_identifiers(text: str) -> list[str]:
    """Identifier-looking words the text holds, in order, without duplicates: a call (`refresh_token()`,
    `store.refresh(` → `refresh`), CamelCase (`SessionStore`), snake_case (`refresh_token`) or a word in
    backticks. Whether the project defines each is the caller's question."""
    found: dict[str, None] = {}
    paths = set(cited_paths(text))
    for pattern in (_CALL, _CAMEL, _SNAKE, _BACKTICKED):
        for match in pattern.finditer(text):
            name = match.group(1).rsplit(".", 1)[-1]
            if len(name) < 3 or name.lower() in _NOT_IDENTIFIERS or name in paths or name.isdigit():
                continue
            if pattern is _SNAKE and _EXTENSION.search(match.group(1)):
                continue
            found.setdefault(name)
    return list(found)


@dataclass(frozen=True)
class Anchor:
    """One anchored file (or folder, `path` ending in `/`): its git blob id when verified (a folder: the
    hash of its listing, `folder_blob`), and when. `blob` "" is an anchor a person wrote without one: it is
    filled at the next write or `verify`, and is never stale before."""

    path: str
    blob: str
    verified_at: datetime | None

    def to_meta(self) -> dict[str, Any]:
        """The frontmatter entry, `{path, blob, verified_at}`."""
        return {"path": self.path, "blob": self.blob, "verified_at": self.verified_at}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (`--json`, MCP): the frontmatter entry with `verified_at` in ISO 8601."""
        return {
            "path": self.path,
            "blob": self.blob,
            "verified_at": self.verified_at.isoformat() if self.verified_at else None,
        }

    def to_row(self) -> list[str]:
        """Compact JSON for the index."""
        return [self.path, self.blob, self.verified_at.isoformat() if self.verified_at else ""]

    @classmethod
    def from_row(cls, row: Sequence[str]) -> Anchor:
        """`to_row` undone: the index wrote an aware ISO time, so no general date parsing is needed (that
        was a third of a 10k-memory `stale`)."""
        return cls(str(row[0]), str(row[1]), datetime.fromisoformat(row[2]) if row[2] else None)


def anchors_of(value: Any) -> tuple[Anchor, ...]:
    """The `anchors` frontmatter value as a person may have written it: a list of `{path, blob, verified_at}`
    mappings, or of bare paths (to be verified). Anything else in the list is skipped (`fix` leaves it)."""
    if not isinstance(value, (list, tuple)):
        return ()
    anchors: dict[str, Anchor] = {}
    for item in value:
        if isinstance(item, str) and item.strip():
            path = item.strip().removeprefix("./")
            anchors.setdefault(path, Anchor(path, "", None))
        elif isinstance(item, Mapping) and str(item.get("path") or "").strip():
            path = str(item["path"]).strip().removeprefix("./")
            verified = _to_datetime(item.get("verified_at"))
            anchors.setdefault(path, Anchor(path, str(item.get("blob") or "").strip(), verified))
    return tuple(anchors.values())


def anchor_meta(anchors: Iterable[Anchor]) -> list[dict[str, Any]]:
    return [anchor.to_meta() for anchor in anchors]


def git_blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob (`git hash-object`): the same for a tracked file and an
    untracked one, so one comparison serves both."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def folder_blob(entries: Iterable[tuple[str, str]]) -> str:
    """A folder's "blob": the hash of its files' (path, blob) listing, sorted. Changes when a file under it
    is added, removed, renamed or changed."""
    digest = hashlib.sha1(usedforsecurity=False)
    for path, blob in sorted(entries):
        digest.update(f"{path} {blob}\n".encode())
    return "tree:" + digest.hexdigest()


class Anchorer(Protocol):
    """What a vault asks when a memory's text is written: its anchors now. `previous`: the anchors it had
    (kept as they are — a re-extraction adds what the text newly cites, it never re-verifies or drops)."""

    def anchors_for(self, text: str, previous: Sequence[Anchor] = ()) -> tuple[Anchor, ...]: ...


def merge_anchors(previous: Sequence[Anchor], cited: Sequence[Anchor]) -> tuple[Anchor, ...]:
    """`previous` as they are, then what `cited` adds: the rule for a text edit (docs/anchors.md)."""
    known = {anchor.path for anchor in previous}
    return (*previous, *(anchor for anchor in cited if anchor.path not in known))


@dataclass(frozen=True)
class Staleness:
    """Why a memory may be wrong: an anchored file `changed`, `moved` (to `moved_to`) or was `deleted`
    since `since` (the date it was verified), in `commits` commits (0: the change is not committed yet).
    `more`: how many other anchors of the same memory are stale too. The record search results, `show`,
    the context, MCP and the page carry (`stale: {path, what, since, commits, …}`)."""

    path: str
    what: str
    since: str  # ISO date
    commits: int
    moved_to: str | None = None
    more: int = 0
    #: when the file was deleted (ISO time of the commit), for the archive proposal; "" when not deleted
    deleted_at: str = field(default="", compare=False)

    def describe(self) -> str:
        """One line for people: "auth/session.py changed in 3 commits since 2026-11-20"."""
        if self.what == "moved":
            head = f"{self.path} moved to {self.moved_to}"
        elif self.what == "deleted":
            head = f"{self.path} was deleted"
        else:
            head = f"{self.path} changed"
        if self.commits:
            head += f" in {self.commits} commit{'s' if self.commits != 1 else ''}"
        head += f" since {self.since}" if self.since else ""
        if not self.commits:
            head += " (not committed yet)"
        if self.more:
            head += f" (and {self.more} more anchored file{'s' if self.more != 1 else ''})"
        return head

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "what": self.what, "since": self.since, "commits": self.commits}
        if self.moved_to is not None:
            data["moved_to"] = self.moved_to
        if self.more:
            data["more"] = self.more
        if self.deleted_at:
            data["deleted_at"] = self.deleted_at
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Staleness:
        return cls(
            path=str(data["path"]),
            what=str(data["what"]),
            since=str(data.get("since") or ""),
            commits=int(data.get("commits") or 0),
            moved_to=str(data["moved_to"]) if data.get("moved_to") else None,
            more=int(data.get("more") or 0),
            deleted_at=str(data.get("deleted_at") or ""),
        )


@dataclass(frozen=True)
class PathHistory:
    """What git says happened to one path after a time: the commits touching it (renames followed) and
    where it went. `commits` counts commits; `renamed_to` the path it has now, when it was renamed;
    `deleted_at` the time of the commit that removed it."""

    commits: int = 0
    renamed_to: str | None = None
    deleted_at: datetime | None = None


def staleness_of(
    anchor: Anchor, current_blob: str | None, history: PathHistory, blob_elsewhere: str | None = None
) -> Staleness | None:
    """One anchor against the project now. `current_blob`: the blob at `anchor.path` now (None: no file
    there); `history`: git's account since `verified_at`; `blob_elsewhere`: the one other path holding the
    anchored blob now (a move git has not committed yet). An anchor without a blob is never stale."""
    if not anchor.blob or current_blob == anchor.blob:
        return None
    since = anchor.verified_at.date().isoformat() if anchor.verified_at else ""
    if current_blob is not None:
        return Staleness(anchor.path, "changed", since, history.commits)
    moved_to = history.renamed_to or blob_elsewhere
    if moved_to is not None:
        return Staleness(anchor.path, "moved", since, history.commits, moved_to=moved_to)
    deleted_at = history.deleted_at.isoformat() if history.deleted_at else ""
    return Staleness(anchor.path, "deleted", since, history.commits, deleted_at=deleted_at)


def first_stale(found: Sequence[Staleness]) -> Staleness | None:
    """A memory's staleness: the first stale anchor, counting the others in `more`."""
    if not found:
        return None
    first = found[0]
    return Staleness(
        first.path, first.what, first.since, first.commits, first.moved_to, len(found) - 1, first.deleted_at
    )


def _to_datetime(value: Any) -> datetime | None:
    from aimate_memory.vault.model import to_datetime

    return to_datetime(value)
