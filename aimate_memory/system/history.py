"""`GitActions`, reached as `system.git` (docs/design.md §8): the review gate (list, accept, reject),
committing hand edits, diffs, history of one memory or a vault, and cross-device sync. Every method returns
data; the CLI prints it.

The vaults in a git repository are the global vault when it is its own repository and the project vault
when the project is one; gitpython (~100–150 ms to import) is imported only by these methods."""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from aimate_memory.errors import AimateError, InvalidInputError, NotFoundError, OutsideVaultError
from aimate_memory.system.memories import Memories
from aimate_memory.system.records import CONFLICT_FIELD, ConflictRecord, TimelineEvent, TimelineRecord, conflicts_with
from aimate_memory.system.store import Store
from aimate_memory.system.timeline import change_event, file_events
from aimate_memory.system.trust import ProjectTrust, TeamMemory
from aimate_memory.vault.dates import parse_optional_when
from aimate_memory.vault.filters import parse_scope
from aimate_memory.vault.layout import Layer, Scope, location_of
from aimate_memory.vault.model import Memory, mtime_of, to_datetime
from aimate_memory.vault.resolve import id_starts_with
from aimate_memory.vault.roots import Roots
from aimate_memory.vault.store import Vault

if TYPE_CHECKING:
    from aimate_memory.git.history import LogEntry
    from aimate_memory.git.repo import VaultRepo
    from aimate_memory.git.review import PendingChange
    from aimate_memory.git.sync import SyncResult
    from aimate_memory.git.sync_record import SyncRecord
    from aimate_memory.system.conflicts import Conflicts

NOT_A_REPO_HINT = "run `aimate mem init` (the global vault), or `git init` in the project"


@dataclass
class ReviewItem:
    """One uncommitted memory change and the vault it is in; `conflicts`: for a pending capture that may
    contradict active memories (its `conflicts_with`), those memories — accepting it supersedes them."""

    scope: str
    change: PendingChange
    conflicts: list[ConflictRecord] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            **self.change.to_dict(),
            "conflicts": [conflict.to_dict() for conflict in self.conflicts],
        }


@dataclass
class ReviewOutcome:
    """What accepting or rejecting did to one path. action: accept | reject | skipped."""

    scope: str
    path: str
    action: str
    commit: str | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "path": self.path,
            "action": self.action,
            "commit": self.commit,
            "detail": self.detail,
        }


@dataclass
class CommitResult:
    """`aimate mem commit`: the commit in one vault (None: nothing to commit) and what it holds."""

    scope: str
    commit: str | None
    message: str
    changes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"scope": self.scope, "commit": self.commit, "message": self.message, "changes": self.changes}


@dataclass
class HistoryEntry:
    scope: str
    entry: LogEntry

    def to_dict(self) -> dict[str, Any]:
        return {"scope": self.scope, **self.entry.to_dict()}


@dataclass
class _GitVault:
    vault: Vault
    repo: VaultRepo

    @property
    def scope(self) -> str:
        return self.vault.scope.value


