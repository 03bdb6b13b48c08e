"""Sessions: the conversation in `sessions/current.md` of the current vault (the project's inside a
project), trimmed into `short_term/contexts/` summaries as the window fills (docs/design.md, "Sessions").

Git: turns are not committed one by one (a commit per turn would cost more than the turn); a trim's
summary memory is committed when it is written, and an ended session is committed under its final name.

Secrets (docs/reliability.md "Security"): a turn is what was said, and refusing it would lose the turn (a
hook has nobody to ask), so a secret in it is stored MASKED (`ghp_…****`, a password as `****`) and the
append's warnings say which kinds were masked; a session title holding one is refused like a memory's."""

from __future__ import annotations

from pathlib import PurePosixPath

from aimate_memory.errors import InvalidInputError
from aimate_memory.sessions import AppendResult, SessionFile, SessionInfo, SessionSettings, summarizer_from_config
from aimate_memory.sessions.store import CURRENT
from aimate_memory.system.capture import CaptureActions
from aimate_memory.system.memories import MemoryActions
from aimate_memory.system.perf import PerfActions, Stopwatch
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.layout import Layer
from aimate_memory.vault.roots import Roots


class SessionActions(CaptureActions, PerfActions, MemoryActions):
    """Sessions; an ended one leaves what the person said worth keeping for review (CaptureActions)."""

    def session_file(self) -> SessionFile:
        vault = self.vault_for(None)
        return SessionFile(
            vault,
            Roots.state_dir(self.root_of(vault)),
            SessionSettings.from_config(self.config),
            summarizer_from_config(self.config),
            self.clock,
        )

    def start_session(self, title: str | None = None, *, replace: bool = False) -> SessionInfo:
        """Start a session; refuses while one is active unless `replace` (which ends that one first)."""
        if title:
            self.guard_secrets({"title": title})
        sessions = self.session_file()
        return sessions.info(sessions.start(title, replace=replace))

    def add_conversation(self, role: str, content: str, tokens: int | None = None) -> AppendResult:
        """Append one turn (starting a session when none is active); trims the window when it reaches
        `session.critical_ratio` of `session.max_tokens`, summarizing what left it into one memory."""
        from aimate_memory.git.secrets import mask_text, scan_text

        watch = Stopwatch()
        kinds = sorted({finding.kind for finding in scan_text(content)})
        sessions = self.session_file()
        result = sessions.append(role, mask_text(content) if kinds else content, tokens=tokens)
        if kinds:
            result.warnings.append(f"masked in the stored turn: {', '.join(kinds)} (secrets are not kept)")
        watch.lap("append")
        if result.summary is not None:
            summary = result.summary
            change = FileChange("add", summary.rel_path, "summary of turns trimmed from the session window")
            self._record(sessions.vault, ChangeSet(f'memory: summarize "{summary.title}"', [change]))
            watch.lap("summary_commit")
        watch.breakdown["trimmed"] = result.trim is not None
        self._log_perf("session_append", watch, Layer.SESSION.value)
        return result

    def current_session(self) -> SessionInfo | None:
        sessions = self.session_file()
        snapshot = sessions.read()
        return sessions.info(snapshot) if snapshot is not None else None

    def end_session(self, ref: str | None = None) -> SessionInfo | None:
        """End the active session (None when there is none); maintenance later files it by month. With
        `ref` (an id or id prefix, as `session show` takes) only that session is ended: only the active one
        can be, so a past session's id says it has ended already and any other is not found."""
        sessions = self.session_file()
        current = sessions.read()
        if ref is not None and (current is None or not current.id.startswith(ref.strip())):
            past = self.session(ref)  # raises when ref names no session
            raise InvalidInputError(
                f"session {past.id[:8]} has already ended ({past.status})", "aimate mem session list"
            )
        if current is None:
            return None
        ended = sessions.end()
        change = FileChange("add", ended.rel_path, "session ended", old_path=None)
        self._record(sessions.vault, ChangeSet(f'memory: end session "{ended.title}"', [change]))
        info = sessions.info(ended)
        self.propose_from_session(info.id, [(turn.role, turn.text) for turn in info.turns])
        return info

    def session(self, ref: str | None = None) -> SessionInfo:
        """The active session, or a past one by id, id prefix or path."""
        sessions = self.session_file()
        if ref is None:
            snapshot = sessions.read()
            if snapshot is None:
                raise InvalidInputError("no active session", "start one: aimate mem session start")
            return sessions.info(snapshot)
        current = sessions.read()
        if current is not None and current.id.startswith(ref):
            return sessions.info(current)
        vault, rel = self.locate(ref)
        if not rel.is_relative_to(PurePosixPath(Layer.SESSION.folder)) or rel == CURRENT:
            raise InvalidInputError(f"{ref} is not a session", "list them: aimate mem session list")
        past = SessionFile(vault, Roots.state_dir(self.root_of(vault)), sessions.settings)
        return past.info(past.load(rel))

    def sessions(self) -> list[SessionInfo]:
        """The active session (if any), then past ones, newest first."""
        sessions = self.session_file()
        current = sessions.read()
        past = [sessions.info(memory) for memory in sessions.list()]
        return ([sessions.info(current)] if current is not None else []) + past
