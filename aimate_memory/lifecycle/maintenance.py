"""One maintenance run per vault (docs/design.md §5): plan → write-ahead record → apply → fold the journal →
sync the index → report near-duplicates → one ChangeSet (the git layer commits it with every reason).

Crash safety (kill -9 anywhere, then run again → same end state, nothing lost or counted twice):

1. The live access journal is renamed to `state/access.folding.jsonl` under the journal's lock (recalls
   that come in meanwhile start a fresh journal). A leftover folding file from a killed run is used
   as is: it was never folded.
2. The plan — absolute field values, source and target paths — is written atomically to
   `state/maintenance.pending.json` before the first file changes.
3. Actions are applied by the idempotent executor; then the folding file is removed, the index refreshed,
   the ChangeSet recorded, and the pending record deleted, in that order.
4. A run that finds a pending record first re-applies it (finishing half-done moves, re-writing the same
   counter values), and reports those changes in its own ChangeSet.

So a killed run's accesses are folded exactly once: either the pending record carries them (absolute
counts) or the folding file still holds them and no file has them yet.

Hand edits belong to their owner (`git/committer.py`): where the tool commits, a memory a person changed
and nobody reviewed is left alone — no move, no fold — and listed in the run's warnings; a hand-made file
without frontmatter is never rewritten to fold counts. Their recalls are carried in
`state/access.carried.jsonl` to the next run (the pending record holds the carried tallies too, so a
resumed run writes the same file: still exactly once). A file holding a secret is held out of the commit
and reported; the rest of the run is committed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol

from aimate_memory.lifecycle.dedupe import DedupeMemo, DuplicateGroup, find_duplicates, plan_merge
from aimate_memory.lifecycle.executor import Outcome, apply_actions
from aimate_memory.lifecycle.journal import AccessJournal, AccessTally
from aimate_memory.lifecycle.planner import Action, Kind, Policy, plan, summarize
from aimate_memory.locks import file_lock
from aimate_memory.vault.atomic import atomic_write_text
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.layout import Layer
from aimate_memory.vault.model import to_datetime
from aimate_memory.vault.roots import Roots
from aimate_memory.vault.store import Vault

if TYPE_CHECKING:
    from collections.abc import Iterable

    from aimate_memory.clock import Clock
    from aimate_memory.config import Config
    from aimate_memory.git.committer import CommitReport
    from aimate_memory.index.memory_index import MemoryIndex
    from aimate_memory.vault.anchors import Staleness
    from aimate_memory.vault.model import Memory

log = logging.getLogger(__name__)


class MaintenanceHost(Protocol):
    """What a maintenance or dedupe run uses of the facade (`system/store.py`'s `Store` is one): the vaults,
    their state folders, journals and indexes, and the step that commits an action's changes."""

    @property
    def vaults(self) -> list[Vault]: ...

    @property
    def config(self) -> Config: ...

    @property
    def clock(self) -> Clock: ...

    def root_of(self, vault: Vault) -> Path: ...

    def journal_for(self, vault: Vault) -> AccessJournal: ...

    def index_for(self, vault: Vault) -> MemoryIndex: ...

    def record(
        self, vault: Vault, changeset: ChangeSet, automatic: bool = False, hold: Iterable[PurePosixPath] = ()
    ) -> CommitReport | None:
        """Commit what an action changed (`automatic`: nobody is there to answer a refused commit) and tell
        the listeners."""
        ...

    def staleness(self, memory: Memory) -> Staleness | None:
        """Whether a project memory's anchored files changed since it was verified (docs/anchors.md)."""
        ...


@dataclass(frozen=True)
class StaleMemory:
    """A possibly stale memory a run reports (docs/anchors.md). `propose_archive`: the file it is anchored to
    was deleted at least `long_term.archive_after_days` ago — proposed, never done: a person archives it
    (`aimate mem rm`) or says it still holds (`aimate mem verify`)."""

    id: str
    title: str
    rel_path: PurePosixPath
    stale: Staleness
    propose_archive: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "path": self.rel_path.as_posix(),
            "stale": self.stale.to_dict(),
            "propose_archive": self.propose_archive,
        }