class GitActions:
    """The vaults' git side, reached as `system.git`. Offers review (`pending_changes`, `accept`,
    `accept_all`, `reject`), `commit`, `diff`/`diff_changes`, `log` (a memory's history across moves, or a
    vault's), `timeline` (what the assistant learned and what changed, by day and by session), and
    `sync_remote` (pull and push the global vault). Each returns records with `to_dict()`.
    A pending capture that may contradict active memories (docs/design.md, "Conflicts") is listed with them;
    accepting it supersedes them in the same commit, unless `keep_both`; `accept_all` leaves it for a person."""

    def __init__(
        self, store: Store, memories: Memories, conflicts: Callable[[], Conflicts], trust: ProjectTrust | None = None
    ) -> None:
        """`conflicts`: the facade's conflict check, asked for only when a pending capture names conflicts (the
        check loads numpy and capture's model: a review with none, or a timeline, never needs it)."""
        self._store = store
        self._memories = memories
        self._conflicts = conflicts
        self._trust = trust
        # The timeline's committed events by (vault, HEAD, since, limit): a commit's changes never change, so
        # a long-lived process (the daemon) reads `git log` again only when HEAD moved (`_committed_events`).
        self._committed: OrderedDict[tuple[object, ...], tuple[list[TimelineEvent], bool]] = OrderedDict()

    # -- which vaults are repositories ------------------------------------------------------------

    @contextmanager
    def _git_vaults(self, scope: Scope | None = None, required: bool = True) -> Iterator[list[_GitVault]]:
        """The vaults in a git repository (project first), opened; closed on exit. None (and `required`)
        raises NotFoundError."""
        from aimate_memory.git.repo import GitError, VaultRepo

        found: list[_GitVault] = []
        try:
            for vault in self._store.vaults:
                if scope is not None and vault.scope is not scope:
                    continue
                own = vault.scope is Scope.GLOBAL
                if own and not (vault.root / ".git").exists():
                    continue
                with contextlib.suppress(GitError):
                    found.append(
                        _GitVault(vault, VaultRepo(vault.root, self._store.config.get("git.author"), own_repo=own))
                    )
            if not found and required:
                where = f"the {scope.value} vault is" if scope else "no vault is"
                raise NotFoundError(f"{where} not in a git repository", NOT_A_REPO_HINT)
            yield found
        finally:
            for item in found:
                item.repo.close()

    def _keywords(self) -> list[str]:
        return list(self._store.config.get("privacy.sensitive_keywords") or [])

    # -- review -----------------------------------------------------------------------------------

    def pending_changes(self, scope: Scope | None = None, with_diff: bool = True) -> list[ReviewItem]:
        """Uncommitted memory changes (hand edits, moves, new files, conflicts), project first; each
        lists what it adds that looks like a secret. Then the team changes: project memories others added or
        changed (a `git pull`) that the person has not trusted yet (status `team`; system/trust.py)."""
        from aimate_memory.git.review import pending_changes

        team = self._team_changes(scope)
        with self._git_vaults(scope, required=not team) as repos:
            items = [
                ReviewItem(item.scope, change, self._conflicts_of(item.vault, change))
                for item in repos
                for change in pending_changes(item.repo, with_diff, sensitive_keywords=self._keywords())
                if is_reviewable(change)
            ]
        listed = {path for item in items if item.scope == Scope.PROJECT.value for path in item.change.paths}
        return items + [
            ReviewItem(Scope.PROJECT.value, self._team_change(memory, with_diff))
            for memory in team
            if PurePosixPath(memory.path) not in listed
        ]

    def _team_changes(self, scope: Scope | None) -> list[TeamMemory]:
        if self._trust is None or scope is Scope.GLOBAL:
            return []
        return [memory for memory in self._trust.team_changes() if Vault.is_memory_path(PurePosixPath(memory.path))]

    def _team_change(self, memory: TeamMemory, with_diff: bool) -> PendingChange:
        """A team change as review shows it: its text whole (the ledger keeps hashes, not the trusted text)."""
        from aimate_memory.git.review import PendingChange, memory_delta
        from aimate_memory.git.secrets import mask_text

        path = PurePosixPath(memory.path)
        vault = self._store.project_vault
        text = ""
        if with_diff and vault is not None:
            with contextlib.suppress(OSError, UnicodeDecodeError):
                text = vault.abs_path(path).read_text(encoding="utf-8")
        diff = "".join(f"+{line}\n" for line in text.splitlines())
        head = f"--- {'a' if memory.change == 'changed' else '/dev/null'}\n+++ b/{memory.path} ({memory.change})\n"
        body_diff = memory_delta("", text, memory.path)[1] if text else ""
        return PendingChange(
            path,
            "team",
            diff=mask_text(head + diff) if text else "",
            body_diff=mask_text(body_diff),
            title=memory.title,
            memory_id=memory.id,
            memory_status=memory.status,
        )

    def _accept_team(self, ref: str) -> ReviewOutcome | None:
        """Trust the team change `ref` names (path or id prefix); None when it names none."""
        if self._trust is None:
            return None
        for memory in self._team_changes(None):
            if ref in (memory.path, *(() if memory.id is None else (memory.id,))) or (
                memory.id is not None and len(ref) >= 4 and id_starts_with(memory.id, ref)
            ):
                self._trust.trust([memory.path])
                detail = f"trusted the team's {memory.change} memory {memory.path}"
                return ReviewOutcome(Scope.PROJECT.value, memory.path, "accept", None, detail)
        return None

    def _trust_accepted(self, item: _GitVault, change: PendingChange) -> None:
        """A person accepted a change in the project vault: its files are trusted as they are now."""
        if self._trust is not None and item.vault.scope is Scope.PROJECT:
            self._trust.trust_paths(change.paths)

    def _conflicts_of(self, vault: Vault, change: PendingChange) -> list[ConflictRecord]:
        memory = _pending_memory(vault, change)
        return self._conflicts().recorded(memory) if memory is not None and conflicts_with(memory) else []

    def accept(
        self,
        paths: Sequence[str],
        allow_secret: bool = False,
        scope: Scope | None = None,
        keep_both: bool = False,
        replace: Sequence[str] = (),
    ) -> list[ReviewOutcome]:
        """Commit each pending change (by vault path, or a path from the cwd), one commit each. A capture
        that may contradict active memories supersedes them in its commit — all those review shows, or only
        those `replace` names (ids or id prefixes, for one capture), or none with `keep_both`."""
        from aimate_memory.git.review import accept, refuse_unparsable

        _check_choice(paths, keep_both, replace)
        done = []
        pending = list(paths)
        if scope is not Scope.GLOBAL:
            for path in paths:
                team = self._accept_team(path)
                if team is not None:
                    done.append(team)
                    pending.remove(path)
        if not pending:
            return done
        with self._git_vaults(scope) as repos:
            for path in pending:
                item, change = _find_change(repos, path)
                refuse_unparsable(change)  # before anything is written for it
                superseded = self._settle_conflicts(item.vault, change, keep_both, replace)
                _activate_pending(item.vault, change)
                sha = accept(
                    item.repo,
                    change.path,
                    allow_secret=allow_secret,
                    sensitive_keywords=self._keywords(),
                    also=[(old.rel_path, f"superseded by {(change.memory_id or '')[:8]}") for old in superseded],
                )
                self._trust_accepted(item, change)
                detail = change.describe() + "".join(f"; supersedes {old.id[:8]} {old.title}" for old in superseded)
                done.append(ReviewOutcome(item.scope, change.path.as_posix(), "accept", sha, detail))
        return done

    def _settle_conflicts(
        self, vault: Vault, change: PendingChange, keep_both: bool, replace: Sequence[str] = ()
    ) -> list[Memory]:
        """A person accepting a capture that may contradict others chose it: the others it names that are
        still active in its vault become superseded by it — those `replace` names when it names any (the
        rest stay), none with `keep_both`. Either way the capture's `conflicts_with` goes. Returns the
        memories superseded."""
        memory = _pending_memory(vault, change)
        if memory is None or not conflicts_with(memory):
            if replace:
                raise InvalidInputError(f"{change.path.as_posix()} contradicts no active memory: nothing to replace")
            return []
        named = self._conflicts().recorded_memories(memory)
        superseded = [] if keep_both else _chosen(named, replace) if replace else named
        for old in superseded:
            self._memories.supersede(old, memory.id)
        fields: dict[str, Any] = {CONFLICT_FIELD: None}
        if superseded:
            fields["supersedes"] = superseded[0].id
        vault.update(memory, fields)
        return superseded

    def accept_all(self, allow_secret: bool = False, scope: Scope | None = None) -> list[ReviewOutcome]:
        """Commit every pending change, one commit per vault. Files with conflict markers, and (unless
        `allow_secret`) files whose new lines look like a secret, are skipped and reported."""
        from aimate_memory.git.review import pending_changes

        done: list[ReviewOutcome] = []
        for team in self._team_changes(scope):
            outcome = self._accept_team(team.path)
            done.extend([outcome] if outcome is not None else [])
        with self._git_vaults(scope, required=not done) as repos:
            for item in repos:
                ready, waiting = [], []
                changes = pending_changes(item.repo, with_diff=False, sensitive_keywords=self._keywords())
                for change in filter(is_reviewable, changes):
                    # read once, for both uses below; only a capture waiting for review (listing read its status)
                    pending = _pending_memory(item.vault, change) if change.memory_status == "pending" else None
                    skip = _skip_reason(change, allow_secret) or _conflict_skip(pending)
                    if skip:
                        done.append(ReviewOutcome(item.scope, change.path.as_posix(), "skipped", None, skip))
                    else:
                        ready.append(change)
                        waiting += [pending] if pending is not None else []
                if not ready:
                    continue
                for memory in waiting:  # a pending capture accepted becomes active in the same commit
                    item.vault.update(memory, {"status": "active"})
                paths = [path for change in ready for path in change.paths]
                body = "\n".join(f"- {change.describe()}: accepted in review" for change in ready)
                subject = f"memory: accept {len(ready)} reviewed change(s)"
                clean = {change.scanned_clean for change in ready if change.scanned_clean}
                sha = item.repo.commit_paths(
                    paths,
                    subject,
                    body,
                    allow_secret=allow_secret,
                    sensitive_keywords=self._keywords(),
                    scanned_clean=clean,
                )
                for change in ready:
                    self._trust_accepted(item, change)
                done.extend(ReviewOutcome(item.scope, c.path.as_posix(), "accept", sha, c.describe()) for c in ready)
        return done

    def reject(self, paths: Sequence[str], scope: Scope | None = None) -> list[ReviewOutcome]:
        """Undo each pending change: tracked files restored, new files moved out of the vault (kept)."""
        from aimate_memory.git.review import reject

        team = {memory.path for memory in self._team_changes(scope)}
        refused = [path for path in paths if path in team]
        if refused:
            raise InvalidInputError(
                f"{refused[0]} is the team's, committed in the project: there is nothing of yours to restore; "
                f"it stays out of every context until you accept it / {refused[0]} 是团队提交的记忆，"
                "无可还原；在你接受之前它不会进入任何上下文",
                "leave it untrusted, or remove it from the project with git like any other file",
            )
        done = []
        with self._git_vaults(scope) as repos:
            for path in paths:
                item, change = _find_change(repos, path)
                rejected = _pending_memory(item.vault, change) if change.status == "added" else None
                if rejected is not None:  # a capture the person said no to is never proposed again
                    from aimate_memory.system.capture import RejectedCaptures

                    RejectedCaptures(Roots.state_dir(self._store.roots.home)).add(rejected.body)
                for result in reject(item.repo, change.path):
                    done.append(ReviewOutcome(item.scope, result.path.as_posix(), "reject", None, result.describe()))
        return done

    # -- commit, diff -----------------------------------------------------------------------------

    def commit(self, message: str, scope: Scope | None = None, allow_secret: bool = False) -> CommitResult:
        """Commit every uncommitted change of one vault — the project's inside a project, else the
        global one — staging vault paths only, never the project's other files."""
        from aimate_memory.git.review import pending_changes

        message = message.strip() if message else ""
        if not message:
            raise InvalidInputError("a commit needs a message", "pass -m MESSAGE")
        vault = (
            self._store.vault_for(scope)
            if scope is not None
            else (self._store.vaults[0] if self._store.vaults else self._store.vault_for(None))
        )
        with self._git_vaults(vault.scope) as repos:
            repo = repos[0].repo
            pending = pending_changes(repo, with_diff=False, scan_secrets=False, paths_only=True)
            marked = [change.path for change in pending if change.status == "conflict"]
            if marked:
                more = f" (and {len(marked) - 1} more)" if len(marked) > 1 else ""
                raise InvalidInputError(
                    f"{marked[0]} holds conflict markers{more}",
                    "resolve the conflicts first; `aimate mem review` lists them",
                )
            paths = [path for change in pending for path in change.paths]
            body = "\n".join(f"- {change.describe()}" for change in pending)
            sha = repo.commit_paths(
                paths, message, body, allow_secret=allow_secret, sensitive_keywords=self._keywords()
            )
        changes = [change.describe() for change in pending] if sha else []
        return CommitResult(vault.scope.value, sha, message, changes)

    def diff_changes(self, ref: str | None = None, scope: Scope | None = None) -> list[ReviewItem]:
        """The uncommitted changes with their diffs: all, or one memory's (id, title or path)."""
        items = self.pending_changes(scope)
        if ref is None:
            return items
        with contextlib.suppress(NotFoundError), self._git_vaults(scope) as repos:
            item, change = _find_change(repos, ref)
            return [i for i in items if i.scope == item.scope and i.change.path == change.path]
        memory = self._memories.get(ref)
        wanted = [i for i in items if i.scope == memory.scope.value and memory.rel_path in i.change.paths]
        if not wanted:
            raise NotFoundError(f"no uncommitted change for {ref}", "`aimate mem diff` lists every change")
        return wanted

    def diff(self, ref: str | None = None, scope: Scope | None = None) -> str:
        """Uncommitted changes as one unified diff."""
        return "".join(item.change.diff for item in self.diff_changes(ref, scope))

    # -- history ----------------------------------------------------------------------------------

    def log(self, ref: str | None = None, limit: int = 20, scope: Scope | None = None) -> list[HistoryEntry]:
        """One memory's commits across renames and lifecycle moves (id, prefix, path or exact title; an
        id no longer in the vault still has history), or each vault's latest `limit` commits."""
        from aimate_memory.git.history import log_memory, log_vault

        with self._git_vaults(scope) as repos:
            if ref is None:
                return [HistoryEntry(i.scope, entry) for i in repos for entry in log_vault(i.repo, limit)]
            try:
                memory = self._memories.get(ref)
            except (NotFoundError, OutsideVaultError):
                memory = None
            if memory is not None:
                return [
                    HistoryEntry(i.scope, entry)
                    for i in repos
                    if i.scope == memory.scope.value
                    for entry in log_memory(i.repo, memory.id, memory.rel_path)
                ]
            entries = [HistoryEntry(i.scope, entry) for i in repos for entry in log_memory(i.repo, ref.strip())]
        if not entries:
            raise NotFoundError(f"no memory or history for {ref}", "give an id, a title or a path")
        return entries

    # -- timeline ---------------------------------------------------------------------------------

    def timeline(
        self, since: datetime | str | None = None, limit: int | None = None, scope: Scope | str | None = None
    ) -> TimelineRecord:
        """What the assistant learned and what changed, newest first (docs/usage.md, "Timeline"): captures,
        additions, edits, lifecycle moves (expired, promoted, archived, superseded) and removals of memory
        files — from each vault's git history (one `git log` for all commits, moves followed), its
        uncommitted changes (`pending`), and, for a vault outside git, its files' own times. Conversation
        transcripts (the session layer) are not events. `since`: a time or what `vault/dates.py` reads
        ("7d", "昨天"); `limit`: the newest that many events (the record says `truncated`)."""
        when = parse_optional_when(since, self._store.clock.now(), "since") if isinstance(since, str) else since
        if limit is not None and limit < 1:
            raise InvalidInputError(f"a limit must be at least 1, got {limit}", "e.g. --limit 50")
        wanted = parse_scope(scope) if isinstance(scope, str) else scope
        events: list[TimelineEvent] = []
        warnings: list[str] = []
        cut = False
        with self._git_vaults(wanted, required=False) as repos:
            in_git = {item.scope for item in repos}
            for item in repos:
                committed, vault_cut = self._committed_events(item, when, limit)
                cut = cut or vault_cut
                events.extend(committed)
                events.extend(self._pending_events(item, when))
        for vault in self._store.vaults:
            if (wanted is None or vault.scope is wanted) and vault.scope.value not in in_git:
                warnings.append(f"the {vault.scope.value} vault is not in git: its events are its files' own times")
                events.extend(file_events(vault.scan(read_only=True).memories, when))
        # Newest first; within one second (git's resolution), what is not committed yet comes first.
        events.sort(key=lambda event: (_event_time(event), event.pending), reverse=True)
        if limit is not None and len(events) > limit:
            events, cut = events[:limit], True
        return TimelineRecord(tuple(events), cut, tuple(warnings))

    def _committed_events(
        self, item: _GitVault, since: datetime | None, limit: int | None
    ) -> tuple[list[TimelineEvent], bool]:
        """The vault's committed memory changes as events, and whether `limit` cut them; kept by HEAD (the
        timeline through the daemon read every commit's files again on each call: docs/benchmarks.md)."""
        from aimate_memory.git.timeline import file_commits

        key = (item.vault.root, item.repo.head_commit(), since, limit)
        if key[1] is not None and key in self._committed:
            self._committed.move_to_end(key)
            events, cut = self._committed[key]
            return list(events), cut
        changes, cut = file_commits(item.repo, _is_timeline_path, since, limit)
        events = []
        for change in changes:
            found = change_event(
                change.status,
                change.path,
                change.old_path,
                change.before,
                change.after,
                item.vault.scope,
                change.date,
                commit=change.commit,
                subject=change.subject,
            )
            events.extend([found] if found is not None else [])
        self._committed[key] = (events, cut)
        while len(self._committed) > TIMELINES_KEPT:
            self._committed.popitem(last=False)
        return list(events), cut

    def _pending_events(self, item: _GitVault, since: datetime | None) -> list[TimelineEvent]:
        """The vault's uncommitted memory changes as events marked `pending`, at the file's time."""
        from aimate_memory.git.review import pending_changes

        tree = cache(item.repo.head_tree)  # read for the first change that has a side in HEAD: most have none
        events = []
        for change in pending_changes(item.repo, with_diff=False, scan_secrets=False):
            if change.status == "conflict" or not _is_timeline_path(change.path):
                continue
            status = {"added": "A", "deleted": "D", "renamed": "R"}.get(change.status, "M")
            old = item.repo.blob_text(tree(), item.repo.repo_path(change.old_path or change.path))
            new = item.repo.worktree_text(item.repo.repo_path(change.path))
            abs_path = item.vault.abs_path(change.path)
            moment = mtime_of(abs_path) if abs_path.exists() else self._store.clock.now()
            if since is not None and moment < since:
                continue
            found = change_event(
                status, change.path, change.old_path, old, new, item.vault.scope, moment.isoformat(), pending=True
            )
            events.extend([found] if found is not None else [])
        return events

    # -- sync -------------------------------------------------------------------------------------

    def sync_remote(self, remote: str | None = None, join: bool = False) -> SyncResult:
        """Pull and push the global vault through `git.remote` (or `remote`) on the remote's default branch
        (else `main`); never force-pushes. A disagreement that would lose commits (another branch name,
        unrelated histories, a force-pushed remote) raises SyncRefusedError naming the fix, changing
        nothing. `join`: merge a vault with its own unrelated history into the remote's, once."""
        from aimate_memory.git.sync import sync

        return sync(
            self._store.global_vault.root,
            remote or self._store.config.get("git.remote"),
            self._store.config.get("git.author"),
            self._keywords(),
            join=join,
        )

    def sync_recorded(self, by: str, remote: str | None = None, join: bool = False) -> SyncRecord:
        """`sync_remote`, its outcome kept in `state/sync.json` for `sync --status` and the next session start
        (docs/agents.md, "Sync that runs itself"). `by`: "daemon" or "cli". A failure is recorded and raised."""
        from aimate_memory.git.sync_record import SyncRecord, write_record

        state = Roots.state_dir(self._store.roots.home)
        try:
            result = self.sync_remote(remote, join=join)
        except AimateError as exc:
            error = exc.message + (f" ({exc.hint})" if exc.hint else "")
            write_record(state, SyncRecord(at=self._now_text(), ok=False, by=by, error=error))
            raise
        left_out = [path.as_posix() for path in result.left_out]
        record = SyncRecord(at=self._now_text(), ok=True, by=by, summary=result.summary(), left_out=left_out)
        write_record(state, record)
        record.result = result
        return record

    def sync_status(self) -> dict[str, Any]:
        """The last sync's record (when, by whom, what it did or why it failed) and where the global vault
        stands now: ahead/behind the remote as of the last fetch, the files a sync would leave out."""
        from aimate_memory.git.sync import sync_state
        from aimate_memory.git.sync_record import as_dict, read_record

        state = sync_state(self._store.global_vault.root)
        return {
            "remote": self._store.config.get("git.remote"),
            "last": as_dict(read_record(Roots.state_dir(self._store.roots.home))),
            "state": state.to_dict() if state is not None else None,
        }

    def _now_text(self) -> str:
        return self._store.clock.now().isoformat(timespec="seconds")

    def remote_moved(self) -> bool:
        """Another device pushed since this one last synced (one `git ls-remote`; True when unsure)."""
        from aimate_memory.git.sync import remote_moved

        remote = self._store.config.get("git.remote")
        return bool(remote) and remote_moved(self._store.global_vault.root, str(remote))


