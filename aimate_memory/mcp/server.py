"""The stdio MCP server: the official SDK's FastMCP with our tools and the `memory://core` resource.

Only this module names the SDK. It is mcp 1.x (see the pin in pyproject.toml): `from mcp.server.fastmcp
import FastMCP`, camelCase type fields. Moving to 2.x is a rename here (`from mcp.server import MCPServer`,
`read_only_hint`, `is_error`, `call_tool(name, arguments, context)`).

Start-up is the budget (`tools/list` within 1 s of spawn): importing the SDK is most of it, so nothing of the
facade is imported until a tool runs, and the model, index and vaults are warmed on the worker thread once the
client has listed the tools (or a few seconds after start, for clients that never list them)."""

from __future__ import annotations

import asyncio
import functools
import io
import json
import logging
import sys
import time
import typing
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

import anyio
from mcp import types
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ResourceError, ToolError
from mcp.server.fastmcp.prompts import Prompt
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import McpError
from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS
from mcp.types import CallToolResult, ContentBlock, TextContent, ToolAnnotations
from pydantic import ValidationError

from aimate_memory import __version__
from aimate_memory.mcp import modern
from aimate_memory.mcp.errors import ToolFailure, failure_from, invalid_arguments, logger
from aimate_memory.mcp.params import normalize_arguments
from aimate_memory.mcp.prompts import PROMPT_NAMES, PROMPT_SPECS, MemoryPrompts, answered
from aimate_memory.mcp.protocol import (
    INVALID_PARAMS,
    RESOURCE_NOT_FOUND,
    Gate,
    LineOut,
    LineSource,
    LockedOut,
    Message,
    Verdict,
    error_reply,
    method_not_found,
)
from aimate_memory.mcp.tools import TOOL_NAMES, MemoryTools
from aimate_memory.system.masking import mask_data

SERVER_NAME = "aimate-memory"
# Warm-up starts this long after the client's first `tools/list` (its answer is written first: loading the
# model competes for the GIL and for one of the machine's two cores) or, at the latest, after WARM_UP_LATEST.
WARM_UP_DELAY_S = 0.05
WARM_UP_LATEST_S = 3.0

INSTRUCTIONS = """\
Long-term memory for this project and for the user, kept as Markdown files (AIMate memory).
Call memory_search before answering questions about earlier decisions, preferences, conventions or tasks;
memory_get reads one memory whole. Call memory_remember when the user states a durable fact, decision,
preference or task (one sentence each). memory_context gives a prompt-ready summary of what matters now.
Memories are in Chinese and English; search in either language. A project memory whose cited files changed
since it was verified carries `stale` (which file, changed/moved/deleted, since when, in how many commits)."""


@dataclass(frozen=True)
class ToolSpec:
    title: str
    description: str
    annotations: ToolAnnotations


READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False)