PENDING_FILE = "maintenance.pending.json"
FOLDING_FILE = "access.folding.jsonl"
CARRIED_FILE = "access.carried.jsonl"
LOCK_FILE = "maintenance.lock"
MEMO_FILE = "duplicates.memo.json"
# Folders whose files the tool writes turn by turn without a commit each (conversation transcripts): an
# uncommitted change there is the tool's own, not a person's, so it does not hold maintenance back.
TOOL_WRITTEN_FOLDERS = frozenset({Layer.SESSION.folder})


@dataclass
class VaultRun:
    """What one run did (or, dry, would do) to one vault."""

    scope: str
    dry_run: bool
    actions: list[Action] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    resumed: list[Action] = field(default_factory=list)  # finished for a run that was killed
    duplicates: list[DuplicateGroup] = field(default_factory=list)
    changeset: ChangeSet | None = None
    sync: Any = None  # RefreshReport
    warnings: list[str] = field(default_factory=list)
    skipped: list[Action] = field(default_factory=list)  # due, but on a file with an unreviewed edit
    stale: list[StaleMemory] = field(default_factory=list)  # reported; archive only proposed

    @property
    def subject(self) -> str:
        return f"maintenance: {summarize([*self.resumed, *self.actions])}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "dry_run": self.dry_run,
            "summary": summarize([*self.resumed, *self.actions]),
            "actions": [action.to_dict() for action in self.actions],
            "resumed": [action.to_dict() for action in self.resumed],
            "changes": [change.describe() for change in (self.changeset.changes if self.changeset else [])],
            "duplicates": [group.to_dict() for group in self.duplicates],
            "skipped": [action.to_dict() for action in self.skipped],
            "stale": [entry.to_dict() for entry in self.stale],
            "warnings": self.warnings,
        }


def state_dir(host: MaintenanceHost, vault: Vault) -> Path:
    return Roots.state_dir(host.root_of(vault))


def maintenance_lock(folder: Path) -> contextlib.AbstractContextManager[None]:
    """One maintenance run per vault at a time (daemon schedule + a CLI `maintain`)."""
    return file_lock(folder / LOCK_FILE)


def run_maintenance(
    host: MaintenanceHost,
    *,
    dry_run: bool = False,
    vaults: list[Vault] | None = None,
    report_duplicates: bool = True,
) -> list[VaultRun]:
    """The ordered lifecycle run over each vault (default: all of `host.vaults`)."""
    policy = Policy.from_config(host.config)
    runs = []
    for vault in vaults if vaults is not None else host.vaults:
        runs.append(_run_vault(host, vault, policy, dry_run, report_duplicates))
    return runs


def _run_vault(host: MaintenanceHost, vault: Vault, policy: Policy, dry_run: bool, report_duplicates: bool) -> VaultRun:
    run = VaultRun(vault.scope.value, dry_run)
    folder = state_dir(host, vault)
    journal = host.journal_for(vault)
    folding = folder / FOLDING_FILE
    if dry_run:
        run.resumed = _read_pending(folder)[0]
        tallies = _tallies(folding) if folding.exists() else journal.tally()[0]
        _plan_run(host, vault, policy, run, _merge(tallies, _tallies(folder / CARRIED_FILE)))
        if report_duplicates:
            run.duplicates = _duplicates(host, vault, run)
        return run
    with maintenance_lock(folder):
        run.resumed, resumed_outcomes = _resume(folder, vault)
        run.warnings.extend(filter(None, [vault.remove_stale_temps()]))
        _rotate(journal, folding)
        carried = folder / CARRIED_FILE
        carry = _plan_run(host, vault, policy, run, _merge(_tallies(folding), _tallies(carried)))
        if run.actions or run.resumed or carry or carried.exists():
            _write_pending(folder, [*run.resumed, *run.actions], carry)
        run.outcomes = apply_actions(vault, run.actions)
        _write_carried(folder, carry)
        folding.unlink(missing_ok=True)
        changes = [o.change for o in [*resumed_outcomes, *run.outcomes] if o.change is not None]
        run.changeset = ChangeSet(run.subject, _unique(changes))
        _refresh(host, vault, run)
        if report_duplicates:
            run.duplicates = _duplicates(host, vault, run, refreshed=True)
        _commit(host, vault, run)
        (folder / PENDING_FILE).unlink(missing_ok=True)
    return run


