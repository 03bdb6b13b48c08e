"""`Conflicts`, reached as `system.conflicts`: which active core memories and decisions a new one may
contradict (docs/design.md, "Conflicts"). The decision is `capture/conflict.py`'s; this module gathers the
candidates and their cosines in the multilingual USE space."""

from __future__ import annotations

from collections.abc import Iterable

from aimate_memory.capture.conflict import ActiveMemory, Thresholds, find_conflicts, read, shares_slot
from aimate_memory.errors import AimateError
from aimate_memory.system.memories import Memories
from aimate_memory.system.reading import SentenceReader
from aimate_memory.system.records import ConflictRecord
from aimate_memory.system.search import Retrieval
from aimate_memory.system.store import Store
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer, folder_for
from aimate_memory.vault.lists import split_list
from aimate_memory.vault.model import Memory
from aimate_memory.vault.store import Vault

CONFLICT_FIELD = "conflicts_with"  # frontmatter: the ids a pending memory may contradict, until a person chooses
SEARCHED = 8  # the most similar active core memories and decisions, read besides those sharing a slot
SIDES_FOLDERS = (folder_for(Layer.CORE, None), folder_for(Layer.LONG_TERM, "decision"))
LISTED = 500  # the newest active core memories and decisions whose titles are read for a shared slot
SHARING = 32  # of those, the newest sharing a slot with the new text are read whole and embedded


def takes_sides(layer: Layer, category: str) -> bool:
    """What is checked for conflicts: core memories (rules, preferences) and decisions — what a person
    stands by, and what reaches every session."""
    return layer is Layer.CORE or category == "decision"


def conflicts_with(memory: Memory) -> list[str]:
    """The ids in a memory's `conflicts_with` field (empty when it has none)."""
    return split_list(memory.doc.get(CONFLICT_FIELD) if memory.doc is not None else None)


class Conflicts:
    """Offers `check` (a text about to be written in a vault), `of` (a memory already written) and
    `recorded` (the conflicts a pending memory's `conflicts_with` names, as records)."""

    def __init__(self, store: Store, retrieval: Retrieval, memories: Memories, reader: SentenceReader) -> None:
        self._store = store
        self._retrieval = retrieval
        self._memories = memories
        self._reader = reader

    def _thresholds(self) -> Thresholds:
        config = self._store.config
        return Thresholds(
            float(config.get("capture.conflict_subject_threshold")), float(config.get("capture.conflict_threshold"))
        )

    def check(self, text: str, vault: Vault, exclude: Iterable[str] = ()) -> list[ConflictRecord]:
        """The active core memories and decisions of `vault` that `text` may contradict, the closest first.
        Read: the newest `SHARING` whose title fills a slot the text fills too, and the `SEARCHED` most
        similar by search."""
        skip = set(exclude)
        index = self._store.index_for(vault)
        index.refresh(paths=[folder.as_posix() for folder in SIDES_FOLDERS])
        where = MemoryFilter(layers=(Layer.CORE, Layer.LONG_TERM), scopes=(vault.scope,), statuses=("active",))
        pool = {
            memory.id: memory
            for memory in self._memories.list(where, limit=LISTED)
            if takes_sides(memory.layer, memory.category) and memory.id not in skip
        }
        if not pool:
            return []
        wanted = read(text)
        picked = [memory_id for memory_id, memory in pool.items() if shares_slot(wanted, read(memory.title))]
        picked = picked[:SHARING]  # newest first: a vault of 300 database decisions costs 32 embeddings, not 300
        picked += [hit.memory.id for hit in self._retrieval.search(text, SEARCHED, where).results]
        # Read-only: the tool's own simple frontmatter skips ruamel (~1.3 ms a file, 20 ms on a loaded machine).
        chosen = [pool[memory_id] for memory_id in dict.fromkeys(picked) if memory_id in pool]
        memories = [vault.load(listed.rel_path, read_only=True) for listed in chosen]
        texts = [memory.body.strip() or memory.title for memory in memories]
        vectors = self._reader.vectors([text, *texts]) if memories else None
        cosines: list[float | None] = (
            [float(vectors[0] @ row) for row in vectors[1:]] if vectors is not None else [None] * len(memories)
        )
        candidates = [
            ActiveMemory(memory.id, body, cosine) for memory, body, cosine in zip(memories, texts, cosines, strict=True)
        ]
        by_id = {memory.id: memory for memory in memories}
        return [
            ConflictRecord.of(by_id[found.memory_id], found.reason, found.slot, found.cosine)
            for found in find_conflicts(text, candidates, self._thresholds())
        ]

    def of(self, memory: Memory) -> list[ConflictRecord]:
        """The active memories a written core memory or decision may contradict (none for other kinds)."""
        if not takes_sides(memory.layer, memory.category):
            return []
        vault = self._store.vault_for(memory.scope)
        return self.check(memory.body.strip() or memory.title, vault, exclude=[memory.id])

    def recorded_memories(self, memory: Memory) -> list[Memory]:
        """The memories a pending memory's `conflicts_with` names that are still active in its vault."""
        found = []
        for memory_id in conflicts_with(memory):
            try:
                other = self._memories.get(memory_id)
            except AimateError:  # removed or moved out by hand since: nothing left to contradict
                continue
            if other.status == "active" and other.scope is memory.scope:
                found.append(other)
        return found

    def recorded(self, memory: Memory) -> list[ConflictRecord]:
        """`recorded_memories`, as records (review shows them beside the pending memory)."""
        return [ConflictRecord.of(other, f"named in {CONFLICT_FIELD}") for other in self.recorded_memories(memory)]