TIMELINES_KEPT = 8  # (vault, HEAD, since, limit) keys whose committed events `GitActions` keeps


def _is_timeline_path(path: PurePosixPath) -> bool:
    """A memory file whose changes are events: not a conversation transcript (the session layer)."""
    return Vault.is_memory_path(path) and location_of(path).layer is not Layer.SESSION


def _event_time(event: TimelineEvent) -> datetime:
    return to_datetime(event.when) or datetime.min.replace(tzinfo=timezone.utc)


def _pending_memory(vault: Vault, change: PendingChange) -> Memory | None:
    """The memory a change leaves, when it is a capture waiting for review."""
    if change.status not in ("added", "modified", "renamed") or change.path.suffix != ".md":
        return None
    try:
        memory = vault.load(change.path, read_only=True)  # only read: the simple frontmatter skips ruamel
    except (OSError, AimateError):
        return None
    return memory if memory.status == "pending" else None


def _check_choice(paths: Sequence[str], keep_both: bool, replace: Sequence[str]) -> None:
    """`replace` chooses among one capture's conflicts: with one path, and not with `keep_both`."""
    if replace and keep_both:
        raise InvalidInputError("--keep-both keeps them all, --replace retires the ones named: give one")
    if replace and len(paths) != 1:
        raise InvalidInputError("--replace chooses what one capture retires: accept it alone")


