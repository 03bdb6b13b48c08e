"""One maintenance run per vault (DESIGN §5): plan → write-ahead record → apply → fold the journal →
sync the index → report near-duplicates → one ChangeSet (the git layer commits it with every reason).

Crash safety (kill -9 anywhere, then run again → same end state, nothing lost or counted twice):

1. The live access journal is renamed to `state/access.folding.jsonl` under the journal's lock (recalls
   that come in meanwhile start a fresh journal). A leftover folding file from a killed run is used
   as is: it was never folded.
2. The plan — absolute field values, source and target paths — is written atomically to
   `state/maintenance.pending.json` before the first file changes.
3. Actions are applied by the idempotent executor; then the folding file is removed, the index synced,
   the ChangeSet recorded, and the pending record deleted, in that order.
4. A run that finds a pending record first re-applies it (finishing half-done moves, re-writing the same
   counter values), and reports those changes in its own ChangeSet.

So a killed run's accesses are folded exactly once: either the pending record carries them (absolute
counts) or the folding file still holds them and no file has them yet.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aimate_memory.lifecycle.dedupe import DuplicateGroup, find_duplicates, plan_merge
from aimate_memory.lifecycle.executor import Outcome, apply_actions
from aimate_memory.lifecycle.journal import AccessJournal, AccessTally
from aimate_memory.lifecycle.planner import Action, Kind, Policy, plan, summarize
from aimate_memory.locks import file_lock
from aimate_memory.vault.atomic import atomic_write_text
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.roots import Roots
from aimate_memory.vault.store import Vault

log = logging.getLogger(__name__)

PENDING_FILE = "maintenance.pending.json"
FOLDING_FILE = "access.folding.jsonl"
LOCK_FILE = "maintenance.lock"


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
    sync: Any = None  # SyncReport
    warnings: list[str] = field(default_factory=list)

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
            "warnings": self.warnings,
        }


def state_dir(system: Any, vault: Vault) -> Path:
    return Roots.state_dir(system.root_of(vault))


def maintenance_lock(folder: Path) -> contextlib.AbstractContextManager[None]:
    """One maintenance run per vault at a time (daemon schedule + a CLI `maintain`)."""
    return file_lock(folder / LOCK_FILE)


def run_maintenance(
    system: Any,
    *,
    dry_run: bool = False,
    vaults: list[Vault] | None = None,
    report_duplicates: bool = True,
) -> list[VaultRun]:
    """The ordered lifecycle run over each vault (default: all of `system.vaults`)."""
    policy = Policy.from_config(system.config)
    runs = []
    for vault in vaults if vaults is not None else system.vaults:
        runs.append(_run_vault(system, vault, policy, dry_run, report_duplicates))
    return runs


def _run_vault(system: Any, vault: Vault, policy: Policy, dry_run: bool, report_duplicates: bool) -> VaultRun:
    run = VaultRun(vault.scope.value, dry_run)
    folder = state_dir(system, vault)
    journal = system.journal_for(vault)
    folding = folder / FOLDING_FILE
    if dry_run:
        run.resumed = _read_pending(folder)
        tallies = _tallies(folding) if folding.exists() else journal.tally()[0]
        run.actions = plan(vault.scan().memories, tallies, system.clock.now(), policy)
        if report_duplicates:
            run.duplicates = _duplicates(system, vault, run)
        return run
    with maintenance_lock(folder):
        run.resumed, resumed_outcomes = _resume(folder, vault)
        _rotate(journal, folding)
        tallies = _tallies(folding)
        run.actions = plan(vault.scan().memories, tallies, system.clock.now(), policy)
        if run.actions or run.resumed:
            _write_pending(folder, [*run.resumed, *run.actions])
        run.outcomes = apply_actions(vault, run.actions)
        folding.unlink(missing_ok=True)
        changes = [o.change for o in [*resumed_outcomes, *run.outcomes] if o.change is not None]
        run.changeset = ChangeSet(run.subject, _unique(changes))
        _sync(system, vault, run)
        if report_duplicates:
            run.duplicates = _duplicates(system, vault, run, synced=True)
        system._record(vault, run.changeset)
        (folder / PENDING_FILE).unlink(missing_ok=True)
    return run


def run_dedupe(system: Any, *, apply: bool = False, vaults: list[Vault] | None = None) -> list[VaultRun]:
    """Report near-duplicates; with `apply`, merge each group (crash-safe like maintenance)."""
    runs = []
    for vault in vaults if vaults is not None else system.vaults:
        run = VaultRun(vault.scope.value, dry_run=not apply)
        folder = state_dir(system, vault)
        if not apply:
            run.duplicates = _duplicates(system, vault, run)
            runs.append(run)
            continue
        with maintenance_lock(folder):
            run.resumed, resumed_outcomes = _resume(folder, vault)
            _sync(system, vault, run)
            run.duplicates = _duplicates(system, vault, run, synced=True)
            by_id = {memory.id: memory for memory in vault.scan().memories}
            now = system.clock.now()
            for group in run.duplicates:
                survivor = by_id.get(group.survivor.id)
                others = [by_id[entry.id] for entry, _, _ in group.others if entry.id in by_id]
                if survivor is not None and others:
                    run.actions.extend(plan_merge(survivor, others, now))
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
                _sync(system, vault, run)
            system._record(vault, run.changeset)
            (folder / PENDING_FILE).unlink(missing_ok=True)
        runs.append(run)
    return runs


def _sync(system: Any, vault: Vault, run: VaultRun) -> None:
    try:
        run.sync = system.index_for(vault).sync()
        run.warnings.extend(run.sync.warnings)
    except Exception as exc:  # the files are done; the index is a cache the next sync repairs
        log.exception("index sync after maintenance failed")
        run.warnings.append(f"index sync failed ({type(exc).__name__}: {exc}); run `aimate mem index`")


def _duplicates(system: Any, vault: Vault, run: VaultRun, synced: bool = False) -> list[DuplicateGroup]:
    threshold = float(system.config.get("maintenance.duplicate_threshold"))
    try:
        index = system.index_for(vault)
        if not synced:
            index.sync()
        return find_duplicates(index, threshold)
    except Exception as exc:
        log.exception("near-duplicate search failed")
        run.warnings.append(f"near-duplicate search failed ({type(exc).__name__}: {exc})")
        return []


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
    absolute values, so it is dropped here rather than folded again."""
    actions = _read_pending(folder)
    if not actions:
        return [], []
    outcomes = apply_actions(vault, actions)
    (folder / FOLDING_FILE).unlink(missing_ok=True)
    log.info("finished %d action(s) of an interrupted maintenance run", len(actions))
    return actions, outcomes


def _write_pending(folder: Path, actions: list[Action]) -> None:
    data = {"version": 1, "actions": [action.to_dict() for action in actions]}
    atomic_write_text(folder / PENDING_FILE, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def _read_pending(folder: Path) -> list[Action]:
    path = folder / PENDING_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [Action.from_dict(item) for item in data.get("actions", [])]
    except FileNotFoundError:
        return []
    except (ValueError, KeyError, TypeError):
        # Written atomically, so this is not a torn write: a person edited it. Keep it for inspection.
        log.warning("ignoring unreadable %s", path)
        path.rename(path.with_suffix(".bad"))
        return []
