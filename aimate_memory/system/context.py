"""`ContextBuilder`: the context for a prompt (`build_context`), its warnings, and the core memory as Markdown.

Loading order (docs/design.md, "Context builder"; seed 002 记忆加载策略: core 始终加载): global core and
project core first and whole, up to `context.core_max_tokens`; then the current session window, project
short-term of the last `context.recent_days` days (relevant to the query first, then newest), project
long-term (relevant to the query, else newest), and global short/long-term only when a query finds them.
A session start (no query) searches with what the project works on now — the last episodes and commits —
and shows what that finds first, then the newest (docs/design.md "What a session start chooses").
The budgeting is `aimate_memory.context` (pure); this module gathers the items."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from aimate_memory.context import (
    Context,
    ContextItem,
    ContextWarning,
    SectionRequest,
    allocate,
    build_context,
    core_warnings,
    pending_warnings,
    session_warnings,
)
from aimate_memory.context.bodies import body_from_chunks
from aimate_memory.context.build import PROPOSALS_NAMED
from aimate_memory.context.render import TEAM_FRAME, render_items, section_heading
from aimate_memory.errors import InvalidInputError
from aimate_memory.git.activity import Commit, recent_commits
from aimate_memory.git.secrets import mask_text
from aimate_memory.sessions import SessionInfo
from aimate_memory.sessions.episode import Episode, work_query
from aimate_memory.system.perf import PerfLog, Stopwatch
from aimate_memory.system.search import Retrieval
from aimate_memory.system.store import Store
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.model import Memory

if TYPE_CHECKING:
    # Types only: the sessions' module (capture's sentence reader) loads when the facade builds the part.
    from aimate_memory.retrieval.hybrid import SearchHit
    from aimate_memory.system.sessions import Sessions

SEARCHED_ITEMS = 20  # per searched section: more would not fit a sensible budget anyway
LISTED_ITEMS = 50  # per listed (not searched) section, newest first
ACTIVE = ("active",)  # pending captures wait for review; superseded, archived, expired are history
# The one search of a context build (`_relevant`): what it looks at and how deep.
SEARCHED = MemoryFilter(layers=(Layer.SHORT_TERM, Layer.LONG_TERM), statuses=ACTIVE)
SEARCH_DEPTH = SEARCHED_ITEMS * 3  # one share per searched section: project short-term, project long-term, global
OVERVIEW = "project"  # the long-term category that says what the project is (its stack, its purpose)
WORK_COMMITS = 5  # the latest commits that say, with the last episodes, what a project is working on now
KEPT_SEARCH_SECONDS = 5.0  # a context search asked again this soon, nothing written meanwhile, is not run again
# A session start shows a short-term or long-term memory longer than this as its summary line (its first
# clauses; docs/design.md, "What a session start shows of a long memory"): ~60 Chinese characters or ~30 English
# words, the length of a rule; core is always whole (half a rule can say its opposite).
SUMMARY_TOKENS = 40
SUMMARIZED = ("short_term", "long_term")


class ContextBuilder:
    """What an assistant is given. Offers `build_context` (memories fitted into a token budget),
    `check_warnings` (what needs attention before a prompt), `core_markdown`."""

    def __init__(self, store: Store, perf_log: PerfLog, retrieval: Retrieval, sessions: Sessions) -> None:
        self._store = store
        self._perf_log = perf_log
        self._retrieval = retrieval
        self._sessions = sessions
        self._kept_search: tuple[tuple[object, ...], float, list[SearchHit]] | None = None  # `_searched`

    def build_context(self, query: str | None = None, budget: int | None = None) -> Context:
        """Memories fitted into `budget` tokens (default `context.total_budget`) in the loading order.
        Being placed in a context is not a use (docs/lifecycle.md "Uses"): a memory shown at every session
        start would otherwise be promoted for being shown. Only active memories are placed: a capture
        waiting for review is never handed over as memory (docs/design.md "Pending is not memory")."""
        with self._store.one_trust_check():
            return self._build(query, budget)

    def _build(self, query: str | None, budget: int | None) -> Context:
        watch = Stopwatch()
        total = self._budget(budget)
        query = query.strip() if query and query.strip() else None
        session = self._sessions.current()
        requests = _framed(self._requests(query, session))
        watch.lap("gather")
        waiting = self._retrieval.query(MemoryFilter(statuses=("pending",)), order="updated")
        context = build_context(
            requests,
            total,
            core_cap=self._core_cap(),
            session_usage=session.usage if session else None,
            pending_captures=len(waiting),
            proposals=[(memory.id, memory.title) for memory in waiting[:PROPOSALS_NAMED]],
        )
        context.warnings.extend(self._trust_warnings())
        # What an assistant reads: a secret a person let into a memory (--allow-secret) is masked here.
        context.text = mask_text(context.text)
        context.warnings.extend(self._broken_warnings())
        watch.lap("allocate")
        watch.breakdown["tokens"] = context.total_tokens
        self._perf_log.log("context_build", watch, "query" if query else "")
        return context

    def check_warnings(self) -> list[ContextWarning]:
        """What needs attention before a prompt: session window usage, core memories left out of the
        default context (named), pending captures waiting for review."""
        with self._store.one_trust_check():
            return self._warnings()

    def _warnings(self) -> list[ContextWarning]:
        session = self._sessions.current()
        total, cap = self._budget(None), self._core_cap()
        core = allocate(self._core_requests(), total, core_cap=cap)
        pending = len(self._retrieval.query(MemoryFilter(statuses=("pending",))))
        return [
            *session_warnings(session.usage if session else None),
            *core_warnings(core, capped=cap < total),
            *pending_warnings(pending),
            *self._trust_warnings(),
            *self._broken_warnings(),
        ]

    def _trust_warnings(self) -> list[ContextWarning]:
        """The project memories withheld until the person trusts them, counted (never their text)."""
        return [ContextWarning("untrusted_project", notice) for notice in self._store.trust_notices()]

    def _broken_warnings(self) -> list[ContextWarning]:
        """A memory file that could not be read is left out of the context, and the person is told which."""
        message = self._retrieval.broken_warning()
        return [ContextWarning("broken_files", message)] if message else []

    def core_markdown(self, scope: Scope | str | None = None) -> str:
        """Global core then project core as Markdown (for `memory://core`), every memory in full, compactly
        (context/render.py: a one-line memory is one list line); files that hold only a comment (the
        templates) are left out. With `scope`, that vault's core alone, "" when it has none: the AGENTS.md
        block puts it under its own `##` heading, and a project's file gets only the project's
        (docs/agents.md, "What goes where")."""
        if scope is not None:
            return mask_text(render_items(self._core_items(Scope(scope))))
        parts = ["# Core memory\n"]
        for scope, heading in ((Scope.GLOBAL, "Global"), (Scope.PROJECT, "Project")):
            items = self._core_items(scope)
            if items:
                parts.append(f"## {heading}\n" + (f"\n{TEAM_FRAME}\n" if scope is Scope.PROJECT else ""))
                parts.append(render_items(items))
        return mask_text("\n".join(parts)) if len(parts) > 1 else "# Core memory\n\n(no core memories yet)\n"

    # -- gathering -----------------------------------------------------------------------------

    def _budget(self, budget: int | None) -> int:
        total = int(budget) if budget is not None else int(self._store.config.get("context.total_budget"))
        if total <= 0:
            raise InvalidInputError(f"a token budget must be positive, got {budget}", "e.g. --budget 4000")
        return total

    def _core_cap(self) -> int:
        return max(0, int(self._store.config.get("context.core_max_tokens")))

    def _ratios(self) -> dict[str, float]:
        keys = ("session_ratio", "short_term_ratio", "long_term_ratio")
        return {key: float(self._store.config.get(f"context.{key}")) for key in keys}

    def _has_project(self) -> bool:
        return self._store.project_vault is not None and self._store.project_vault.exists

    def _requests(self, query: str | None, session: SessionInfo | None) -> list[SectionRequest]:
        ratios = self._ratios()
        requests = self._core_requests()
        if session is not None:
            requests.append(
                SectionRequest(
                    "session",
                    self._store.vault_for(None).scope.value,
                    [_session_item(session, self._store.vault_for(None).scope.value)],
                    ratios["session_ratio"],
                    keep_tail=True,
                )
            )
        found = self._relevant(query) if query else None
        at_start = query is None
        if at_start:  # a session start: where the last sessions left off (docs/design.md "Episodes")
            episodes = self._recent_episodes()
            requests.extend(self._episode_requests(episodes))
            work = work_query([episode for *_, episode in episodes], self._recent_commits())
            found = self._relevant(work) if work else None
        long_share = ratios["long_term_ratio"]
        if self._has_project():
            requests.append(self._project_short_term(found, ratios["short_term_ratio"]))
            requests.append(self._project_long_term(found, long_share / 2, at_start=at_start))
            long_share /= 2
        else:
            long_share += ratios["short_term_ratio"]
        if at_start and self._has_project():
            requests.append(self._global_long_term(long_share, found))
        elif found is not None:
            related = self._items(found.memories["global"], found.scores["global"])
            requests.append(SectionRequest("long_term", "global", related, long_share, heading="## Related · global"))
        if at_start:  # a long note is its summary line there; its id finds the rest (context/model.py)
            return [replace(r, summary_tokens=SUMMARY_TOKENS) if r.layer in SUMMARIZED else r for r in requests]
        return requests

    def _recent_episodes(self) -> list[tuple[str, str, str, Episode]]:
        shown = int(self._store.config.get("context.episodes"))
        return self._sessions.recent_episodes(shown) if shown > 0 else []

    def _recent_commits(self) -> list[Commit]:
        """The project's latest commits (none outside a project or git): part of what it is working on."""
        folder = self._store.roots.project_dir if self._has_project() else None
        return recent_commits(folder, WORK_COMMITS) if folder is not None else []

    def _episode_requests(self, episodes: list[tuple[str, str, str, Episode]]) -> list[SectionRequest]:
        """The episodes of the last `context.episodes` ended sessions of the current vault, newest first."""
        vault = self._store.vault_for(None)
        items = []
        for session_id, title, ended_at, episode in episodes:
            heading = f"{ended_at[:10]} · {title}"
            # Each request once, and not the one the heading says already ("For the code present, we get this
            # error:" asked three times was four lines of one session start; issue 39's replay).
            episode = replace(episode, asked=[asked for asked in dict.fromkeys(episode.asked) if asked != title])
            items.append(ContextItem(session_id, heading, "\n".join(episode.lines()), vault.scope.value, ""))
        if not items:
            return []
        ratio = float(self._store.config.get("context.episode_ratio"))
        heading = f"## Last sessions · {vault.scope.value}"
        return [SectionRequest("episode", vault.scope.value, items, ratio, heading=heading)]

    def _global_long_term(self, ratio: float, found: _Relevant | None) -> SectionRequest:
        """A session start (no query) in a project: the person's global long-term memories too — a fact about
        their machine or tools ("the filesystem MCP server runs in Docker") matters in every project — those
        relevant to the current work first, then the most important, within their share (docs/design.md,
        "Capture from a conversation")."""
        memories = self._retrieval.query(
            MemoryFilter(layers=(Layer.LONG_TERM,), scopes=(Scope.GLOBAL,), statuses=ACTIVE),
            limit=LISTED_ITEMS,
            order="updated",
        )
        memories.sort(key=lambda memory: -memory.importance)
        relevant = self._items(found.memories["global"], found.scores["global"]) if found else []
        return SectionRequest("long_term", "global", [*relevant, *self._items(memories)], ratio)

    def _core_requests(self) -> list[SectionRequest]:
        scopes = (Scope.GLOBAL, Scope.PROJECT) if self._has_project() else (Scope.GLOBAL,)
        return [SectionRequest("core", scope.value, self._core_items(scope), required=True) for scope in scopes]

    def _core_items(self, scope: Scope) -> list[ContextItem]:
        if scope is Scope.PROJECT and not self._has_project():
            return []
        memories = self._retrieval.query(MemoryFilter(layers=(Layer.CORE,), scopes=(scope,), statuses=ACTIVE))
        memories.sort(key=lambda memory: (-memory.importance, memory.rel_path.as_posix()))
        return self._items(memories)

    def _relevant(self, query: str) -> _Relevant:
        """One search for every searched section (a search per section cost a query embedding and an FTS
        pass each): active short- and long-term memories of both scopes, split by where they belong.
        Only what clears the relevance floor (`retrieval.min_relevance`) is a hit, so an unrelated query
        adds nothing to the context."""
        hits = self._searched(query)
        since = self._recent_since()
        found = _Relevant()
        for hit in hits:
            memory = hit.memory
            if memory.scope is Scope.GLOBAL:
                found.add("global", memory, hit.score)
            elif memory.layer is Layer.LONG_TERM:
                found.add("long_term", memory, hit.score)
            elif memory.updated_at >= since:
                found.add("short_term", memory, hit.score)
        return found

    def _searched(self, query: str) -> list[SearchHit]:
        """The context search's hits. Asked again for the same query within `KEPT_SEARCH_SECONDS` with nothing
        written meanwhile — a session start's context built again with a smaller budget to fit the hook's
        characters (integrations/hooks.py `BUDGET_TRIES`: two or three builds an English session start) — the
        hits of the first are used (docs/design.md §12, "What a warm remember reads once")."""
        # The store's clock to the minute: a clock moved on (a test's, days at a time) ranks by recency anew.
        key = (query, self._store.clock.now().replace(second=0, microsecond=0), self._search_state())
        now = time.monotonic()
        kept = self._kept_search
        if kept is not None and kept[0] == key and now - kept[1] <= KEPT_SEARCH_SECONDS:
            return kept[2]
        hits = self._retrieval.search(query, top_k=SEARCH_DEPTH, where=SEARCHED, snippets=False).results
        self._kept_search = (key, now, hits)
        return hits

    def _search_state(self) -> tuple[object, ...]:
        """What a context search's hits depend on besides its query and the clock: each index's content, each
        vault's use journal (the ranking's use factor), the memories held back until the person trusts them."""
        state: list[object] = []
        for index in self._store.readable_indexes:
            state.append(index.content_stamp())
            state.append(_file_stamp(self._store.journal_for(index.vault).path))
        state.append(frozenset(self._store.untrusted().items()))
        return tuple(state)

    def _recent_since(self) -> datetime:
        return self._store.clock.now() - timedelta(days=float(self._store.config.get("context.recent_days")))

    def _project_short_term(self, found: _Relevant | None, ratio: float) -> SectionRequest:
        """Relevant recent short-term first (with a query), then the newest."""
        where = MemoryFilter(
            layers=(Layer.SHORT_TERM,), scopes=(Scope.PROJECT,), statuses=ACTIVE, updated_after=self._recent_since()
        )
        relevant = self._items(found.memories["short_term"], found.scores["short_term"]) if found else []
        return SectionRequest("short_term", "project", [*relevant, *self._newest(where)], ratio)

    def _project_long_term(self, found: _Relevant | None, ratio: float, *, at_start: bool) -> SectionRequest:
        """Relevant first (to the query, or at a session start to the current work), then — at a session
        start, or with nothing relevant to a query — the newest. A session start puts the project's overview
        (category `project`: what it is, its stack) before both: it bears on every session's work."""
        relevant = self._items(found.memories["long_term"], found.scores["long_term"]) if found else []
        if found is not None and not at_start:
            return SectionRequest("long_term", "project", relevant, ratio)
        where = MemoryFilter(layers=(Layer.LONG_TERM,), scopes=(Scope.PROJECT,), statuses=ACTIVE)
        overview = self._newest(replace(where, categories=(OVERVIEW,))) if at_start else []
        return SectionRequest("long_term", "project", [*overview, *relevant, *self._newest(where)], ratio)

    def _newest(self, where: MemoryFilter) -> list[ContextItem]:
        return self._items(self._retrieval.query(where, limit=LISTED_ITEMS, order="updated"))

    def _items(self, memories: list[Memory], scores: Iterable[float | None] | None = None) -> list[ContextItem]:
        """Items with their bodies from the index's chunks (no file read; see context/bodies.py). A memory
        added by its title alone has one chunk with no text: its title is its text (render.py). One with no
        chunk at all is a placeholder (a template that is only a commented example) and is left out."""
        chunks: dict[str, list[tuple[str, str]]] = {}
        for scope in {memory.scope for memory in memories}:
            ids = [memory.id for memory in memories if memory.scope is scope]
            chunks.update(self._store.index_for(self._store.vault_for(scope)).memory_chunks(ids))
        items = []
        for memory, score in zip(memories, scores or [None] * len(memories), strict=True):
            if memory.id not in chunks:
                continue
            body = body_from_chunks(chunks[memory.id])
            stale = self._store.staleness(memory)
            items.append(
                ContextItem(memory.id, memory.title, body, memory.scope.value, memory.rel_path.as_posix(), score, stale)
            )
        return items


