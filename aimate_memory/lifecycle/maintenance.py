"""One maintenance run per vault (docs/design.md §5): plan → write-ahead record → apply → sync the index →
report near-duplicates → one ChangeSet (the git layer commits it with every reason).

Uses are read from the journal (`lifecycle/journal.py`) and never written into a memory's file: a run
changes a file only for a lifecycle rule (expire, promote, archive), so review and git show nothing a read
did (docs/lifecycle.md "Uses").

Crash safety (kill -9 anywhere, then run again → same end state, nothing lost):

1. The plan — absolute field values, source and target paths — is written atomically to
   `state/maintenance.pending.json` before the first file changes.
2. Actions are applied by the idempotent executor; then the index is refreshed, the ChangeSet recorded,
   and the pending record deleted, in that order.
3. A run that finds a pending record first re-applies it (finishing half-done moves), and reports those
   changes in its own ChangeSet.

Hand edits belong to their owner (`git/committer.py`): where the tool commits, a memory a person changed
and nobody reviewed is left alone — no move — and listed in the run's warnings; its uses stay in the
journal for the next run. A file holding a secret is held out of the commit and reported; the rest of the
run is committed.

Older versions folded uses into frontmatter through `state/access.folding.jsonl` and
`state/access.carried.jsonl`; a run that finds either appends it to the journal once (`_absorb_legacy`).
"""

from __future__ import annotations

import contextlib
import json
import logging
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

    def disagree(self, first: str, second: str, cosine: float | None) -> bool:
        """Whether two memory texts take different sides (the conflict check's reading; `cosine` in the USE
        space, None when unknown): near-duplicates that disagree are never merged."""
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
# Uses an older version set aside to fold into frontmatter (one a run was folding, one it carried past a
# hand edit): absorbed into the journal once.
LEGACY_FILES = ("access.folding.jsonl", "access.carried.jsonl")
COMPACT_OVER_BYTES = 256_000  # a journal this big is rewritten one line per memory and day
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
    if dry_run:
        run.resumed = _read_pending(folder)
        legacy = [AccessJournal(folder / name).tally() for name in LEGACY_FILES]
        _plan_run(host, vault, policy, run, _merge(journal.tally(), *legacy))
        if report_duplicates:
            run.duplicates = _duplicates(host, vault, run)
        return run
    with maintenance_lock(folder):
        run.resumed, resumed_outcomes = _resume(folder, vault)
        run.warnings.extend(filter(None, [vault.remove_stale_temps()]))
        _absorb_legacy(folder, journal)
        _plan_run(host, vault, policy, run, journal.tally())
        if run.actions:
            _write_pending(folder, [*run.resumed, *run.actions])
        run.outcomes = apply_actions(vault, run.actions)
        changes = [o.change for o in [*resumed_outcomes, *run.outcomes] if o.change is not None]
        run.changeset = ChangeSet(run.subject, _unique(changes))
        _refresh(host, vault, run)
        if report_duplicates:
            run.duplicates = _duplicates(host, vault, run, refreshed=True)
        _commit(host, vault, run)
        (folder / PENDING_FILE).unlink(missing_ok=True)
        _compact(journal)
    return run


def _plan_run(
    host: MaintenanceHost, vault: Vault, policy: Policy, run: VaultRun, tallies: dict[str, AccessTally]
) -> None:
    """Plan the run into `run.actions`/`run.skipped`."""
    # Read-only: the executor reads each file it changes again, with ruamel, right before writing it.
    memories = vault.scan(read_only=True).memories
    planned = plan(memories, tallies, host.clock.now(), policy)
    run.stale = stale_memories(host, memories, host.clock.now(), policy)
    run.actions, run.skipped = leave_hand_edits_alone(planned, _person_changed(vault, host.config))
    run.warnings.extend(_skipped_warnings(run.skipped))


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


def leave_hand_edits_alone(planned: list[Action], unreviewed: set[PurePosixPath]) -> tuple[list[Action], list[Action]]:
    """(actions to apply, actions skipped for an unreviewed edit): a file a person changed and nobody
    reviewed is theirs until reviewed."""
    applied = [action for action in planned if action.rel_path not in unreviewed]
    skipped = [action for action in planned if action.rel_path in unreviewed]
    return applied, skipped


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
            # Read-only, as `_plan_run`'s: the executor reads each file it changes again before writing it.
            # With ruamel this scan was half of a `dedupe --apply`'s CPU (150 memories: 1.4 of 2.9 s profiled).
            by_id = {memory.id: memory for memory in vault.scan(read_only=True).memories}
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
        paraphrase = float(host.config.get("maintenance.paraphrase_threshold"))
        search = find_duplicates(
            index, threshold, memo=_read_memo(memo_path), paraphrase=paraphrase, disagree=host.disagree
        )
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


def _absorb_legacy(folder: Path, journal: AccessJournal) -> None:
    """Uses an older version left set aside, appended to the journal and removed (under the journal's lock;
    a kill between the two counts them twice, once, on the way to the new layout)."""
    for name in LEGACY_FILES:
        path = folder / name
        try:
            data = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        lines = data[: data.rfind("\n") + 1]
        if lines:
            journal.append(lines)
        path.unlink(missing_ok=True)


def _compact(journal: AccessJournal) -> None:
    try:
        if journal.path.stat().st_size > COMPACT_OVER_BYTES:
            journal.compact()
    except FileNotFoundError:
        return  # no use recorded yet (a fresh home): nothing to compact, nothing to warn about
    except OSError as exc:  # the journal still holds every use; compacting is only about its size
        log.warning("could not compact %s: %s", journal.path, exc)


def _resume(folder: Path, vault: Vault) -> tuple[list[Action], list[Outcome]]:
    """Finish a killed run from its pending record."""
    actions = _read_pending(folder)
    if not actions:
        return [], []
    outcomes = apply_actions(vault, actions)
    log.info("finished %d action(s) of an interrupted maintenance run", len(actions))
    return actions, outcomes


def _merge(*tallies: dict[str, AccessTally]) -> dict[str, AccessTally]:
    merged: dict[str, AccessTally] = {}
    for batch in tallies:
        for memory_id, tally in batch.items():
            before = merged.get(memory_id)
            merged[memory_id] = tally if before is None else before.plus(tally)
    return merged


def _write_pending(folder: Path, actions: list[Action]) -> None:
    data: dict[str, Any] = {"version": 1, "actions": [action.to_dict() for action in actions]}
    atomic_write_text(folder / PENDING_FILE, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


# A pending record of an older version may hold actions that folded uses into frontmatter: not finished.
LEGACY_KINDS = frozenset({"fold"})


def _read_pending(folder: Path) -> list[Action]:
    """The pending record's actions (a killed run's)."""
    path = folder / PENDING_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        items = [item for item in data.get("actions", []) if item.get("kind") not in LEGACY_KINDS]
        return [Action.from_dict(item) for item in items]
    except FileNotFoundError:
        return []
    except (ValueError, KeyError, TypeError, AttributeError):
        # Written atomically, so this is not a torn write: a person edited it. Keep it for inspection.
        log.warning("ignoring unreadable %s", path)
        path.rename(path.with_suffix(".bad"))
        return []