def _plan_run(
    host: MaintenanceHost, vault: Vault, policy: Policy, run: VaultRun, tallies: dict[str, AccessTally]
) -> dict[str, AccessTally]:
    """Plan the run into `run.actions`/`run.skipped`; returns the recalls to carry to the next run."""
    # Read-only: the executor reads each file it changes again, with ruamel, right before writing it.
    memories = vault.scan(read_only=True).memories
    planned = plan(memories, tallies, host.clock.now(), policy)
    run.stale = stale_memories(host, memories, host.clock.now(), policy)
    unreviewed = _person_changed(vault, host.config)
    bare = {memory.id for memory in memories if memory.doc is None or not memory.doc.has_frontmatter}
    run.actions, run.skipped, kept_out = leave_hand_edits_alone(planned, unreviewed, bare)
    run.warnings.extend(_skipped_warnings(run.skipped))
    return {action.memory_id: tallies[action.memory_id] for action in kept_out if action.memory_id in tallies}


def stale_memories(
    host: MaintenanceHost, memories: Iterable[Memory], now: datetime, policy: Policy
) -> list[StaleMemory]:
    """The live (active, pending) anchored memories whose files changed since they were verified; one whose
    anchored file was deleted `archive_after_days` ago or more is proposed for archive."""
    found = []
    for memory in memories:
        if not memory.anchors or memory.archived or memory.status not in ("active", "pending"):
            continue
        stale = host.staleness(memory)
        if stale is None:
            continue
        deleted = to_datetime(stale.deleted_at) if stale.what == "deleted" else None
        due = deleted is not None and (now - deleted).total_seconds() >= policy.archive_after_days * 86400
        found.append(StaleMemory(memory.id, memory.title, memory.rel_path, stale, due))
    return found


def _person_changed(vault: Vault, config: Any) -> set[PurePosixPath]:
    from aimate_memory.git.committer import unreviewed_paths_for

    return {path for path in unreviewed_paths_for(vault, config) if path.parts[0] not in TOOL_WRITTEN_FOLDERS}


def leave_hand_edits_alone(
    planned: list[Action], unreviewed: set[PurePosixPath], bare_ids: set[str]
) -> tuple[list[Action], list[Action], list[Action]]:
    """(actions to apply, actions skipped for an unreviewed edit, every action not applied). A fold into
    a file without frontmatter is not applied either: the file stays as its author wrote it."""
    applied, skipped, kept_out = [], [], []
    for action in planned:
        if action.rel_path in unreviewed:
            skipped.append(action)
            kept_out.append(action)
        elif action.kind == Kind.FOLD and action.memory_id in bare_ids:
            kept_out.append(action)
        else:
            applied.append(action)
    return applied, skipped, kept_out


def _commit(host: MaintenanceHost, vault: Vault, run: VaultRun) -> None:
    """One commit for the run; files it holds out (a secret) are reported, never a reason to fail."""
    if run.changeset is None:
        return
    report = host.record(vault, run.changeset, automatic=True)
    if report is not None:
        run.warnings.extend(report.warnings)


