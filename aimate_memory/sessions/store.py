"""The running sessions of one vault: start, append (trimming the window as it fills), read, end, list.

A session runs in `sessions/current.md` when nobody names it (the CLI, MCP `memory_session_append`), or in
`sessions/active/<key>-<hash>.md` when a client names its own conversation: a hook passes the assistant's
session id (`claude:<uuid>`), so two windows on one project keep two sessions and each window's
SessionEnd ends only its own (docs/agents.md, "Sessions"). The key is kept in the frontmatter
(`session_key`); the file name is its slug plus a hash, so any key maps to one safe, short name.

Every change happens under `state/session.lock` (`locks.file_lock`) as read → change → atomic write, so
two appenders at once lose nothing. The file is a valid session memory for the vault codec (`type:
session`, a real `id`, `title`, `status`); its frontmatter carries `started_at`, `turns`, `tokens` (all
turns), `window_start` (0-based index of the first turn still in the window = turns trimmed out of it),
`window_tokens` and `summaries` (ids of the context memories made by trimming).

Choices: `start` refuses while a session is active unless `replace=True` (which ends it first): an
agent that forgot a session should not silently lose it. `append` with no active session starts one.
`end` sets `status: ended`, `ended_at` and renames the file to `sessions/YYYYMMDD_session_<title>.md`;
maintenance then moves it into `sessions/YYYY-MM/` (lifecycle/planner.py, rule 4).
A trim writes the summary memory before the session file: a crash in between leaves a summary whose
turns are still in the window (the next append summarizes them again), never trimmed turns without one.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from aimate_memory.clock import Clock
from aimate_memory.errors import AimateError, InvalidInputError
from aimate_memory.locks import file_lock
from aimate_memory.sessions.summarize import Summarizer, summarize_with_fallback
from aimate_memory.sessions.transcript import Turn, parse_turns, render_turn, total_tokens
from aimate_memory.sessions.trimming import SessionUsage, TrimPlan, plan_trim, usage, usage_level
from aimate_memory.text.estimate import prompt_tokens
from aimate_memory.vault.codec import MemoryDocument, content_hash, read_document
from aimate_memory.vault.layout import Layer, memory_file_name
from aimate_memory.vault.model import Memory, memory_from_document, mtime_of, new_id, to_datetime
from aimate_memory.vault.store import Vault
from aimate_memory.vault.validate import check_writable_text

if TYPE_CHECKING:
    from aimate_memory.config.loader import Config

CURRENT = PurePosixPath(Layer.SESSION.folder, "current.md")
ACTIVE_FOLDER = PurePosixPath(Layer.SESSION.folder, "active")
MAX_KEY_CHARS = 200
KEY_SLUG_CHARS = 64  # of the key in the file name; the hash keeps longer keys apart
LOCK_NAME = "session.lock"
EPISODES_NAME = "episodes.jsonl"  # the last episodes, for the session start (docs/design.md "Episodes")
DEFAULT_TITLE_PREFIX = "Session "  # a session nobody titled is named by its start time, until its episode names it
ROLES = frozenset({"user", "assistant", "system", "tool"})


class SessionActiveError(AimateError):
    pass


class NoSessionError(AimateError):
    pass


@dataclass(frozen=True)
class SessionSettings:
    max_tokens: int = 128_000
    warning_ratio: float = 0.7
    critical_ratio: float = 0.85
    trim_target_ratio: float = 0.5
    protected_rounds: int = 3
    summary_ttl_days: float = 14
    summary_max_chars: int = 1200

    @classmethod
    def from_config(cls, config: Config) -> SessionSettings:
        return cls(
            max_tokens=int(config.get("session.max_tokens")),
            warning_ratio=float(config.get("session.warning_ratio")),
            critical_ratio=float(config.get("session.critical_ratio")),
            trim_target_ratio=float(config.get("session.trim_target_ratio")),
            protected_rounds=int(config.get("session.protected_rounds")),
            summary_ttl_days=float(config.get("short_term.default_ttl_days")),
            summary_max_chars=int(config.get("summarizer.max_chars")),
        )


@dataclass(frozen=True)
class SessionSnapshot:
    id: str
    title: str
    status: str
    started_at: datetime
    window_start: int
    turns: list[Turn]
    rel_path: PurePosixPath
    summaries: list[str] = field(default_factory=list)
    key: str | None = None  # the client's session id it is kept under; None: `sessions/current.md`

    @property
    def window(self) -> list[Turn]:
        """System turns before the window start, then every turn from it."""
        return [turn for index, turn in enumerate(self.turns) if index >= self.window_start or turn.role == "system"]

    @property
    def window_tokens(self) -> int:
        return usage(self.turns, self.window_start)


@dataclass(frozen=True)
class AppendResult:
    number: int  # 1-based number of the appended turn
    usage: SessionUsage  # the window after the append (and the trim, if any)
    trim: TrimPlan | None  # the trim this append caused
    summary: Memory | None  # the short_term/contexts memory holding the trimmed turns
    warnings: list[str]

    def to_dict(self) -> dict[str, Any]:
        """`session append --json`: `usage` is the window's share of `session.max_tokens` (0–1+)."""
        return {
            "turns": self.number,
            "window_tokens": self.usage.tokens,
            "usage": round(self.usage.ratio, 4),
            "trimmed": self.trim is not None,
            "summary_id": self.summary.id if self.summary is not None else None,
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class SessionInfo:
    """A session as `session show --json` prints it: every turn, and which of them are in the window."""

    id: str
    title: str
    status: str
    started_at: datetime
    turns: list[Turn]
    window_start: int
    usage: SessionUsage
    path: str  # vault-relative
    summaries: list[str] = field(default_factory=list)
    key: str | None = None

    @property
    def window(self) -> list[int]:
        return [index for index, turn in enumerate(self.turns) if index >= self.window_start or turn.role == "system"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "key": self.key,
            "started_at": self.started_at.isoformat(),
            "path": self.path,
            "turns": [
                {"role": turn.role, "time": turn.time.isoformat(), "tokens": turn.tokens, "text": turn.text}
                for turn in self.turns
            ],
            "window": self.window,
            "tokens": total_tokens(self.turns),
            "window_tokens": self.usage.tokens,
            "usage": round(self.usage.ratio, 4),
            "summaries": list(self.summaries),
        }


class SessionFile:
    def __init__(
        self,
        vault: Vault,
        state_dir: Path,
        settings: SessionSettings | None = None,
        summarizer: Summarizer | None = None,
        clock: Clock | None = None,
        key: str | None = None,
    ) -> None:
        self.vault = vault
        self.state_dir = state_dir
        self.lock_path = state_dir / LOCK_NAME
        self.settings = settings or SessionSettings()
        self.summarizer = summarizer  # None: the extractive summarizer
        self.clock = clock or vault.clock
        self.key = session_key(key)
        self.rel = running_path(self.key)

    @property
    def path(self) -> Path:
        return self.vault.abs_path(self.rel)

    def keyed(self, key: str | None) -> SessionFile:
        """The same vault and settings, for the running session kept under `key`."""
        return SessionFile(self.vault, self.state_dir, self.settings, self.summarizer, self.clock, key)

    # -- public --------------------------------------------------------------------------------

    def start(self, title: str | None = None, *, replace: bool = False) -> SessionSnapshot:
        with file_lock(self.lock_path):
            if self.path.exists():
                if not replace:
                    current = self._read()
                    raise SessionActiveError(
                        f"session {current.id[:8]} '{current.title}' is still active",
                        "end it first, or start with replace (ends it, then starts a new one)",
                    )
                self._end_locked()
            self._write_new(title)
            return self._read()

    def append(self, role: str, text: str, *, tokens: int | None = None, time: datetime | None = None) -> AppendResult:
        if role not in ROLES:
            raise InvalidInputError(f"unknown role '{role}'", f"use one of: {', '.join(sorted(ROLES))}")
        turn = Turn(role, time or self.clock.now(), prompt_tokens(text) if tokens is None else tokens, text)
        with file_lock(self.lock_path):
            if not self.path.exists():
                self._write_new(None)
            doc = self._doc()
            earlier = parse_turns(doc.body)
            doc.set_body(_with_newline(doc.body) + render_turn(len(earlier) + 1, turn))
            turns = [*earlier, turn]  # the block round-trips exactly (tests/sessions)
            window_start = int(doc.get("window_start") or 0)
            trim = self._plan(turns, window_start)
            summary: Memory | None = None
            warnings: list[str] = []
            if trim.needed:
                summary, warnings = self._summarize(doc, turns, trim)
                window_start = trim.new_window_start
                doc.set("summaries", [*_string_list(doc.get("summaries")), summary.id])
            self._save(doc, turns, window_start)
        settings = self.settings
        level = usage_level(
            usage(turns, window_start), settings.max_tokens, settings.warning_ratio, settings.critical_ratio
        )
        return AppendResult(len(turns), level, trim if trim.needed else None, summary, [*warnings, *level.warnings()])

    def read(self) -> SessionSnapshot | None:
        """The active session, or None."""
        if not self.path.exists():
            return None
        return self._read()

    def running(self) -> list[SessionSnapshot]:
        """Every running session of the vault (`current.md`, then the keyed ones), oldest first."""
        keyed = [self._read(rel) for rel in self.vault.iter_memory_paths(ACTIVE_FOLDER) if rel.parent == ACTIVE_FOLDER]
        found = ([self._read(CURRENT)] if self.vault.abs_path(CURRENT).exists() else []) + keyed
        return sorted(found, key=lambda snapshot: snapshot.started_at)

    def end(self, fields: Mapping[str, Any] | None = None) -> Memory:
        """End the active session: `status: ended`, `ended_at`, `fields` (its episode, a better title),
        renamed out of `current.md`."""
        with file_lock(self.lock_path):
            if not self.path.exists():
                raise NoSessionError("no active session", "start one first")
            return self._end_locked(fields)

    def load(self, rel_path: PurePosixPath) -> Memory:
        """A past session's file (sessions may exceed `storage.max_file_bytes`)."""
        return self._load(rel_path)

    def info(self, session: SessionSnapshot | Memory) -> SessionInfo:
        """The active session (a snapshot) or a past one (its memory) as a `SessionInfo`."""
        if isinstance(session, SessionSnapshot):
            snapshot = session
        else:
            doc = session.doc if session.doc is not None else self._doc(session.rel_path)
            snapshot = SessionSnapshot(
                id=session.id,
                title=session.title,
                status=session.status,
                started_at=to_datetime(doc.get("started_at")) or session.created_at,
                window_start=int(doc.get("window_start") or 0),
                turns=parse_turns(doc.body),
                rel_path=session.rel_path,
                summaries=_string_list(doc.get("summaries")),
                key=_key_of(doc),
            )
        s = self.settings
        level = usage_level(snapshot.window_tokens, s.max_tokens, s.warning_ratio, s.critical_ratio)
        return SessionInfo(
            id=snapshot.id,
            title=snapshot.title,
            status=snapshot.status,
            started_at=snapshot.started_at,
            turns=snapshot.turns,
            window_start=snapshot.window_start,
            usage=level,
            path=snapshot.rel_path.as_posix(),
            summaries=snapshot.summaries,
            key=snapshot.key,
        )

    def list(self) -> list[Memory]:
        """Past sessions (ended or archived, month folders included), newest first."""
        sessions = [
            self._load(rel)
            for rel in self.vault.iter_memory_paths(PurePosixPath(Layer.SESSION.folder))
            if not is_running_path(rel)
        ]
        return sorted(sessions, key=_started_at, reverse=True)

    # -- internals -----------------------------------------------------------------------------

    def _doc(self, rel_path: PurePosixPath | None = None) -> MemoryDocument:
        rel_path = self.rel if rel_path is None else rel_path
        return read_document(self.vault.abs_path(rel_path), self.vault.max_bytes_for(rel_path))

    def _load(self, rel_path: PurePosixPath) -> Memory:
        path = self.vault.abs_path(rel_path)
        return memory_from_document(self._doc(rel_path), rel_path, self.vault.scope, mtime_of(path))

    def _read(self, rel_path: PurePosixPath | None = None) -> SessionSnapshot:
        rel_path = self.rel if rel_path is None else rel_path
        doc = self._doc(rel_path)
        return SessionSnapshot(
            id=str(doc.get("id")),
            title=str(doc.get("title") or "session"),
            status=str(doc.get("status") or "active"),
            started_at=to_datetime(doc.get("started_at")) or self.clock.now(),
            window_start=int(doc.get("window_start") or 0),
            turns=parse_turns(doc.body),
            rel_path=rel_path,
            summaries=_string_list(doc.get("summaries")),
            key=_key_of(doc),
        )

    def _write_new(self, title: str | None) -> None:
        now = self.clock.now()
        title = (title or "").strip() or f"{DEFAULT_TITLE_PREFIX}{now.strftime('%Y-%m-%d %H:%M')}"
        meta: dict[str, Any] = {
            "id": new_id(now),
            "type": Layer.SESSION.value,
            "scope": self.vault.scope.value,
            "category": "session",
            "title": title,
            "tags": [],
            "status": "active",
            "created_at": now,
            "updated_at": now,
            "started_at": now,
            "turns": 0,
            "tokens": 0,
            "window_start": 0,
            "window_tokens": 0,
            "summaries": [],
            "source": "session",
        }
        if self.key is not None:
            meta["session_key"] = self.key
        body = f"# {title}\n\n"
        meta["content_hash"] = content_hash(body)
        self.vault.write_document(self.rel, MemoryDocument.new(meta, body))

    def _plan(self, turns: Sequence[Turn], window_start: int) -> TrimPlan:
        s = self.settings
        return plan_trim(turns, window_start, s.max_tokens, s.critical_ratio, s.trim_target_ratio, s.protected_rounds)

    def _summarize(
        self, doc: MemoryDocument, turns: Sequence[Turn], trim: TrimPlan
    ) -> tuple[Memory, builtins.list[str]]:  # `list` here is SessionFile.list
        indexes = trim.trimmed_turn_indexes(turns)
        first, last = indexes[0] + 1, indexes[-1] + 1  # 1-based, as the headers number them
        summary = summarize_with_fallback([turns[i] for i in indexes], self.settings.summary_max_chars, self.summarizer)
        session_id, session_title = str(doc.get("id")), str(doc.get("title"))
        body = f"{summary.text}\n\n_From session {session_id[:8]} “{session_title}”, turns {first}–{last}._\n"
        memory, _ = self.vault.create(
            title=f"{session_title}: turns {first}–{last}",
            body=body,
            layer=Layer.SHORT_TERM,
            category="context",
            tags=["session-summary"],
            ttl_days=self.settings.summary_ttl_days,
            source="session_trim",
            extra={"source_session": session_id, "turn_range": f"{first}-{last}", "summarizer": summary.summarizer},
        )
        return memory, [summary.warning] if summary.warning else []

    def _save(self, doc: MemoryDocument, turns: Sequence[Turn], window_start: int) -> None:
        doc.set("turns", len(turns))
        doc.set("tokens", total_tokens(turns))
        doc.set("window_start", window_start)
        doc.set("window_tokens", usage(turns, window_start))
        doc.set("updated_at", self.clock.now())
        doc.set("content_hash", content_hash(doc.body))
        self.vault.write_document(self.rel, doc)

    def _end_locked(self, fields: Mapping[str, Any] | None = None) -> Memory:
        now = self.clock.now()
        doc = self._doc()
        for key, value in (fields or {}).items():
            doc.set(key, value)
        started = to_datetime(doc.get("started_at")) or now
        name = memory_file_name(started, "session", str(doc.get("title") or "session"))
        target = self.vault.unique_path(PurePosixPath(Layer.SESSION.folder), name)
        doc.set("status", "ended")
        doc.set("ended_at", now)
        doc.set("updated_at", now)
        self.vault.write_document(target, doc, origin=self.rel)
        self.path.unlink()
        ended = self._load(target)
        if fields and "episode" in fields:
            self._log_episode(ended, fields["episode"])
        return ended

    def _log_episode(self, ended: Memory, episode: Any) -> None:
        """The episode also goes to `state/episodes.jsonl`: a session start reads the last few lines there
        instead of parsing session files' YAML (60 ms for two at load 20). The session file keeps the record;
        this log is a cache of it, lost with the state folder (then the start shows no episodes)."""
        entry = {"id": ended.id, "title": ended.title, "ended_at": ended.updated_at.isoformat(), "episode": episode}
        path = self.state_dir / EPISODES_NAME
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")

    def recent_episodes(self, count: int) -> builtins.list[dict[str, Any]]:
        """The last `count` logged episodes, newest first (`id`, `title`, `ended_at`, `episode`)."""
        try:
            lines = (self.state_dir / EPISODES_NAME).read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        found: builtins.list[dict[str, Any]] = []
        for line in reversed(lines):
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a torn last line
            if isinstance(entry, dict) and entry.get("id"):
                found.append(entry)
            if len(found) >= count:
                break
        return found


def logged_episodes(state_dir: Path) -> dict[str, Any]:
    """Every logged episode (`state/episodes.jsonl`) by its session's id: a search's session results carry
    theirs. A torn or foreign line is skipped."""
    try:
        lines = (state_dir / EPISODES_NAME).read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    found: dict[str, Any] = {}
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("id"):
            found[str(entry["id"])] = entry.get("episode")
    return found


def running_path(key: str | None) -> PurePosixPath:
    """Where the running session kept under `key` lives (None: `sessions/current.md`)."""
    if key is None:
        return CURRENT
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", key).strip("-")[:KEY_SLUG_CHARS] or "session"
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]
    return ACTIVE_FOLDER / f"{slug}-{digest}.md"


def is_running_path(rel_path: PurePosixPath) -> bool:
    """A running session's file: `sessions/current.md` or one in `sessions/active/`."""
    return rel_path == CURRENT or rel_path.parent == ACTIVE_FOLDER


def session_key(key: str | None) -> str | None:
    """A client's session key as stored: one line of text, trimmed (None or blank: no key)."""
    if key is None or not key.strip():
        return None
    key = key.strip()
    if "\n" in key or "\r" in key or len(key) > MAX_KEY_CHARS:
        raise InvalidInputError(f"a session key is one line of at most {MAX_KEY_CHARS} characters", "e.g. claude:<id>")
    check_writable_text({"session key": key})
    return key


def _key_of(doc: MemoryDocument) -> str | None:
    value = doc.get("session_key")
    return str(value) if value else None


def _with_newline(body: str) -> str:
    return body if body.endswith("\n") or not body else body + "\n"


def _string_list(value: Any) -> list[str]:
    return [str(item) for item in value] if isinstance(value, (list, tuple)) else []


def _started_at(memory: Memory) -> datetime:
    doc = memory.doc
    return (to_datetime(doc.get("started_at")) if doc is not None else None) or memory.created_at
