"""The MCP tools as plain methods: normalize the parameters, make one client call, return JSON-ready data.

`MemoryTools` holds one `system.client.RoutedClient` for the server's life: search, context, remember and session
turns go to the daemon while one answers, else to the facade in this process, kept fresh from file events
(`watch.freshness`: no walk of the vaults per call); get, update and forget use that facade. Every method
runs on the server's single worker thread: SQLite connections belong to the thread that opened them, and
one thread also keeps two tool calls from loading the embedding model twice. The signatures are the tools'
input schemas (the SDK reads them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, cast

from pydantic import Field

from aimate_memory.config.defaults import MAX_CONTEXT_BUDGET
from aimate_memory.errors import InvalidInputError
from aimate_memory.mcp.schemas import (
    AppendOutput,
    ContextResult,
    ForgetResult,
    MemoryOutput,
    RememberResult,
    SearchItem,
    SearchResult,
    StaleOutput,
    VaultOutput,
)
from aimate_memory.system.records import memory_fields
from aimate_memory.vault.dates import parse_optional_when
from aimate_memory.vault.lists import split_list

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.system.client import RoutedClient
    from aimate_memory.system.records import HitRecord
    from aimate_memory.vault.anchors import Staleness
    from aimate_memory.vault.filters import MemoryFilter
    from aimate_memory.vault.model import Memory

MAX_LIMIT = 50
ROLES = ("user", "assistant", "system", "tool")
UPDATABLE = ("title", "body", "tags", "importance", "status")

MemoryId = Annotated[str, Field(description="Memory id; a unique prefix of it (like a git hash) works, e.g. '0958f2'.")]
TagsArg = Annotated[
    list[str] | str | None,
    Field(description="Tags, as a list or one string separated by , ， 、 or ; — e.g. 'cache,redis' or '缓存，redis'."),
]


class MemoryTools:
    def __init__(self, connect: Callable[[], RoutedClient]) -> None:
        self._connect = connect
        self._client: RoutedClient | None = None

    @property
    def client(self) -> RoutedClient:
        """Made on first use (a missing vault is then a tool error with its hint, not a failed start)."""
        if self._client is None:
            self._client = self._connect()
        return self._client

    def refreshed(self) -> MemorySystem:
        """The local facade with its indexes in step with the files, for the tools the daemon does not serve.
        No vault at all is an error here (the CLI's read commands say the same): a model would otherwise
        search an empty memory forever."""
        self.client.require_vault()
        return self.client.local.fresh()

    def warm_up(self) -> None:
        """Bring the index up to date and, when this process answers (no daemon), open the vaults and load
        the embedding model, so the first search pays for none of it."""
        client = self.client
        if not client.has_vault:
            return
        client.refresh()
        if client.via == "in-process":
            client.local.system.store.warm_up()

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    # -- tools ---------------------------------------------------------------------------------

    def memory_search(
        self,
        query: Annotated[str, Field(description="What to look for, in any language (Chinese and English work).")],
        limit: Annotated[int, Field(description=f"How many results, 1–{MAX_LIMIT}.")] = 10,
        layer: Annotated[
            str | None, Field(description="Only this layer: core, session, short_term or long_term (comma-separated).")
        ] = None,
        scope: Annotated[str | None, Field(description="Only 'project' or only 'global' memories.")] = None,
        tags: TagsArg = None,
        since: Annotated[
            str | None,
            Field(description="Only memories updated since then: YYYY-MM-DD, or relative: 24h, 7d, 2w, today, 3天."),
        ] = None,
    ) -> SearchResult:
        if not query or not query.strip():
            raise InvalidInputError("query is empty", "pass what to look for, e.g. query='which cache did we choose'")
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidInputError(f"limit must be between 1 and {MAX_LIMIT}, not {limit}", "e.g. limit=10")
        where = self._search_filter(layer, scope, tags, since)
        self.client.require_vault()
        found = self.client.search(query, limit, where)
        return SearchResult(
            query=query,
            mode=found.mode,
            via=found.via,
            vaults=[VaultOutput(scope=vault.scope, root=vault.root) for vault in found.vaults],
            results=[_search_item(hit) for hit in found.hits],
            warnings=list(found.warnings),
        )

    def memory_get(self, id: MemoryId) -> MemoryOutput:
        system = self.refreshed()
        memory = _trusted(system, system.read(id))  # an assistant opening a memory is a use (docs/lifecycle.md "Uses")
        return memory_record(memory, system.staleness(memory))

    def memory_context(
        self,
        query: Annotated[
            str | None, Field(description="What the conversation is about; memories relevant to it are added.")
        ] = None,
        budget: Annotated[
            int | None,
            Field(description="Token budget for the whole text; default from the config.", ge=1, le=MAX_CONTEXT_BUDGET),
        ] = None,
    ) -> ContextResult:
        from aimate_memory.context.build import PROPOSALS_KIND  # the context package: only for a context

        self.client.require_vault()
        data = self.client.build_context(query or None, budget).to_dict()
        # The pending captures' titles are for the person's review, not the model (context/build.py).
        data["warnings"] = [warning for warning in data["warnings"] if warning.get("kind") != PROPOSALS_KIND]
        return cast(
            "ContextResult", {key: data[key] for key in ContextResult.__annotations__}
        )  # the keys are the TypedDict's own

    def memory_remember(
        self,
        text: Annotated[str, Field(description="The fact, decision, preference or task to remember, as one sentence.")],
        confidence: Annotated[
            float | None,
            Field(ge=0, le=1, description="How sure you are it is worth keeping, 0–1; low values wait for review."),
        ] = None,
        scope: Annotated[
            str | None, Field(description="'project' or 'global'; default: decided from the text (project if unsure).")
        ] = None,
        kind: Annotated[
            str | None,
            Field(
                description="What it is: rule, preference, decision, knowledge, project, task or note "
                "(default: decided from the text)."
            ),
        ] = None,
    ) -> RememberResult:
        if not text or not text.strip():
            raise InvalidInputError("text is empty", "pass the sentence to remember, e.g. text='我们选用 Redis 做缓存'")
        self.client.require_vault()
        data = self.client.remember(text, confidence=confidence, scope=scope, source="mcp", kind=kind).to_dict()
        return cast(
            "RememberResult", {key: data.get(key) for key in RememberResult.__annotations__}
        )  # the keys are the TypedDict's own

    def memory_update(
        self,
        id: MemoryId,
        title: Annotated[str | None, Field(description="New title.")] = None,
        body: Annotated[str | None, Field(description="New Markdown body (replaces the old one).")] = None,
        tags: TagsArg = None,
        importance: Annotated[int | None, Field(ge=1, le=5, description="1 (trivial) to 5 (essential).")] = None,
        status: Annotated[
            str | None, Field(description="pending or archived (only the person makes a memory active).")
        ] = None,
        verified: Annotated[
            bool,
            Field(
                description="True after you checked a possibly stale project memory against the code and it still "
                "holds: it is re-anchored to the files as they are now and no longer marked stale. Fix the text "
                "(body) in the same call when it no longer holds."
            ),
        ] = False,
    ) -> MemoryOutput:
        changes: dict[str, Any] = {"title": title, "body": body, "importance": importance, "status": status}
        if tags is not None:
            changes["tags"] = split_list(tags)
        if all(value is None for value in changes.values()) and not verified:
            raise InvalidInputError("nothing to update", f"pass at least one of: {', '.join(UPDATABLE)}, verified")
        system = self.refreshed()
        _refuse_model_write(_trusted(system, system.get(id)), changes)
        memory = system.update(id, **changes) if any(value is not None for value in changes.values()) else None
        if verified:
            memory = system.verify(memory.id if memory is not None else id).memory
        assert memory is not None
        return memory_record(memory, system.staleness(memory))

    def memory_forget(self, id: MemoryId) -> ForgetResult:
        system = self.refreshed()
        _refuse_model_write(_trusted(system, system.get(id)), {"status": "archived"})
        archived = system.remove(id)
        return ForgetResult(
            id=archived.id,
            title=archived.title,
            status=archived.status,
            location=f"{archived.scope.value}:{archived.rel_path.as_posix()}",
        )

    def memory_session_append(
        self,
        role: Annotated[str, Field(description="Who spoke: user, assistant, system or tool.")],
        content: Annotated[str, Field(description="What was said, verbatim.")],
    ) -> AppendOutput:
        role = role.strip().lower()
        if role not in ROLES:
            raise InvalidInputError(f"unknown role {role!r}", f"use one of: {', '.join(ROLES)}")
        data = self.client.add_conversation(role, content).to_dict()
        return cast(
            "AppendOutput", {key: data.get(key) for key in AppendOutput.__annotations__}
        )  # the keys are the TypedDict's own

    def core_markdown(self) -> str:
        return self.refreshed().core_markdown()

    # -- helpers -------------------------------------------------------------------------------

    def _search_filter(
        self, layer: str | None, scope: str | None, tags: list[str] | str | None, since: str | None
    ) -> MemoryFilter:
        from aimate_memory.vault.filters import MemoryFilter, parse_layer, parse_scope

        return MemoryFilter(
            layers=tuple(parse_layer(value) for value in split_list(layer)),
            scopes=(parse_scope(scope.strip().lower()),) if scope and scope.strip() else (),
            tags=tuple(split_list(tags)),
            updated_after=parse_optional_when(since, self._now(), "since"),
        )

    def _now(self) -> Any:
        from aimate_memory.clock import SystemClock

        local = self._client.local if self._client is not None else None
        return (local.system.clock if local is not None and local.is_open else SystemClock()).now()


def _trusted(system: MemorySystem, memory: Memory) -> Memory:
    """`memory`, unless it is a project memory the person has not trusted: then it does not exist for the
    model (docs/reliability.md, "Trust model") — the error says who can change that."""
    if system.store.withholds(memory):
        from aimate_memory.errors import NotFoundError
        from aimate_memory.vault.trust import untrusted_notice

        raise NotFoundError(
            f"{memory.id[:8]} is a project memory the person has not trusted yet",
            untrusted_notice(len(system.store.untrusted())),
        )
    return memory


def _refuse_model_write(memory: Memory, changes: dict[str, Any]) -> None:
    """A model's call may not approve or touch what only the person decides (system/trust.py): refused, with
    who can do it — nothing is written."""
    from aimate_memory.system.trust import REVIEW_HINT, model_write_refusal

    refusal = model_write_refusal(memory, changes)
    if refusal is not None:
        raise InvalidInputError(f"refused, nothing written: {refusal}", REVIEW_HINT)


def _search_item(hit: HitRecord) -> SearchItem:
    return SearchItem(
        id=hit.id,
        title=hit.title,
        location=hit.location,
        layer=hit.layer,
        category=hit.category,
        status=hit.status,
        tags=list(hit.tags),
        updated_at=hit.updated_at,
        score=hit.score,
        snippet=hit.snippet,
        stale=_stale(hit.stale),
    )


def _stale(stale: Staleness | None) -> StaleOutput | None:
    return cast("StaleOutput", stale.to_dict()) if stale is not None else None  # the keys are the TypedDict's own


def memory_record(memory: Memory, stale: Staleness | None = None) -> MemoryOutput:
    data = memory_fields(memory)
    keys = MemoryOutput.__annotations__
    fields = {key: data[key] for key in keys if key in data}
    fields["location"] = f"{data['scope']}:{data['path']}"
    fields["source"] = data["source"] or ""
    fields["stale"] = _stale(stale)
    return cast("MemoryOutput", fields)  # the keys are the TypedDict's own


# The tools in the order `tools/list` gives them; each name is also the method's name.
TOOL_NAMES = (
    "memory_search",
    "memory_get",
    "memory_context",
    "memory_remember",
    "memory_update",
    "memory_forget",
    "memory_session_append",
)