def run_dedupe(host: MaintenanceHost, *, apply: bool = False, vaults: list[Vault] | None = None) -> list[VaultRun]:
    """Report near-duplicates; with `apply`, merge each group (crash-safe like maintenance)."""
    runs = []
    for vault in vaults if vaults is not None else host.vaults:
        run = VaultRun(vault.scope.value, dry_run=not apply)
        folder = state_dir(host, vault)
        if not apply:
            run.duplicates = _duplicates(host, vault, run)
            runs.append(run)
            continue
        with maintenance_lock(folder):
            run.resumed, resumed_outcomes = _resume(folder, vault)
            _refresh(host, vault, run)
            run.duplicates = _duplicates(host, vault, run, refreshed=True)
            by_id = {memory.id: memory for memory in vault.scan().memories}
            now = host.clock.now()
            planned: list[Action] = []
            for group in run.duplicates:
                survivor = by_id.get(group.survivor.id)
                others = [by_id[entry.id] for entry, _, _ in group.others if entry.id in by_id]
                if survivor is not None and others:
                    planned.extend(plan_merge(survivor, others, now))
            run.actions, run.skipped = _without_unreviewed(host, vault, planned)
            run.warnings.extend(_skipped_warnings(run.skipped))
            if run.actions or run.resumed:
                _write_pending(folder, [*run.resumed, *run.actions])
            run.outcomes = apply_actions(vault, run.actions)
            changes = [o.change for o in [*resumed_outcomes, *run.outcomes] if o.change is not None]
            merged = sum(1 for action in run.actions if action.kind == Kind.SUPERSEDE)
            subject = f"dedupe: merged {merged} near-duplicate(s) into {len(run.duplicates)}"
            if run.resumed and not run.actions:
                subject = run.subject
            run.changeset = ChangeSet(subject, _unique(changes))
            if run.actions:
                _refresh(host, vault, run)
            _commit(host, vault, run)
            (folder / PENDING_FILE).unlink(missing_ok=True)
        runs.append(run)
    return runs


def _without_unreviewed(
    host: MaintenanceHost, vault: Vault, planned: list[Action]
) -> tuple[list[Action], list[Action]]:
    """A merge touching a file with an unreviewed edit is skipped whole (survivor and losers)."""
    unreviewed = _person_changed(vault, host.config)
    groups: dict[str, list[Action]] = {}
    for action in planned:  # plan_merge: the survivor's MERGE, then its SUPERSEDEs, per group
        key = action.memory_id if action.kind == Kind.MERGE else next(reversed(groups), action.memory_id)
        groups.setdefault(key, []).append(action)
    applied: list[Action] = []
    skipped: list[Action] = []
    for actions in groups.values():
        (skipped if any(a.rel_path in unreviewed for a in actions) else applied).extend(actions)
    return applied, skipped


def _skipped_warnings(skipped: list[Action]) -> list[str]:
    from aimate_memory.git.committer import held_unreviewed, held_warnings

    return held_warnings(held_unreviewed(action.rel_path for action in skipped))


def _refresh(host: MaintenanceHost, vault: Vault, run: VaultRun) -> None:
    try:
        run.sync = host.index_for(vault).refresh()
        run.warnings.extend(run.sync.warnings)
    except Exception as exc:  # the files are done; the index is a cache the next sync repairs
        log.exception("index sync after maintenance failed")
        run.warnings.append(f"index sync failed ({type(exc).__name__}: {exc}); run `aimate mem index`")


def _duplicates(host: MaintenanceHost, vault: Vault, run: VaultRun, refreshed: bool = False) -> list[DuplicateGroup]:
    """Near-duplicate groups, searching only what changed since the last search (its memo, in the state
    folder beside the index: a cache like it, rewritten whole, ignored when unreadable)."""
    threshold = float(host.config.get("maintenance.duplicate_threshold"))
    memo_path = state_dir(host, vault) / MEMO_FILE
    try:
        index = host.index_for(vault)
        if not refreshed:
            index.refresh()
        search = find_duplicates(index, threshold, memo=_read_memo(memo_path))
    except Exception as exc:
        log.exception("near-duplicate search failed")
        run.warnings.append(f"near-duplicate search failed ({type(exc).__name__}: {exc})")
        return []
    try:
        atomic_write_text(memo_path, json.dumps(search.memo.to_json(), ensure_ascii=False) + "\n")
    except OSError as exc:  # the next search checks everything again; nothing else depends on it
        log.warning("could not keep the near-duplicate memo %s: %s", memo_path, exc)
    return search.groups