TOOL_SPECS: dict[str, ToolSpec] = {
    "memory_search": ToolSpec(
        "Search memories",
        "Search long-term memory by meaning and keywords (hybrid), in Chinese or English. Use it before answering "
        "anything about past decisions, preferences, conventions, people or open tasks. Returns ids, titles, "
        "snippets, scores and locations (scope:path); read one whole with memory_get. Filters: layer "
        "(core, session, short_term, long_term), scope (project, global), tags, since (a date or 7d, 2w, today). "
        "A result with `stale` cites a project file that changed, moved or was deleted since the memory was "
        "verified: it may be out of date.",
        READ_ONLY,
    ),
    "memory_get": ToolSpec(
        "Read a memory",
        "Read one memory whole (fields and Markdown body) by its id or a unique id prefix, as returned by "
        "memory_search.",
        READ_ONLY,
    ),
    "memory_context": ToolSpec(
        "Build context",
        "Prompt-ready Markdown of what matters now: core rules and preferences, the current session, recent "
        "short-term memories and, given a query, the long-term memories relevant to it, within a token budget. "
        "Returns the text and its sections (which memories, how many tokens each).",
        READ_ONLY,
    ),
    "memory_remember": ToolSpec(
        "Remember",
        "Remember one durable rule, preference, decision, fact or task stated in the conversation (one sentence, "
        "any language). Say what it is with `kind`:\n"
        '- rule: a convention for how work is done ("run the tests before committing", "回复使用中文");\n'
        '- preference: the user\'s taste or habit ("prefers short answers", "我习惯用 Tab 缩进");\n'
        '- decision: a choice that was made ("we use PostgreSQL as the main database");\n'
        '- knowledge: a fact about the project, system or domain ("the API listens on port 8080");\n'
        "- project: what the project is, its goal or status;\n"
        '- task: something still to do ("TODO: add rate limiting");\n'
        '- note: a transient situation ("the build on main is broken today").\n'
        "Without `kind` it is decided from the text; chatter, thanks and questions are dropped. Rules and "
        "preferences you save wait for the user's review before they apply. Returns the action taken (written, "
        "pending, dropped, exists, conflict), the memory, the id of a memory it supersedes, and the reason. "
        "`conflict`: it may contradict the active memories in `conflicts` (id, title, reason), so it was saved "
        "pending: tell the user which one it contradicts and that `aimate mem review` lets them keep one.",
        ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False),
    ),
    "memory_update": ToolSpec(
        "Update a memory",
        "Edit a memory: its title, Markdown body, tags, importance (1–5) or status (active, pending, archived). "
        "Only the fields you pass change. `verified: true` says a possibly stale project memory still holds for "
        "the code as it is now (it is re-anchored and its `stale` mark cleared). Returns the memory as saved. "
        "Only the person makes a memory active or changes a core memory: such a call is refused — ask them to "
        "run `aimate mem review`.",
        ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=False),
    ),
    "memory_forget": ToolSpec(
        "Forget a memory",
        "Forget a memory that is wrong or obsolete: it is moved to the archive (never deleted; a person can "
        "restore it) and no longer found by search. Returns where it now lives. A core memory is the person's: "
        "forgetting one is refused.",
        ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True, openWorldHint=False),
    ),
    "memory_session_append": ToolSpec(
        "Log a conversation turn",
        "Append one turn of the conversation (role user, assistant, system or tool, and its content) to the current "
        "session, starting one if needed. For clients without hooks; long sessions are summarized automatically.",
        ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False),
    ),
}


