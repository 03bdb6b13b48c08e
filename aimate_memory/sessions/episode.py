"""A session's episode (docs/design.md "Episodes"): what the person asked for, which files changed and which
commits landed during it, what was decided, what is left open — built when the session ends, from its turns
and the project's git, at no token cost (no model). Pure: the git facts are passed in.

- **asked**: the first line of the person's first turns (a paste is cut to its first line);
- **files**: the files the assistant's tool calls edited (the hook records them as one `tool` turn, see
  `files_turn`), then the files of the commits;
- **commits**: `sha subject` of the commits made between the session's start and end;
- **decided**: the person's sentences that state a choice;
- **open**: the person's sentences that leave work for later, and files still uncommitted.

Which sentences a turn holds and which of them state a decision or an open task is capture's rule, not a
second copy here: the caller passes it as a `TurnReader` (system/sessions.py passes capture's).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any, Protocol

from aimate_memory.git.activity import Commit
from aimate_memory.sessions.transcript import Turn
from aimate_memory.vault.model import to_datetime

ACTIVITY_PREFIX = "session activity"  # the `tool` turn a hook records (activity_turn)
ACTIVITY = re.compile(r"^session activity(?: since (?P<since>\S+))?:(?: files edited: (?P<files>.*))?$")
# Paths of the tool's own state, never part of what a session did to the code.
OWN_PATHS = (".aimate/",)
MAX_ITEMS = 3  # per kind: an episode is a few lines at the next session start
MAX_CHARS = 120  # per item
MAX_FILES = 8
WORK_KINDS = ("asked", "decided", "open")  # what an episode says of the work, for `work_query`
WORK_QUERY_CHARS = 400


class TurnReader(Protocol):
    """How a turn is read: its typed sentences, and which of them decide something or leave a task open."""

    def sentences(self, text: str) -> list[str]: ...

    def decides(self, sentence: str) -> bool: ...

    def leaves_open(self, sentence: str) -> bool: ...


@dataclass(frozen=True)
class Episode:
    asked: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    decided: list[str] = field(default_factory=list)
    open: list[str] = field(default_factory=list)

    KINDS = ("asked", "files", "commits", "decided", "open")

    @property
    def empty(self) -> bool:
        return not any(getattr(self, kind) for kind in self.KINDS)

    def to_frontmatter(self) -> dict[str, list[str]]:
        return {kind: list(getattr(self, kind)) for kind in self.KINDS if getattr(self, kind)}

    @classmethod
    def from_frontmatter(cls, value: Any) -> Episode | None:
        if not isinstance(value, Mapping):
            return None
        lists = {kind: [str(item) for item in value.get(kind) or [] if item] for kind in cls.KINDS}
        return cls(**lists)

    def title(self) -> str | None:
        """The session's title: its first request."""
        return self.asked[0] if self.asked else None

    def lines(self) -> list[str]:
        """A few lines for the next session start."""
        labels = {"asked": "asked", "files": "changed", "commits": "commits", "decided": "decided", "open": "open"}
        return [f"{labels[kind]}: " + "; ".join(getattr(self, kind)) for kind in self.KINDS if getattr(self, kind)]


def work_query(episodes: Sequence[Episode], commits: Sequence[Commit] = (), limit: int = WORK_QUERY_CHARS) -> str:
    """What the project is working on now, as a search query for the session start's choice of memories
    (docs/design.md "What a session start chooses"): the last episodes' requests, decisions and open items,
    newest first, then the subjects and file names of the latest commits; cut to `limit` characters, so the
    oldest words are the ones left out."""
    said = [line for episode in episodes for kind in WORK_KINDS for line in getattr(episode, kind)]
    committed = [commit.subject for commit in commits]
    touched = dict.fromkeys(PurePosixPath(path).stem for commit in commits for path in commit.files)
    return " ".join([*said, *committed, *touched])[:limit].strip()


def activity_turn(since: str | None, files: Sequence[str]) -> str:
    """The `tool` turn a hook records from the client's transcript: when the session began (its first
    record) and which files the assistant's tool calls edited. Read back by `activity_since`/`build_episode`."""
    text = ACTIVITY_PREFIX + (f" since {since}" if since else "") + ":"
    return text + (" files edited: " + ", ".join(files) if files else "")


def _activities(turns: Sequence[Turn]) -> list[re.Match[str]]:
    found = [ACTIVITY.match(turn.text) for turn in turns if turn.role == "tool"]
    return [match for match in found if match is not None]


def activity_since(turns: Sequence[Turn]) -> datetime | None:
    """When the client's transcript began (the earliest a hook recorded), or None."""
    times = [to_datetime(match["since"]) for match in _activities(turns) if match["since"]]
    known = [when for when in times if when is not None]
    return min(known) if known else None


def build_episode(
    turns: Sequence[Turn], reader: TurnReader, commits: Sequence[Commit] = (), uncommitted: Sequence[str] = ()
) -> Episode:
    said = [turn.text for turn in turns if turn.role == "user" and turn.text.strip()]
    edited = [part.strip() for match in _activities(turns) if match["files"] for part in match["files"].split(",")]
    uncommitted = [path for path in uncommitted if not path.startswith(OWN_PATHS)]
    committed = [path for commit in commits for path in commit.files]
    files = list(dict.fromkeys(path for path in [*edited, *committed] if path))
    sentences = [sentence for text in said for sentence in reader.sentences(text)]
    still_open = [sentence for sentence in sentences if reader.leaves_open(sentence)]
    if uncommitted:
        still_open.append("uncommitted: " + ", ".join(list(uncommitted)[:MAX_FILES]))
    return Episode(
        asked=[_cut(_first_line(text)) for text in said[:MAX_ITEMS]],
        files=_listed(files),
        commits=[_cut(f"{commit.sha[:7]} {commit.subject}") for commit in commits[:MAX_ITEMS]],
        decided=_firsts(sentence for sentence in sentences if reader.decides(sentence)),
        open=_firsts(still_open),
    )


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _cut(text: str) -> str:
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1].rstrip() + "…"


def _firsts(items: Any) -> list[str]:
    return list(dict.fromkeys(_cut(item) for item in items))[:MAX_ITEMS]


def _listed(files: list[str]) -> list[str]:
    shown = files[:MAX_FILES]
    return [*shown, f"+{len(files) - MAX_FILES} more"] if len(files) > MAX_FILES else shown
