"""The MCP tools as plain methods: normalize the parameters, make one facade call, return JSON-ready data.

`MemoryTools` holds one `MemorySystem` for the server's life (index connections reused; syncing before a
read costs milliseconds when nothing changed). Every method runs on the server's single worker thread:
SQLite connections belong to the thread that opened them, and one thread also keeps two tool calls from
loading the embedding model twice. The signatures are the tools' input schemas (the SDK reads them)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from aimate_memory.errors import InvalidInputError, NotFoundError
from aimate_memory.mcp.params import parse_since, split_list
from aimate_memory.mcp.schemas import (
    AppendResult,
    ContextResult,
    ForgetResult,
    MemoryRecord,
    RememberResult,
    SearchItem,
    SearchResult,
)

if TYPE_CHECKING:
    from aimate_memory.system import MemorySystem
    from aimate_memory.vault.filters import MemoryFilter
    from aimate_memory.vault.model import Memory

MAX_LIMIT = 50
ROLES = ("user", "assistant", "system", "tool")
UPDATABLE = ("title", "body", "tags", "importance", "status")

MemoryId = Annotated[str, Field(description="Memory id; a unique prefix of it (like a git hash) works, e.g. '0958f2'.")]
TagsArg = Annotated[
    list[str] | str | None, Field(description="Tags, as a list or one comma-separated string, e.g. 'cache,redis'.")
]


class MemoryTools:
    def __init__(
        self,
        open_system: Callable[[], MemorySystem],
        project: Path | None = None,
        global_only: bool = False,
    ) -> None:
        self._open_system = open_system
        self._system: MemorySystem | None = None
        self.project = project
        self.global_only = global_only

    @property
    def system(self) -> MemorySystem:
        """Opened on first use (a missing vault is then a tool error with its hint, not a failed start)."""
        if self._system is None:
            self._system = self._open_system()
        return self._system

    def synced(self) -> MemorySystem:
        """The system with its indexes in step with the files. No vault at all is an error here (the CLI's
        search prints "no results"): a model would otherwise search an empty memory forever."""
        system = self.system
        if not system.vaults:
            raise NotFoundError(
                f"no memory vault at {system.global_vault.root}", "run `aimate mem init` (in the project, for both)"
            )
        system.sync()
        return system

    def warm_up(self) -> None:
        """Open the vaults, bring the index up to date and load the embedding model, so the first search
        pays for none of it."""
        self.synced().store.warm_up()

    def close(self) -> None:
        if self._system is not None:
            self._system.close()
            self._system = None

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
        from aimate_memory.watch.client import daemon_search

        # A running daemon answers warm and keeps the index fresh itself; without one, search here.
        response: Any = daemon_search(query, limit, where, project=self.project, global_only=self.global_only)
        via = "daemon"
        if response is None:
            response = self.synced().search(query, limit, where)
            via = "in-process"
        return SearchResult(
            query=query,
            mode=response.mode,
            via=via,
            results=[_search_item(hit.as_dict()) for hit in response.results],
            warnings=list(response.warnings),
        )

    def memory_get(self, id: MemoryId) -> MemoryRecord:
        memory = self.synced().get(id)
        return memory_record(memory)

    def memory_context(
        self,
        query: Annotated[
            str | None, Field(description="What the conversation is about; memories relevant to it are added.")
        ] = None,
        budget: Annotated[
            int | None, Field(description="Token budget for the whole text; default from the config.")
        ] = None,
    ) -> ContextResult:
        context = self.synced().build_context(query=query or None, budget=budget)
        data = context.to_dict()
        data.setdefault("text", context.text)
        return ContextResult(**{key: data[key] for key in ContextResult.__annotations__})  # type: ignore[typeddict-item]  # keys from the TypedDict itself

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
        result = self.synced().remember(text, confidence=confidence, scope=scope, source="mcp", kind=kind)
        data = result.to_dict()
        return RememberResult(**{key: data.get(key) for key in RememberResult.__annotations__})  # type: ignore[typeddict-item]  # keys from the TypedDict itself

    def memory_update(
        self,
        id: MemoryId,
        title: Annotated[str | None, Field(description="New title.")] = None,
        body: Annotated[str | None, Field(description="New Markdown body (replaces the old one).")] = None,
        tags: TagsArg = None,
        importance: Annotated[int | None, Field(ge=1, le=5, description="1 (trivial) to 5 (essential).")] = None,
        status: Annotated[str | None, Field(description="active, pending or archived.")] = None,
    ) -> MemoryRecord:
        changes = {"title": title, "body": body, "importance": importance, "status": status}
        if tags is not None:
            changes["tags"] = split_list(tags)
        if all(value is None for value in changes.values()):
            raise InvalidInputError("nothing to update", f"pass at least one of: {', '.join(UPDATABLE)}")
        memory = self.synced().update(id, **changes)
        return memory_record(memory)

    def memory_forget(self, id: MemoryId) -> ForgetResult:
        archived = self.synced().remove(id)
        return ForgetResult(
            id=archived.id, title=archived.title, status=archived.status, location=_location(archived.public_dict())
        )

    def memory_session_append(
        self,
        role: Annotated[str, Field(description="Who spoke: user, assistant, system or tool.")],
        content: Annotated[str, Field(description="What was said, verbatim.")],
    ) -> AppendResult:
        role = role.strip().lower()
        if role not in ROLES:
            raise InvalidInputError(f"unknown role {role!r}", f"use one of: {', '.join(ROLES)}")
        result = self.system.add_conversation(role, content)
        data = result.to_dict()
        return AppendResult(**{key: data.get(key) for key in AppendResult.__annotations__})  # type: ignore[typeddict-item]  # keys from the TypedDict itself

    def core_markdown(self) -> str:
        return self.synced().core_markdown()

    # -- helpers -------------------------------------------------------------------------------

    def _search_filter(
        self, layer: str | None, scope: str | None, tags: list[str] | str | None, since: str | None
    ) -> MemoryFilter:
        from aimate_memory.vault.filters import MemoryFilter, parse_layer, parse_scope

        return MemoryFilter(
            layers=tuple(parse_layer(value) for value in split_list(layer)),
            scopes=(parse_scope(scope.strip().lower()),) if scope and scope.strip() else (),
            tags=tuple(split_list(tags)),
            updated_after=parse_since(since, self._now()),
        )

    def _now(self) -> Any:
        from aimate_memory.clock import SystemClock

        return (self._system.store.clock if self._system is not None else SystemClock()).now()


def _location(data: dict[str, Any]) -> str:
    return f"{data['scope']}:{data['path']}"


def _search_item(data: dict[str, Any]) -> SearchItem:
    return SearchItem(
        id=data["id"],
        title=data["title"],
        location=_location(data),
        layer=data["layer"],
        category=data.get("category") or "",
        tags=list(data.get("tags") or []),
        updated_at=data["updated_at"],
        score=float(data["score"]),
        snippet=data.get("snippet") or "",
    )


def memory_record(memory: Memory) -> MemoryRecord:
    data = memory.public_dict()
    return MemoryRecord(
        id=data["id"],
        title=data["title"],
        location=_location(data),
        path=data["path"],
        scope=data["scope"],
        layer=data["layer"],
        category=data["category"],
        tags=data["tags"],
        status=data["status"],
        importance=data["importance"],
        created_at=data["created_at"],
        updated_at=data["updated_at"],
        expires_at=data["expires_at"],
        related=data["related"],
        source=data["source"] or "",
        body=memory.body,
    )


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