class Worker:
    """One thread for every facade call: SQLite connections stay on the thread that opened them, and calls
    run one at a time, in order (the warm-up first)."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="aimate-mcp")

    async def run(self, fn: Callable[..., Any], /, **kwargs: Any) -> Any:
        return await asyncio.wrap_future(self._executor.submit(fn, **kwargs))

    def submit(self, fn: Callable[[], Any]) -> None:
        self._executor.submit(fn)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False)

    def wait(self) -> None:
        """Until every call submitted (the last `close` included) has run."""
        self._executor.shutdown(wait=True)


class MemoryServer(FastMCP):
    """FastMCP whose tool calls take forgiving argument names and fail as one line plus a hint."""

    def __init__(self, tools: MemoryTools, worker: Worker) -> None:
        super().__init__(SERVER_NAME, instructions=INSTRUCTIONS, log_level="WARNING", lifespan=self._lifespan)
        self._mcp_server.version = __version__  # FastMCP takes no version: without it, serverInfo is the SDK's
        self.memory_tools = tools
        self.worker = worker
        self._warm_up_started = False
        self.asked = 0  # waiting captures asked of the person in this session (at most `ask_at_most`)
        self._ask_at_most: int | None = None
        for name in TOOL_NAMES:
            spec = TOOL_SPECS[name]
            self.add_tool(
                _on_worker(worker, getattr(tools, name)),
                name=name,
                title=spec.title,
                description=spec.description,
                annotations=spec.annotations,
                structured_output=True,
            )
        prompts = MemoryPrompts(tools)
        for name in PROMPT_NAMES:
            prompt = PROMPT_SPECS[name]
            self.add_prompt(
                Prompt.from_function(
                    _on_worker(worker, answered(getattr(prompts, name), name)),
                    name=name,
                    title=prompt.title,
                    description=prompt.description,
                )
            )
        self.resource(
            "memory://core",
            name="core-memories",
            title="Core memories",
            description="The user's global rules and preferences, then this project's, as Markdown.",
            mime_type="text/markdown",
        )(self._read_core)
        # The SDK logs a failed resource read with its traceback on stderr; ours is in mcp.log already.
        for handler in logging.getLogger().handlers:
            handler.addFilter(_drop_traceback)

    async def run_stdio(self, stdin: LineSource | None = None, stdout: LineOut | None = None) -> None:
        """FastMCP's `run_stdio_async`, over the given text streams (default: the process's own)."""
        # `anyio.wrap_file` only calls the methods it is asked for (readline; write, flush) on a worker thread:
        # the gate and the locked writer have them, without being a whole `IO[str]`.
        async with stdio_server(
            anyio.wrap_file(cast("IO[str]", stdin)) if stdin is not None else None,
            anyio.wrap_file(cast("IO[str]", stdout)) if stdout is not None else None,
        ) as (read_stream, write_stream):
            await self._mcp_server.run(read_stream, write_stream, self._mcp_server.create_initialization_options())

    async def list_tools(self) -> Any:
        listed = await super().list_tools()
        self._start_warm_up(WARM_UP_DELAY_S)
        return listed

    # FastMCP's annotation omits CallToolResult, which its low-level server passes through as it is (SDK 1.x:
    # an error result with isError set, our tool failures' shape).
    async def call_tool(  # type: ignore[override]  # returns CallToolResult too, see above
        self, name: str, arguments: dict[str, Any]
    ) -> Sequence[ContentBlock] | dict[str, Any] | CallToolResult:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return _error_result(ToolFailure(f"unknown tool {name!r}", f"tools: {', '.join(TOOL_NAMES)}"))
        self._start_warm_up(0)  # queued ahead of this call: one model load, never two
        arguments = normalize_arguments(arguments, tool.parameters.get("properties", {}))
        try:
            answer = _as_result(await super().call_tool(name, arguments))
            if name == "memory_remember" and isinstance(answer, CallToolResult) and not answer.isError:
                await self._ask_the_person(answer)
            return answer
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError) and cause.title.endswith("Arguments"):
                return _error_result(_invalid(name, cause, tool.parameters))
            return _error_result(failure_from(cause or exc, name))

    def ask_at_most(self) -> int:
        """How many waiting captures a session's person is asked: as many as a session may propose
        (`capture.distill_max`, the person's config), so one setting bounds what a session asks of them."""
        if self._ask_at_most is None:
            from aimate_memory.config.loader import load_config
            from aimate_memory.vault.roots import aimate_home

            self._ask_at_most = int(load_config(aimate_home(), None).get("capture.distill_max"))
        return self._ask_at_most

    async def _ask_the_person(self, answer: CallToolResult) -> None:
        """A capture waiting for review, asked of the person at once where the client can ask them
        (`elicitation/create`, form mode; docs/agents.md, "Consent"): Keep accepts it as `review --accept`
        does, Discard rejects it (never proposed again); dismissing leaves it for review. The client shows the
        question to the person — the model that made the capture never answers it. `answer` then says what
        they chose: action `written` (kept) or `dropped` (discarded), the reason naming them."""
        data = answer.structuredContent or {}
        memory = data.get("memory") or {}
        if data.get("action") not in ("pending", "conflict") or not memory.get("id"):
            return
        session = self._mcp_server.request_context.session
        asks = types.ClientCapabilities(elicitation=types.ElicitationCapability())
        if self.asked >= self.ask_at_most() or not session.check_client_capability(asks):
            return
        self.asked += 1
        conflicts = [other for other in data.get("conflicts") or () if other.get("id")]
        try:
            reply = await session.elicit_form(
                _question(data), keep_schema(conflicts), self._mcp_server.request_context.request_id
            )
        except Exception as exc:  # a client that cannot ask after all: the capture waits for review as before
            logger.info("elicitation for %s failed: %s", str(memory["id"])[:8], exc)
            return
        decided = review_args(str(memory["id"]), reply, conflicts)
        if decided is None:
            return
        done = await self.worker.run(self.memory_tools.client.view, name="review", args=decided)
        outcomes = [outcome for outcome in done.get("outcomes") or () if outcome.get("action") in ("accept", "reject")]
        if not outcomes:  # refused (a secret, a broken file): it waits for review, where the reason is shown
            return
        if decided["accept"]:
            details = [str(outcome.get("detail", "")) for outcome in outcomes]
            retired = "".join(detail[detail.find("; supersedes") :] for detail in details if "; supersedes" in detail)
            kept = "; the person kept it (asked by the client)"
            kept += retired or ("; the others are kept too" if conflicts else "")
            data.update(action="written", reason=f"{data.get('reason', '')}{kept}")
            memory["status"] = "active"
        else:
            data.update(
                action="dropped", reason=f"{data.get('reason', '')}; the person discarded it (asked by the client)"
            )
        answer.content = [TextContent(type="text", text=json.dumps(data, ensure_ascii=False))]

    async def read_resource(self, uri: Any) -> Any:
        """FastMCP's, with an unknown URI answered `-32002` (MCP's "Resource not found") and a failed read
        `-32603`, where the SDK answered code 0."""
        if not self._has_resource(str(uri)):
            not_found = types.ErrorData(
                code=RESOURCE_NOT_FOUND, message="Resource not found", data={"uri": str(uri)[:200]}
            )
            raise McpError(not_found)
        try:
            return await super().read_resource(uri)
        except ResourceError as exc:  # a read that failed (no vault yet): already one masked line
            raise McpError(types.ErrorData(code=types.INTERNAL_ERROR, message=str(exc))) from None

    def _has_resource(self, uri: str) -> bool:
        listed = {str(resource.uri) for resource in self._resource_manager.list_resources()}
        return uri in listed or any(t.matches(uri) for t in self._resource_manager.list_templates())

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """FastMCP's, with an unknown prompt answered `-32602` (MCP's "Invalid prompt name"), not code 0."""
        if self._prompt_manager.get_prompt(name) is None:
            raise McpError(types.ErrorData(code=INVALID_PARAMS, message="Invalid prompt name", data=name[:100]))
        return await super().get_prompt(name, arguments)

    async def _read_core(self) -> str:
        try:
            core: str = await self.worker.run(self.memory_tools.core_markdown)
            return core
        except Exception as exc:
            raise ResourceError(failure_from(exc, "memory://core").text) from None

    def _start_warm_up(self, delay: float) -> None:
        if self._warm_up_started:
            return
        self._warm_up_started = True
        if delay > 0:
            asyncio.get_running_loop().call_later(delay, self.worker.submit, self._warm_up)
        else:
            self.worker.submit(self._warm_up)

    def _warm_up(self) -> None:
        if daemon_running():
            # Searches go to the daemon, warm; opening the vaults and loading the model here would only take
            # the CPU from the client's hooks, which run at this very moment (docs/agents.md, "Inside the
            # real assistants"). Other tools open the facade at their first call.
            logger.info("warm-up skipped: a daemon answers searches")
            return
        started = time.perf_counter()
        try:
            self.memory_tools.warm_up()
        except Exception as exc:  # the first tool call reports it properly; here it is only logged
            failure_from(exc, "warm-up")
        else:
            logger.info("warm-up done in %.2f s", time.perf_counter() - started)

    @staticmethod
    @asynccontextmanager
    async def _lifespan(server: FastMCP) -> AsyncIterator[None]:
        assert isinstance(server, MemoryServer)
        loop = asyncio.get_running_loop()
        latest = loop.call_later(WARM_UP_LATEST_S, server._start_warm_up, 0)
        try:
            yield
        finally:
            latest.cancel()
            server.worker.submit(server.memory_tools.close)
            server.worker.shutdown()


def daemon_running() -> bool:
    """A daemon holds its lock for this AIMATE_HOME (and the person did not turn daemons off)."""
    import os

    from aimate_memory.vault.roots import aimate_home
    from aimate_memory.watch.process import running_pid

    return os.environ.get("AIMATE_NO_DAEMON") != "1" and running_pid(aimate_home()) is not None


def _drop_traceback(record: logging.LogRecord) -> bool:
    if record.name.split(".")[0] == "mcp":  # the SDK's records only
        record.exc_info = None
        record.exc_text = None
    return True


KEEP_SCHEMA: types.ElicitRequestedSchema = {
    "type": "object",
    "properties": {
        "keep": {
            "type": "boolean",
            "title": "Keep it as a memory? / 保留为记忆？",
            "description": "Yes: it is kept (committed). No: it is discarded and not proposed again. "
            "是：保留（提交）。否：丢弃，不再提议。",
        }
    },
    "required": ["keep"],
}

# A capture that may contradict memories is one choice among these (a single-select enum: the MCP spec's
# `enum` + `enumNames`, which 2025-06-18 clients read and later revisions keep), so the person can keep it
# without retiring every memory it names (docs/agents.md, "Consent").
REPLACE_ALL, KEEP_BOTH, DISCARD, ONLY = "replace", "keep_both", "discard", "only:"
TITLE_SHOWN = 60  # characters of a memory's title in a choice: a form line, not the memory


def keep_schema(conflicts: Sequence[dict[str, Any]]) -> types.ElicitRequestedSchema:
    """The form for a waiting capture: one boolean without conflicts; with them, what keeping it retires."""
    if not conflicts:
        return KEEP_SCHEMA
    titles = [f"“{_shortened(str(other.get('title', '')))}”" for other in conflicts]
    choices = [(REPLACE_ALL, f"Keep it, replacing {', '.join(titles)} / 保留，取代{'、'.join(titles)}")]
    if len(conflicts) > 1:
        choices += [
            (ONLY + str(other["id"]), f"Keep it, replacing only {title} / 保留，只取代{title}")
            for other, title in zip(conflicts, titles, strict=True)
        ]
    choices += [(KEEP_BOTH, "Keep it and the others too / 保留，原有的也保留"), (DISCARD, "Discard it / 丢弃")]
    choice = {
        "type": "string",
        "title": "Keep it as a memory? / 保留为记忆？",
        "description": "Discarded: not proposed again. 丢弃后不再提议。",
        "enum": [value for value, _ in choices],
        "enumNames": [title for _, title in choices],
    }
    return {"type": "object", "properties": {"choice": choice}, "required": ["choice"]}


def review_args(
    memory_id: str, reply: types.ElicitResult, conflicts: Sequence[dict[str, Any]]
) -> dict[str, Any] | None:
    """What the person's answer to `keep_schema`'s form asks of `review`, or None to leave the capture waiting
    (dismissed, or an answer the form did not offer)."""
    decided: dict[str, Any] = {"accept": [], "reject": [], "accept_all": False, "allow_secret": False}
    decided |= {"keep_both": False, "replace": []}
    if reply.action == "decline":
        return decided | {"reject": [memory_id]}
    if reply.action != "accept":
        return None
    content = reply.content or {}
    if not conflicts:
        keep = content.get("keep")
        return None if not isinstance(keep, bool) else decided | {("accept" if keep else "reject"): [memory_id]}
    offered: dict[str, dict[str, Any]] = {
        DISCARD: {"reject": [memory_id]},
        REPLACE_ALL: {"accept": [memory_id]},
        KEEP_BOTH: {"accept": [memory_id], "keep_both": True},
    }
    if len(conflicts) > 1:
        offered |= {ONLY + str(o["id"]): {"accept": [memory_id], "replace": [str(o["id"])]} for o in conflicts}
    picked = offered.get(str(content.get("choice")))
    return None if picked is None else decided | picked


def _shortened(title: str) -> str:
    return title if len(title) <= TITLE_SHOWN else title[: TITLE_SHOWN - 1] + "…"


def _question(data: dict[str, Any]) -> str:
    """What the person is asked: the sentence, where it would go, and what it would replace, in both languages."""
    memory = data.get("memory") or {}
    where = f"{memory.get('layer', '')}/{memory.get('category', '')}, {memory.get('scope', '')}"
    text = f"Your assistant wants to remember / 助手想记住：\n“{memory.get('title', '')}” ({where})"
    replaced = [str(other.get("title", "")) for other in data.get("conflicts") or ()]
    if replaced:
        text += "\nIt may contradict / 可能与之矛盾：" + "; ".join(f"“{title}”" for title in replaced)
    return text


def _on_worker(worker: Worker, method: Callable[..., Any]) -> Callable[..., Any]:
    """An async tool or prompt with `method`'s signature (the SDK reads it for the schemas) running on the
    worker."""

    @functools.wraps(method)
    async def tool(**kwargs: Any) -> Any:
        # What the model reads: every secret masked, a memory let in with --allow-secret included.
        return mask_data(await worker.run(method, **kwargs))

    return tool


def _as_result(answer: object) -> Sequence[ContentBlock] | dict[str, Any] | CallToolResult:
    """FastMCP's (content, structured) pair as the `CallToolResult` it would become. Handed back whole, the
    SDK 1.x low-level server skips its per-call `jsonschema.validate` of the structured output, which checks
    the tool's schema against the meta-schema first, every call: 23 % of the server's CPU per
    `memory_search`, as much as the search itself (py-spy, 2k memories, 2026-11-26). Our outputs are built
    from fixed records; the SDK's client validates them against `outputSchema` in tests/mcp."""
    if isinstance(answer, tuple) and len(answer) == 2:  # FastMCP's annotation leaves this shape out
        content, structured = cast("tuple[Sequence[ContentBlock], dict[str, Any]]", answer)
        return CallToolResult(content=list(content), structuredContent=structured, isError=False)
    return cast("Sequence[ContentBlock] | dict[str, Any]", answer)


def _error_result(failure: ToolFailure) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=failure.text)], isError=True)


