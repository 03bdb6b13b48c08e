"""`Retrieval`: reading through the index — hybrid search, metadata queries, counts, index statistics, and
`evaluate` (R@k on a person's own questions)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from aimate_memory.errors import InvalidInputError
from aimate_memory.system.perf import PerfLog, timed
from aimate_memory.system.store import Store
from aimate_memory.vault.filters import ENDED_SESSION_STATUSES, MemoryFilter
from aimate_memory.vault.layout import Layer
from aimate_memory.vault.model import Memory
from aimate_memory.vault.roots import Roots

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from datetime import datetime

    from aimate_memory.retrieval.evaluation import EvalReport
    from aimate_memory.retrieval.hybrid import SearchResponse
    from aimate_memory.vault.store import Vault


Row = tuple[str, dict[str, Any]]
# What the index keeps out on purpose (a sensitive file, privacy.sensitive_keywords): not broken, not said.
NOT_BROKEN_KINDS = frozenset({"Excluded"})
# Chunks whose cross-script forms a daemon embeds after it loads the models (docs/design.md §12, "What a warm
# request reads twice"): half the embedder's document memo (embedding/lazy.py MEMO_SIZE), so the forms stay kept
# beside what requests embed meanwhile.
WARMED_SAID = 512
# Chunks of a memory just written whose cross-script forms a daemon embeds after answering (`warm_written`): a
# sentence or a few is one chunk; a longer note's first chunks are what a question lands on most.
WARMED_AFTER_WRITE = 8
NAMED_BROKEN = 3  # a warning names this many files; `aimate mem diagnose` lists them all
NEWEST_FIRST: dict[str, Callable[[Memory], datetime]] = {
    "updated": lambda memory: memory.updated_at,
    "created": lambda memory: memory.created_at,
}


def _search_row(
    response: SearchResponse, query: str, top_k: int = 10, where: MemoryFilter | None = None, *, snippets: bool = True
) -> Row:
    layers = ",".join(layer.value for layer in where.layers) if where is not None else ""
    return layers, {"results": len(response.results), "mode": response.mode}


class Retrieval:
    """Reads over every vault's index (built first when it never was). Offers `search` (timed in the perf
    log), `query`, `count`, `stats`, `evaluate`."""

    def __init__(self, store: Store, perf_log: PerfLog) -> None:
        self._store = store
        self.perf_log = perf_log

    @timed("search", _search_row)
    def search(
        self, query: str, top_k: int = 10, where: MemoryFilter | None = None, *, snippets: bool = True
    ) -> SearchResponse:
        """Hybrid search over the project and global vaults, best first; only relevant memories are returned.
        A session transcript is a result only once its session has ended (ENDED_SESSION_STATUSES). `snippets`
        False: the hits carry none (for the facade's own searches, which read only the memories found)."""
        from aimate_memory.retrieval.hybrid import HybridSearcher

        retrieval = self._store.config.section("retrieval")
        searcher = HybridSearcher(
            self._store.readable_indexes,
            self._store.embedder,
            self._store.clock,
            decay=retrieval["decay"],
            candidates=retrieval["candidates"],
            vector_candidates=retrieval["vector_candidates"],
            min_relevance=retrieval["min_relevance"],
            uses=lambda vault: self._store.journal_for(vault).counts(),
        )
        # A result list is not a use (docs/design.md §5): only explicit reads (`read`) are journaled, so a
        # note that keeps showing up in searches is never promoted for it.
        where = replace(where or MemoryFilter(), session_statuses=ENDED_SESSION_STATUSES)
        response = searcher.search(query, top_k, self._store.trusted_only(where), snippets=snippets)
        response.warnings.extend(self._store.trust_notices())
        for hit in response.results:
            hit.stale = self._store.staleness(hit.memory)
        self._attach_episodes(response)
        response.warnings.extend(filter(None, [self.broken_warning()]))
        return response

    def said_to_warm(self) -> list[str]:
        """The texts a search embeds of memories in the other script than its question (`said_forms`), for the
        newest `WARMED_SAID` active chunks: what `warm_said` embeds ahead of the first questions."""
        from aimate_memory.retrieval.hybrid import said_forms

        if not self._store.vectors_enabled or not self._store.has_index:
            return []
        return said_forms(self._store.readable_indexes, WARMED_SAID)

    def warm_written(self, vault: Vault, ids: Sequence[str], bodies: Sequence[str] = ()) -> None:
        """Embed what the next request will embed of the memories `ids` just written to `vault`: their `bodies`
        as documents (a capture's candidates, `Capture._cosines`) and what a search reads of them when a
        question in the other script comes near (`said_forms`) — otherwise embedded while the next caller
        waits (docs/design.md §12, "What a remember leaves for after its answer"). The same texts, the same
        model: the vectors are the ones those would have computed. Nothing without a loaded model."""
        from aimate_memory.retrieval.hybrid import said_forms

        if self._store.vectors_enabled and self._store.model_loaded:
            self.warm_said([*bodies, *said_forms([self._store.index_for(vault)], WARMED_AFTER_WRITE, ids)])

    def warm_said(self, texts: list[str]) -> None:
        """Embed `texts` now (kept by the embedder's memo: a search that reads them later embeds nothing).
        Nothing without a loaded model: warming never loads one."""
        if texts and self._store.model_loaded:
            self._store.embedder.embed_documents(texts)

    def _attach_episodes(self, response: SearchResponse) -> None:
        """Each ended session among the results carries its episode (docs/design.md "Episodes"): a past
        session comes back to a prompt through what it asked, decided and left, not a chunk of its talk."""
        sessions = [hit for hit in response.results if hit.memory.layer is Layer.SESSION]
        if not sessions:
            return
        # Imported here, and only for a session among the hits: the sessions package brings capture's rules
        # (~40 ms of a cold search or prompt hook), and `list` needs neither (docs/design.md, "What a cold
        # command loads").
        from aimate_memory.sessions.episode import Episode
        from aimate_memory.sessions.store import logged_episodes

        for scope in {hit.memory.scope for hit in sessions}:
            root = self._store.root_of(self._store.vault_for(scope))
            logged = logged_episodes(Roots.state_dir(root))
            for hit in sessions:
                episode = Episode.from_frontmatter(logged.get(hit.memory.id))
                if hit.memory.scope is scope and episode is not None and not episode.empty:
                    hit.episode = tuple(episode.lines())

    def broken_files(self) -> list[str]:
        """`scope:path:line (reason)` of every memory file the index could not read (bad YAML, a duplicate
        id, …): left out of every read, so every read says so (docs/design.md "A broken memory is never
        silent")."""
        found = []
        for index in self._store.readable_indexes:
            for path, line, kind, reason in index.file_errors():
                if kind not in NOT_BROKEN_KINDS:
                    where = f"{index.vault.scope.value}:{path}" + (f":{line}" if line else "")
                    found.append(f"{where} ({reason})")
        return found

    def broken_warning(self) -> str | None:
        """One line naming the broken files a read left out, or None."""
        broken = self.broken_files()
        if not broken:
            return None
        named = "; ".join(broken[:NAMED_BROKEN]) + ("; …" if len(broken) > NAMED_BROKEN else "")
        noun = "memory file could not be read and is" if len(broken) == 1 else "memory files could not be read and are"
        return f"{len(broken)} {noun} left out: {named} — fix and check with `aimate mem diagnose`"

    def evaluate(self, queries_text: str, source: str = "queries") -> EvalReport:
        """Recall@1/5/10 and MRR of `search` on the caller's own questions (`aimate mem eval`), one JSON line each:
        {"query", "expected": [ids or id prefixes]}. The same path and configuration as a search, so a change of
        model or weights is measured as a person would meet it. Any bad line: an error naming every one, and
        nothing scored (a skipped question would flatter the numbers)."""
        from aimate_memory.retrieval.evaluation import CUTOFFS, QueryFileError, parse_queries, score_query, summarize

        try:
            queries = parse_queries(queries_text)
        except QueryFileError as exc:
            lines = "\n".join(f"  {source}:{line}: {reason}" for line, reason in exc.problems)
            raise InvalidInputError(
                f"{len(exc.problems)} bad line(s) in {source}, nothing scored:\n{lines}",
                'each line is {"query": "...", "expected": ["<memory id or prefix>", ...]}',
            ) from exc
        if not queries:
            raise InvalidInputError(f"no queries in {source}", 'add lines like {"query": "...", "expected": ["id"]}')
        scores = []
        for item in queries:
            response = self.search(item.query, max(CUTOFFS))
            scores.append(score_query(item, [hit.memory.id for hit in response.results]))
        return summarize(scores)

    def query(self, where: MemoryFilter | None = None, limit: int | None = None, order: str = "path") -> list[Memory]:
        """Metadata query from the index (no file reads): list, time ranges, filters. `order`: "path" (project
        first), "updated" or "created" (newest first across both vaults, the project first on ties)."""
        where = self._store.trusted_only(where or MemoryFilter())
        found: list[Memory] = []
        for index in self._store.readable_indexes:
            if where.scopes and index.vault.scope not in where.scopes:
                continue
            found.extend(index.query(where, limit, order))
        if order in NEWEST_FIRST:
            # Each vault gave its own newest `limit`: the cut comes after merging them, or the project's
            # older memories pushed out the global vault's newer ones.
            found.sort(key=NEWEST_FIRST[order], reverse=True)  # stable: the project stays first on ties
        return found[:limit] if limit is not None else found

    def count(self, where: MemoryFilter | None = None) -> int:
        """How many memories match `where` (what `query` gives without a limit), counted in SQL."""
        where = self._store.trusted_only(where or MemoryFilter())
        return sum(
            index.count(where)
            for index in self._store.readable_indexes
            if not where.scopes or index.vault.scope in where.scopes
        )

    def stats(self) -> dict[str, Any]:
        """Each vault's index statistics, by scope."""
        return {index.vault.scope.value: index.stats() for index in self._store.readable_indexes}