def _chosen(named: Sequence[Memory], replace: Sequence[str]) -> list[Memory]:
    """The memories of `named` that `replace` names by id or id prefix; a name matching none is refused
    (a typo must not retire nothing and leave the old rule standing unseen)."""
    chosen = []
    for prefix in replace:
        matches = [memory for memory in named if id_starts_with(memory.id, prefix)]
        if not prefix.strip() or not matches:
            listed = ", ".join(f"{memory.id[:8]} {memory.title}" for memory in named)
            raise InvalidInputError(f"{prefix!r} is none of the memories it may contradict", f"one of: {listed}")
        chosen += [memory for memory in matches if memory not in chosen]
    return chosen


def _conflict_skip(memory: Memory | None) -> str:
    """Why `accept_all` leaves a pending capture for a person: it may contradict active memories."""
    if memory is None or not conflicts_with(memory):
        return ""
    ids = ", ".join(memory_id[:8] for memory_id in conflicts_with(memory))
    return f"may contradict {ids}: accept it alone (--accept ID supersedes them, add --keep-both to keep both)"


def _activate_pending(vault: Vault, change: PendingChange) -> None:
    """Accepting a pending capture (`status: pending`, left uncommitted by `remember`) is a person saying
    it is right: it becomes `active` in the same commit. Any other change is committed as it is."""
    if change.status not in ("added", "modified", "renamed") or change.path.suffix != ".md":
        return
    try:
        # Read-only first (`update` reads the file afresh): two ruamel parses a file were 90 % of accepting
        # 20,000 files (issue 38).
        memory = vault.load(change.path, read_only=True)
    except (OSError, AimateError):
        return  # not a memory file the vault can read: committed as it is
    if memory.status == "pending":
        vault.update(memory, {"status": "active"})


