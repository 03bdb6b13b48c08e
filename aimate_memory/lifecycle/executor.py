"""Apply lifecycle actions to a vault: idempotent, so a run killed at any point is finished by a rerun.

How each action stays safe to repeat:

- Field changes (merge) write absolute values computed when the plan was made; writing them again
  changes nothing.
- A move writes the new file (atomically) before removing the old one (`Vault.move`). Before moving,
  the executor looks at the target: a file there holding the same id is the new copy from a run that was
  killed between the two steps, so only the old file is removed. No old file and a new copy → already
  done. A target taken by another memory → the next free `-2`, `-3` name, checked the same way.
- A memory that is in neither place was moved or deleted by a person since the plan: skipped.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from aimate_memory.errors import MemoryFileError
from aimate_memory.lifecycle.planner import Action, Kind
from aimate_memory.vault.changes import FileChange
from aimate_memory.vault.layout import with_clash_suffix
from aimate_memory.vault.model import Memory
from aimate_memory.vault.store import Vault

log = logging.getLogger(__name__)


@dataclass
class Outcome:
    action: Action
    change: FileChange | None  # None: nothing there to change (the memory went away)
    finished: bool = False  # True: completed what a killed run had started


def apply_actions(vault: Vault, actions: Iterable[Action]) -> list[Outcome]:
    return [apply_action(vault, action) for action in actions]


def apply_action(vault: Vault, action: Action) -> Outcome:
    if action.is_move:
        return _move(vault, action)
    return _update(vault, action)


def _load_if(vault: Vault, rel: PurePosixPath, memory_id: str) -> Memory | None:
    """The memory at `rel` if that file exists and holds `memory_id`. Read-only (`Vault.load`): what is
    written back is read again first (`Vault.move` and `Vault.update` re-read the file), so this copy only
    says which memory is there — each move parsed its file three times with ruamel (`maintain` of 55 moves:
    291 parses, ~2/3 of its CPU; docs/reliability.md, "The suite's cost")."""
    if not vault.abs_path(rel).is_file():
        return None
    try:
        memory = vault.load(rel, read_only=True)
    except (MemoryFileError, OSError):
        return None
    return memory if memory.id == memory_id else None


def _find(vault: Vault, action: Action) -> Memory | None:
    memory = _load_if(vault, action.rel_path, action.memory_id)
    if memory is not None:
        return memory
    for found in vault.scan(read_only=True).memories:  # moved by a person since the plan was made
        if found.id == action.memory_id and not found.archived:
            return found
    return None


def _target(vault: Vault, action: Action) -> tuple[PurePosixPath, bool]:
    """Where the move goes, and whether a complete copy is already there."""
    base = action.target_rel_path
    assert base is not None
    attempt = 1
    while True:
        candidate = base.parent / with_clash_suffix(base.name, attempt)
        if not vault.abs_path(candidate).exists():
            return candidate, False
        if _load_if(vault, candidate, action.memory_id) is not None:
            return candidate, True
        attempt += 1


def _move(vault: Vault, action: Action) -> Outcome:
    old = _load_if(vault, action.rel_path, action.memory_id)
    target, copied = _target(vault, action)
    if old is not None and not copied:
        moved = vault.move(old, target, dict(action.fields), read_only=True)  # only its path is used
        return Outcome(action, FileChange("move", moved.rel_path, action.reason, old_path=action.rel_path))
    if old is not None and copied:
        # Killed between writing the new file and removing the old one: finish the move.
        with contextlib.suppress(FileNotFoundError):
            vault.abs_path(action.rel_path).unlink()
        log.info("finished an interrupted move %s → %s", action.rel_path, target)
        change = FileChange("move", target, action.reason, old_path=action.rel_path)
        return Outcome(action, change, finished=True)
    if copied:
        return Outcome(action, FileChange("move", target, action.reason, old_path=action.rel_path), finished=True)
    log.warning("skipped %s %s: the memory is no longer there", action.kind, action.rel_path)
    return Outcome(action, None)


def _update(vault: Vault, action: Action) -> Outcome:
    memory = _find(vault, action)
    if memory is None:
        log.warning("skipped %s %s: the memory is no longer there", action.kind, action.rel_path)
        return Outcome(action, None)
    # Counters are not edits: `updated_at` (recency in ranking) moves only when a merge changes content.
    vault.update(memory, dict(action.fields), touch=action.kind == Kind.MERGE)
    return Outcome(action, FileChange("update", memory.rel_path, action.reason))
