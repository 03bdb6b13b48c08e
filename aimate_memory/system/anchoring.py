"""`Anchoring`, reached as `system.anchoring`: project memories against the code they cite (docs/anchors.md) —
`staleness` of one memory, `stale` (every possibly stale project memory, with what changed), `verify`
(re-anchor one to the code as it is now).

Anchors are written by the vault (`Vault.create`, `Vault.update`, `Vault.anchor_hand_edits` after a refresh)
through the project vault's `Anchorer`, `git/anchors.ProjectFiles`, which the store holds."""

from __future__ import annotations

from dataclasses import dataclass

from aimate_memory.errors import InvalidInputError
from aimate_memory.system.memories import Memories
from aimate_memory.system.store import Store
from aimate_memory.vault.anchors import Staleness
from aimate_memory.vault.changes import ChangeSet, FileChange
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.model import Memory
from aimate_memory.vault.store import anchors_value

#: what `stale` looks at: memories in use (archived and superseded ones are history)
IN_USE = ("active", "pending")


@dataclass(frozen=True)
class Verified:
    """What `verify` did: the memory as written now, and what was stale before (None: nothing was)."""

    memory: Memory
    was: Staleness | None


class Anchoring:
    """Offers `staleness(memory)`, `stale()` and `verify(ref)`."""

    def __init__(self, store: Store, memories: Memories) -> None:
        self._store = store
        self._memories = memories

    def staleness(self, memory: Memory) -> Staleness | None:
        """Whether a project memory's anchored files changed, moved or vanished since it was verified."""
        return self._store.staleness(memory)

    def stale(self) -> list[tuple[Memory, Staleness]]:
        """Every possibly stale project memory in use (active or pending, sessions left out), by path, from
        the index: no memory file is read, only the anchors are loaded for all and the stale ones whole;
        one `stat` per anchored file, git asked only about stale ones."""
        files = self._store.project_files
        vault = self._store.project_vault
        if files is None or vault is None or not vault.exists:
            return []
        where = MemoryFilter(statuses=IN_USE, layers=(Layer.CORE, Layer.SHORT_TERM, Layer.LONG_TERM), anchored=True)
        index = next(index for index in self._store.readable_indexes if index.vault is vault)
        found = {}
        for rowid, anchors in index.anchors(where):
            stale = files.staleness(anchors)
            if stale is not None:
                found[rowid] = stale
        memories = index.memories(found)
        return [(memories[rowid], stale) for rowid, stale in found.items() if rowid in memories]

    def verify(self, ref: str) -> Verified:
        """Re-anchor one project memory to the code as it is now (a person or an assistant checked it):
        each anchor follows its file's move and takes the file's blob now, one whose file is gone is
        dropped, `verified_at` becomes now. A memory with no `anchors` key yet gets the ones its text
        cites. One commit, like any edit."""
        memory = self._memories.get(ref)
        files = self._store.project_files
        if memory.scope is not Scope.PROJECT or files is None:
            raise InvalidInputError(
                f"{memory.id[:8]} is a global memory: only project memories are anchored to code",
                "global memories are about you, not one codebase; there is nothing to verify",
            )
        was = self._store.staleness(memory)
        now = self._store.clock.now()
        has_key = memory.doc is not None and memory.doc.get("anchors") is not None
        anchors = files.verify(memory.anchors, now) if has_key else files.anchors_for(memory.text)
        vault = self._store.vault_for(Scope.PROJECT)
        updated = vault.update(memory, {"anchors": anchors_value(anchors)}, touch=False)
        if updated is not memory:
            change = FileChange("update", updated.rel_path, "verified against the code")
            self._store.record(vault, ChangeSet(f'memory: verify "{updated.title}"', [change]))
        return Verified(updated, was)