def _skip_reason(change: PendingChange, allow_secret: bool) -> str:
    if change.status == "conflict":
        return "resolve its conflict first"
    if change.parse_error is not None:
        return f"does not parse as a memory ({change.parse_error}): fix it, then accept it"
    if change.secrets and not allow_secret:
        first = change.secrets[0]
        return f"holds a secret ({first.location}: {first.kind}: {first.excerpt_masked}); accept it with --allow-secret"
    return ""


def is_reviewable(change: PendingChange) -> bool:
    """A change review shows: a memory file (in a layer folder) or a file with conflict markers; not the
    vault's README, `.gitattributes`, or a session's transcript (conversations are never reviewed)."""
    if change.status == "conflict":
        return True
    return any(Vault.is_memory_path(path) and location_of(path).layer is not Layer.SESSION for path in change.paths)


def _find_change(repos: list[_GitVault], ref: str) -> tuple[_GitVault, PendingChange]:
    """The pending change `ref` names: a memory id or a unique prefix of it (as everywhere else), or a path
    (vault-relative, relative to the cwd, or absolute)."""
    from aimate_memory.git.review import pending_changes

    if not ref.strip():  # an empty prefix is a prefix of every id, and an empty path is the whole vault
        raise InvalidInputError("no change named: the id or path is empty", "`aimate mem review` lists them by id")
    by_id: list[tuple[_GitVault, PendingChange]] = []
    for item in repos:
        candidates = {PurePosixPath(ref)}
        with contextlib.suppress(AimateError):
            candidates.add(item.vault.rel_path(Path(ref).expanduser().absolute()))
        for change in pending_changes(item.repo, with_diff=False, scan_secrets=False):
            if candidates & {change.path, change.old_path}:
                return item, change
            if change.memory_id and id_starts_with(change.memory_id, ref) and is_reviewable(change):
                by_id.append((item, change))
    if len(by_id) == 1:
        return by_id[0]
    if by_id:
        shown = ", ".join(f"{(change.memory_id or '')[:8]} {change.title or change.path}" for _, change in by_id[:5])
        raise InvalidInputError(f"'{ref}' matches {len(by_id)} changed memories ({shown})", "type more of the id")
    raise NotFoundError(f"no uncommitted memory change for {ref}", "`aimate mem review` lists them by id")