class _Relevant:
    """A context search's hits, per searched section, best first."""

    SECTIONS = ("short_term", "long_term", "global")

    def __init__(self) -> None:
        self.memories: dict[str, list[Memory]] = {name: [] for name in self.SECTIONS}
        self.scores: dict[str, list[float | None]] = {name: [] for name in self.SECTIONS}

    def add(self, section: str, memory: Memory, score: float) -> None:
        if len(self.memories[section]) < SEARCHED_ITEMS:
            self.memories[section].append(memory)
            self.scores[section].append(score)


def _file_stamp(path: Path) -> tuple[int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_size, status.st_mtime_ns


def _framed(requests: list[SectionRequest]) -> list[SectionRequest]:
    """The first project section with memories says, under its heading, what a project's memories are
    (context/render.py `TEAM_FRAME`): counted in the budget like any heading."""
    for number, request in enumerate(requests):
        if request.scope == Scope.PROJECT.value and request.layer != "session" and request.items:
            heading = section_heading(request.layer, request.scope, framed=True)
            requests[number] = replace(request, heading=request.heading or heading)
            break
    return requests


def _session_item(session: SessionInfo, scope: str) -> ContextItem:
    window = [session.turns[index] for index in session.window]
    body = "\n\n".join(f"**{turn.role}**: {turn.text.strip()}" for turn in window)
    return ContextItem(session.id, session.title, body, scope, session.path)
