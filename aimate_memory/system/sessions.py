"""`Sessions`: the conversations running in the current vault (the project's inside a project) — the one
nobody named in `sessions/current.md`, one per client session id in `sessions/active/` — trimmed into
`short_term/contexts/` summaries as the window fills (docs/design.md, "Sessions").

Git: turns are not committed one by one (a commit per turn would cost more than the turn); a trim's
summary memory is committed when it is written, and an ended session is committed under its final name.

Secrets (docs/reliability.md "Security"): a turn is what was said, and refusing it would lose the turn (a
hook has nobody to ask), so a secret in it is stored MASKED (`ghp_…****`, a password as `****`) and the
append's warnings say which kinds were masked; a session title holding one is refused like a memory's."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from aimate_memory.errors import InvalidInputError
from aimate_memory.git.activity import Commit, commits_between, uncommitted_files
from aimate_memory.lifecycle.completion import closing_reports, finished_tasks
from aimate_memory.sessions import AppendResult, SessionFile, SessionInfo, SessionSettings, summarizer_from_config
from aimate_memory.sessions.episode import Episode, activity_since, build_episode
from aimate_memory.sessions.store import DEFAULT_TITLE_PREFIX, SessionSnapshot, is_running_path
from aimate_memory.system.memories import Memories
from aimate_memory.system.perf import PerfLog, Stopwatch
from aimate_memory.system.store import Store
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.resolve import id_starts_with
from aimate_memory.vault.roots import Roots
from aimate_memory.vault.store import Vault

if TYPE_CHECKING:
    from aimate_memory.system.capture import Capture


class Sessions:
    """The sessions of the current vault. Offers `start`, `append` (a turn), `current`, `end` (an ended one
    leaves what the person said worth keeping for review, through `Capture`), `get` (running or past, by
    id), `running`, `list`, and `file` (the `SessionFile` itself)."""

    def __init__(self, store: Store, perf_log: PerfLog, memories: Memories, capture: Callable[[], Capture]) -> None:
        self._store = store
        self._perf_log = perf_log
        self._memories = memories
        # Asked for when a session ends: reading a session (a context, a prompt) does not build capture and
        # its kind model, numpy and conflict check (docs/design.md, "What a cold command loads").
        self._capture = capture

    def file(self, session: str | None = None) -> SessionFile:
        """The running session kept under `session` (a client's session id, e.g. `claude:<uuid>`), or the
        one nobody named (`sessions/current.md`: the CLI and MCP) — in the current vault."""
        vault = self._store.vault_for(None)
        return SessionFile(
            vault,
            Roots.state_dir(self._store.root_of(vault)),
            SessionSettings.from_config(self._store.config),
            summarizer_from_config(self._store.config),
            self._store.clock,
            session,
        )

    def start(self, title: str | None = None, *, replace: bool = False, session: str | None = None) -> SessionInfo:
        """Start a session; refuses while one is active unless `replace` (which ends that one first)."""
        if title:
            self._memories.guard_secrets({"title": title})
        sessions = self.file(session)
        return sessions.info(sessions.start(title, replace=replace))

    def append(self, role: str, content: str, tokens: int | None = None, *, session: str | None = None) -> AppendResult:
        """Append one turn to the session kept under `session` (starting it when it is not running); trims
        the window when it reaches `session.critical_ratio` of `session.max_tokens`, summarizing what left
        it into one memory."""
        from aimate_memory.git.secrets import mask_text, scan_text

        watch = Stopwatch()
        kinds = sorted({finding.kind for finding in scan_text(content)})
        sessions = self.file(session)
        result = sessions.append(role, mask_text(content) if kinds else content, tokens=tokens)
        if kinds:
            result.warnings.append(f"masked in the stored turn: {', '.join(kinds)} (secrets are not kept)")
        watch.lap("append")
        if result.summary is not None:
            summary = result.summary
            change = FileChange("add", summary.rel_path, "summary of turns trimmed from the session window")
            self._store.record(sessions.vault, ChangeSet(f'memory: summarize "{summary.title}"', [change]))
            watch.lap("summary_commit")
        watch.breakdown["trimmed"] = result.trim is not None
        self._perf_log.log("session_append", watch, Layer.SESSION.value)
        return result

    def current(self, session: str | None = None) -> SessionInfo | None:
        sessions = self.file(session)
        snapshot = sessions.read()
        return sessions.info(snapshot) if snapshot is not None else None

    def end(self, ref: str | None = None, *, session: str | None = None) -> SessionInfo | None:
        """End a running session (None when there is none to end); maintenance later files it by month.

        - `session`: the one kept under that client session id — and only it: a client invocation that
          never wrote a turn (`claude mcp list` fires SessionEnd too) has no session, so nothing ends;
        - `ref` (an id or id prefix, as `session show` takes): the running session it names; a past
          session's id says it has ended already, and any other is not found;
        - neither: the session nobody named, else the only running one; with several, name one."""
        sessions = self.file(session)
        if session is not None:
            return self._end(sessions) if sessions.read() is not None else None
        running = sessions.running()
        if ref is not None:
            named = [snapshot for snapshot in running if id_starts_with(snapshot.id, ref)]
            if not named:
                past = self.get(ref)  # raises when ref names no session
                raise InvalidInputError(
                    f"session {past.id[:8]} has already ended ({past.status})", "aimate mem session list"
                )
            return self._end(sessions.keyed(named[0].key))
        if sessions.read() is not None:
            return self._end(sessions)
        return self._end(sessions.keyed(_only(running).key)) if running else None

    def get(self, ref: str | None = None) -> SessionInfo:
        """A running session (by id prefix; none given: the one nobody named, else the only one running),
        or a past one by id, id prefix or path."""
        sessions = self.file()
        running = sessions.running()
        if ref is None:
            if not running:
                raise InvalidInputError("no active session", "start one: aimate mem session start")
            unnamed = [snapshot for snapshot in running if snapshot.key is None]
            return sessions.info(unnamed[0] if unnamed else _only(running))
        for snapshot in running:
            if id_starts_with(snapshot.id, ref):
                return sessions.info(snapshot)
        vault, rel = self._memories.locate(ref)
        if not rel.is_relative_to(PurePosixPath(Layer.SESSION.folder)) or is_running_path(rel):
            raise InvalidInputError(f"{ref} is not a session", "list them: aimate mem session list")
        past = SessionFile(vault, Roots.state_dir(self._store.root_of(vault)), sessions.settings)
        return past.info(past.load(rel))

    def close_idle(self) -> builtins.list[SessionInfo]:
        """End every running session of the current vault with no turn for `session.idle_timeout_minutes`:
        its client died without a SessionEnd (a closed window, a crash). Ended like any other — distilled,
        with its episode — so nothing is left running for ever (docs/design.md "Episodes")."""
        idle = timedelta(minutes=float(self._store.config.get("session.idle_timeout_minutes")))
        now = self._store.clock.now()
        sessions = self.file()
        closed = []
        for snapshot in sessions.running():
            last = max([snapshot.started_at, *(turn.time for turn in snapshot.turns)])
            if now - last >= idle:
                closed.append(self._end(sessions.keyed(snapshot.key)))
        return closed

    def recent_episodes(self, count: int) -> builtins.list[tuple[str, str, str, Episode]]:
        """(session id, title, ended_at, episode) of the last `count` sessions of the current vault that
        ended with one, newest first."""
        found = []
        for entry in self.file().recent_episodes(count):
            episode = Episode.from_frontmatter(entry.get("episode"))
            if episode is not None and not episode.empty:
                found.append(
                    (str(entry["id"]), str(entry.get("title") or ""), str(entry.get("ended_at") or ""), episode)
                )
        return found

    def running(self) -> builtins.list[SessionInfo]:
        """Every running session of the current vault — one per assistant window with hooks, and the one
        the CLI or MCP appends to — oldest first."""
        sessions = self.file()
        return [sessions.info(snapshot) for snapshot in sessions.running()]

    def list(self) -> builtins.list[SessionInfo]:
        """The running sessions, then past ones, newest first."""
        sessions = self.file()
        past = [sessions.info(memory) for memory in sessions.list()]
        return self.running() + past

    def _episode_fields(self, sessions: SessionFile) -> tuple[dict[str, Any], builtins.list[Commit]]:
        """The ending session's episode (docs/design.md "Episodes") and, when the session was only named by
        its start time, its first request as the title (nothing when the session holds nothing to say); and
        the commits made during it."""
        snapshot = sessions.read()
        if snapshot is None:
            return {}, []
        folder = _project_folder(self._store, sessions)
        # A hook's session file begins when its first turns are saved; the transcript says when it began.
        since = min(filter(None, [snapshot.started_at, activity_since(snapshot.turns)]))
        commits = commits_between(folder, since, self._store.clock.now()) if folder else []
        uncommitted = uncommitted_files(folder) if folder else []
        episode = build_episode(snapshot.turns, CAPTURE_READER, commits, uncommitted)
        if episode.empty:
            return {}, commits
        fields: dict[str, Any] = {"episode": episode.to_frontmatter()}
        title = episode.title()
        if title and snapshot.title.startswith(DEFAULT_TITLE_PREFIX):
            fields["title"] = title
        return fields, commits

    def _end(self, sessions: SessionFile) -> SessionInfo:
        fields, commits = self._episode_fields(sessions)
        ended = sessions.end(fields)
        change = FileChange("add", ended.rel_path, "session ended", old_path=None)
        self._store.record(sessions.vault, ChangeSet(f'memory: end session "{ended.title}"', [change]))
        info = sessions.info(ended)
        turns = [(turn.role, turn.text) for turn in info.turns]
        self._close_finished_tasks(sessions.vault, turns, commits)
        self._capture().propose_from_session(info.id, turns, key=info.key)
        return info

    def _close_finished_tasks(
        self, vault: Vault, turns: builtins.list[tuple[str, str]], commits: builtins.list[Commit]
    ) -> None:
        """Open tasks of this vault that the session finished — the person said so, or one of its commits
        closes them (lifecycle/completion.py) — are closed as `aimate mem done` would (docs/lifecycle.md
        "Tasks the person finishes")."""
        said = [sentence for role, text in turns if role == "user" for sentence in CAPTURE_READER.sentences(text)]
        reports = closing_reports(said, [commit.subject for commit in commits])
        if not reports:
            return
        self._store.refresh_vault(vault)  # a task written during this session is in the index
        where = MemoryFilter(
            layers=(Layer.SHORT_TERM,), categories=("task",), statuses=("active",), scopes=(vault.scope,)
        )
        tasks = [(memory.id, memory.text) for memory in self._memories.list(where)]
        for task_id in finished_tasks(tasks, reports):
            self._memories.complete(task_id)


class _CaptureReader:
    """An episode reads a turn as capture does (capture/distill.py): its typed sentences, a decision's and an
    open task's cues."""

    def sentences(self, text: str) -> builtins.list[str]:
        # Imported here, as `says` below: capture's rule tables load when a session ends, not when one is read.
        from aimate_memory.capture.heard import sentences

        return sentences(text)

    def decides(self, sentence: str) -> bool:
        from aimate_memory.capture.distill import says  # with the kind model and numpy: only when a session ends

        return says("decision", sentence)

    def leaves_open(self, sentence: str) -> bool:
        from aimate_memory.capture.distill import says

        return says("task", sentence)


CAPTURE_READER = _CaptureReader()


def _project_folder(store: Store, sessions: SessionFile) -> Path | None:
    """The project folder whose code a session in this vault worked on (None: a global session)."""
    return store.roots.project_dir if sessions.vault.scope is Scope.PROJECT else None


def _only(running: list[SessionSnapshot]) -> SessionSnapshot:
    """The one running session; several → an error naming them (which one is meant cannot be guessed)."""
    if len(running) == 1:
        return running[0]
    names = ", ".join(f"{snapshot.id[:8]} ({snapshot.key or 'unnamed'})" for snapshot in running)
    raise InvalidInputError(f"{len(running)} sessions are running: {names}", "name one by its id")