def _read_memo(path: Path) -> DedupeMemo | None:
    try:
        return DedupeMemo.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


def _unique(changes: list[FileChange]) -> list[FileChange]:
    return list(dict.fromkeys(changes))


def _tallies(path: Path) -> dict[str, AccessTally]:
    return AccessJournal(path).tally()[0]


def _rotate(journal: AccessJournal, folding: Path) -> None:
    """Move the live journal aside to be folded (under the journal's own lock, so no recall is lost).
    A folding file left by a killed run is folded first; the live journal waits for the next run."""
    if folding.exists() or not journal.path.exists():
        return
    with journal.lock():
        if journal.path.exists():
            os.replace(journal.path, folding)


def _resume(folder: Path, vault: Vault) -> tuple[list[Action], list[Outcome]]:
    """Finish a killed run from its pending record. Its folding journal was counted into that record's
    absolute values (or its carried tallies), so it is dropped here rather than folded again."""
    actions, carry = _read_pending(folder)
    if not actions and carry is None:
        return [], []
    outcomes = apply_actions(vault, actions)
    if carry is not None:
        _write_carried(folder, carry)
    (folder / FOLDING_FILE).unlink(missing_ok=True)
    log.info("finished %d action(s) of an interrupted maintenance run", len(actions))
    return actions, outcomes


def _merge(*tallies: dict[str, AccessTally]) -> dict[str, AccessTally]:
    merged: dict[str, AccessTally] = {}
    for batch in tallies:
        for memory_id, tally in batch.items():
            before = merged.get(memory_id)
            merged[memory_id] = (
                tally if before is None else AccessTally(before.count + tally.count, max(before.last, tally.last))
            )
    return merged


def _write_carried(folder: Path, carry: dict[str, AccessTally]) -> None:
    """Replace the carried recalls (one journal line per recall, at the last time: count and last use kept)."""
    path = folder / CARRIED_FILE
    if not carry:
        if path.exists():
            path.unlink()
        return
    lines = [
        json.dumps({"id": memory_id, "at": tally.last.isoformat(timespec="seconds")}) + "\n"
        for memory_id, tally in sorted(carry.items())
        for _ in range(tally.count)
    ]
    atomic_write_text(path, "".join(lines))


def _write_pending(folder: Path, actions: list[Action], carry: dict[str, AccessTally] | None = None) -> None:
    data: dict[str, Any] = {"version": 1, "actions": [action.to_dict() for action in actions]}
    if carry is not None:
        data["carried"] = {key: [t.count, t.last.isoformat()] for key, t in carry.items()}
    atomic_write_text(folder / PENDING_FILE, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def _when(value: object) -> datetime:
    """A carried tally's time; a missing one is an edit by hand like any other unreadable value."""
    when = to_datetime(value)
    if when is None:
        raise ValueError(f"no time in a carried tally: {value!r}")
    return when


def _read_pending(folder: Path) -> tuple[list[Action], dict[str, AccessTally] | None]:
    """The pending record's actions and carried tallies (None: a record from before carrying)."""
    path = folder / PENDING_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        actions = [Action.from_dict(item) for item in data.get("actions", [])]
        carried = data.get("carried")
        carry = None if carried is None else {k: AccessTally(int(c), _when(t)) for k, (c, t) in carried.items()}
        return actions, carry
    except FileNotFoundError:
        return [], None
    except (ValueError, KeyError, TypeError):
        # Written atomically, so this is not a torn write: a person edited it. Keep it for inspection.
        log.warning("ignoring unreadable %s", path)
        path.rename(path.with_suffix(".bad"))
        return [], None