def _invalid(tool: str, error: ValidationError, schema: dict[str, Any]) -> ToolFailure:
    problems = error.errors()
    fields = sorted({".".join(str(part) for part in problem["loc"]) for problem in problems})
    required = set(schema.get("required", []))
    parameters = [name + (" (required)" if name in required else "") for name in schema.get("properties", {})]
    return invalid_arguments(tool, fields, problems[0]["msg"] if problems else "rejected", parameters)


def build_server(connect: Callable[[], Any], project: Path | None = None, global_only: bool = False) -> MemoryServer:
    """The server over one `system.client.Client`, made by `connect` on the worker thread at first need."""
    return MemoryServer(MemoryTools(connect), Worker())


def serve(
    open_system: Callable[[], Any],
    project: Path | None = None,
    global_only: bool = False,
    stdin: LineSource | None = None,
    stdout: LineOut | None = None,
) -> None:
    """Run over stdio until the client closes stdin; `stdin`/`stdout` replace the process's own (the front
    in `mcp.front` hands over its stream that way)."""
    from aimate_memory.mcp.errors import configure_logging
    from aimate_memory.vault.roots import Roots, aimate_home

    configure_logging(Roots.state_dir(aimate_home()))
    logger.info("mcp server starting (project=%s, global_only=%s)", project, global_only)
    log_vaults(project, global_only)
    server = build_server(open_system, project, global_only)
    replies = modern.ModernReplies(stdout or io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8"))
    out = LockedOut(replies)
    source: LineSource = stdin or io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    gate = Gate(source, out, check_message, on_refused=lambda reason: logger.info("refused a message: %s", reason))
    anyio.run(server.run_stdio, modern.ImplicitSession(gate, replies), out)
    server.worker.wait()  # every answer written and the vaults closed: the process may leave (cli/fast.py)


def log_vaults(project: Path | None, global_only: bool) -> None:
    """Say which vaults this server serves: a client that passes a fixed environment (no AIMATE_HOME) starts
    it on another vault than the person meant, and this line is how they find out (issue 30 §6)."""
    from aimate_memory.vault.roots import Roots, detect_roots

    roots = detect_roots(project=project, global_only=global_only)
    folders = [("global", Roots.vault_dir(roots.home))]
    if roots.project is not None:
        folders.insert(0, ("project", Roots.vault_dir(roots.project)))
    for scope, folder in folders:
        logger.info("serving the %s vault %s%s", scope, folder, "" if folder.is_dir() else " (not created yet)")


# -- what MCP's methods take (`mcp/protocol.py` checks the rest of JSON-RPC) ---------------------------

REQUESTS: dict[str, type[Any]] = {
    request.model_fields["method"].annotation.__args__[0]: request
    for request in typing.get_args(types.ClientRequest.model_fields["root"].annotation)
}
NOTIFICATIONS: dict[str, type[Any]] = {
    notification.model_fields["method"].annotation.__args__[0]: notification
    for notification in typing.get_args(types.ClientNotification.model_fields["root"].annotation)
}


def check_message(message: Message) -> Verdict | None:
    """The 2026-07-28 answers (`server/discover`, a bad envelope: `mcp/modern.py`), then MCP's methods."""
    return modern.check(message) or check_params(message)


def check_params(message: Message) -> Verdict | None:
    """A request for a method MCP lacks → -32601; params that are not the method's → -32602 naming the
    fields; a notification MCP lacks, or malformed → dropped. None: the SDK takes it."""
    method = message.get("method")
    if method is None:
        return None  # a response to the server
    if "id" not in message:
        known = NOTIFICATIONS.get(method)
        return None if known is not None and _validates(known, message) is None else Verdict()
    request = REQUESTS.get(method)
    if request is None:
        return Verdict(reply=method_not_found(message["id"], method))
    problem = _validates(request, message)
    if problem is not None:
        return Verdict(reply=error_reply(message["id"], INVALID_PARAMS, "Invalid params", problem))
    return None


def _validates(model: type[Any], message: Message) -> str | None:
    """None when `message` is a valid `model`, else its problems in one line (fields, no input values)."""
    try:
        model.model_validate({key: value for key, value in message.items() if key in ("method", "params")})
    except ValidationError as exc:
        return "; ".join(
            f"{'.'.join(str(part) for part in problem['loc']) or 'params'}: {problem['msg']}"
            for problem in exc.errors()
        )
    return None


# -- what `mcp.front` answers before the SDK is imported (`mcp/listing.py`) ----------------------------

# Requests without parameters whose answers depend only on this module: the front answers them from
# `mcp/listing.py`, which `write_listing` generates and a test keeps equal to what the SDK answers.
LISTED_REQUESTS = {
    "tools/list": types.ListToolsRequest,
    "resources/list": types.ListResourcesRequest,
    "resources/templates/list": types.ListResourceTemplatesRequest,
    "prompts/list": types.ListPromptsRequest,
}


def static_answers() -> dict[str, Any]:
    """The SDK's own answers to `initialize` (without the negotiated protocolVersion) and to each of
    LISTED_REQUESTS, as the JSON it sends."""
    server = build_server(lambda: None)
    server._warm_up_started = True  # listing must not start loading anything
    options = server._mcp_server.create_initialization_options()
    initialize = types.InitializeResult(
        protocolVersion=types.LATEST_PROTOCOL_VERSION,
        capabilities=options.capabilities,
        serverInfo=types.Implementation(
            name=options.server_name,
            version=options.server_version,
            websiteUrl=options.website_url,
            icons=options.icons,
        ),
        instructions=options.instructions,
    )
    answers = {"initialize": _as_json(initialize)}
    answers["initialize"].pop("protocolVersion")
    for method, request_type in LISTED_REQUESTS.items():
        handler = server._mcp_server.request_handlers[request_type]
        answers[method] = _as_json(anyio.run(handler, request_type(method=method)))
    return {
        "answers": answers,
        "supported_versions": list(SUPPORTED_PROTOCOL_VERSIONS),
        "latest_version": types.LATEST_PROTOCOL_VERSION,
        "request_methods": sorted(REQUESTS),
    }


def _as_json(model: Any) -> dict[str, Any]:
    return dict(json.loads(model.model_dump_json(by_alias=True, exclude_none=True)))


def write_listing(path: Path = Path(__file__).with_name("listing.py")) -> None:
    """Regenerate `mcp/listing.py` (`python -m aimate_memory.mcp.server`), formatted by ruff when it is there."""
    import pprint
    import shutil
    import subprocess
    import sys

    header = (
        '"""Generated by `python -m aimate_memory.mcp.server` from the SDK\'s own answers (do not edit; '
        'tests/mcp keep it\nequal to them): what `mcp.front` answers before the SDK is imported."""\n\n'
        "from typing import Any\n\n"
    )
    # Annotated, so the checker reads each answer as the JSON object it is (inferred, it is `dict[str, object]`).
    body = "".join(
        f"{name.upper()}: {_json_annotation(value)} = {pprint.pformat(value, width=110, sort_dicts=False)}\n"
        for name, value in static_answers().items()
    )
    path.write_text(header + body, encoding="utf-8")
    ruff = Path(sys.executable).with_name("ruff")
    ruff_command = str(ruff) if ruff.exists() else shutil.which("ruff")
    if ruff_command:
        subprocess.run([ruff_command, "format", "-q", str(path)], check=False)


def _json_annotation(value: object) -> str:
    if isinstance(value, dict):
        return "dict[str, Any]"
    if isinstance(value, (list, tuple)):
        return "list[Any]"
    return type(value).__name__


if __name__ == "__main__":
    write_listing()
