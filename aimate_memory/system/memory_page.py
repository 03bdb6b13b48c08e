"""`MemoryPage`, reached as `system.memory_page` (and `system.details`): everything a memory's page shows in
one call — the memory, its history across moves, its supersede chain both ways, its neighbours in its
conversation, its `related` references resolved (docs/usage.md, "Details")."""

from __future__ import annotations

from aimate_memory.errors import AimateError
from aimate_memory.retrieval.neighbours import SPAN
from aimate_memory.system.history import GitActions
from aimate_memory.system.memories import Memories
from aimate_memory.system.records import LinkedMemory, MemoryDetailsRecord, frontmatter_fields, memory_fields
from aimate_memory.system.store import Store
from aimate_memory.vault.model import Memory

# A supersede chain longer than this is cut (a hand edit could make a loop; `seen` stops that, this stops
# a file naming a new id on every edit from making a page of thousands).
MAX_CHAIN = 50


class MemoryPage:
    """A memory with what surrounds it. Offers `details(ref)` → `MemoryDetailsRecord`."""

    def __init__(self, store: Store, memories: Memories, git: GitActions) -> None:
        self._store = store
        self._memories = memories
        self._git = git

    def details(self, ref: str) -> MemoryDetailsRecord:
        """One memory (id, unique id prefix, path or exact title) with its history across moves (empty, with
        `history_note`, when its vault is not in git), supersede chain both ways, thread neighbours (read
        from the index: refresh it first), `related` resolved to titles (dangling ones marked `missing`),
        its `anchors` as written, and `stale`: what changed in the code it is anchored to since it was
        verified (`Staleness.to_dict()`, None when nothing did; docs/anchors.md). Counted as a use, like
        `show`."""
        memory = self._memories.read(ref)
        history, note = self._history(memory)
        before, after = self._neighbours(memory)
        frontmatter = frontmatter_fields(memory)
        stale = self._store.staleness(memory)
        return MemoryDetailsRecord(
            memory=memory_fields(memory),
            frontmatter=frontmatter,
            location=f"{memory.scope.value}:{memory.rel_path.as_posix()}",
            history=history,
            history_note=note,
            supersedes=self._chain(memory, "supersedes"),
            superseded_by=self._chain(memory, "superseded_by"),
            thread_before=tuple(LinkedMemory.of(m.id, m) for m in before),
            thread_after=tuple(LinkedMemory.of(m.id, m) for m in after),
            related=tuple(LinkedMemory.of(ref, self._find(ref)) for ref in memory.related),
            anchors=frontmatter.get("anchors"),
            stale=stale.to_dict() if stale is not None else None,
        )

    def _find(self, ref: str) -> Memory | None:
        """The memory `ref` names, or None when none (or several) does."""
        try:
            return self._memories.get(ref)
        except AimateError:
            return None

    def _chain(self, memory: Memory, key: str) -> tuple[LinkedMemory, ...]:
        """Follow `key` (supersedes: back to what it replaced; superseded_by: on to what replaced it)."""
        links: list[LinkedMemory] = []
        seen = {memory.id}
        current: Memory | None = memory
        while current is not None and len(links) < MAX_CHAIN:
            ref = _field(current, key)
            if ref is None or ref in seen:
                break
            seen.add(ref)
            current = self._find(ref)
            links.append(LinkedMemory.of(ref, current))
        return tuple(links)

    def _history(self, memory: Memory) -> tuple[tuple[dict[str, object], ...], str]:
        try:
            entries = self._git.log(memory.id, scope=memory.scope)
        except AimateError as error:  # its vault is not in git, or nothing was committed yet
            return (), error.message
        return tuple(entry.to_dict() for entry in entries), ""

    def _neighbours(self, memory: Memory) -> tuple[list[Memory], list[Memory]]:
        if memory.thread is None:
            return [], []
        index = self._store.index_for(self._store.vault_for(memory.scope))
        return index.thread_neighbours(memory.id, SPAN) if index.exists else ([], [])


def _field(memory: Memory, key: str) -> str | None:
    found = memory.doc.get(key) if memory.doc is not None else None
    text = str(found).strip() if found else ""
    return text or None
