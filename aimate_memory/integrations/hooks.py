"""The hook commands Claude Code and Kimi run: `run_hook` turns a client's stdin payload into what the hook
prints, and never raises — a hook must not break the client, so any error is logged to
`$AIMATE_HOME/state/hooks.log` and the hook prints nothing. The log holds what failed and where (the
exception's type and the traceback's file:line frames, the payload's size), never the payload or the
exception's message: both can carry what the person typed (docs/reliability.md "Security").

- session-start: the context builder's text within `hooks.context_budget` tokens (and Claude Code's
  10,000-character cap on a hook's output), and its warnings as a notice to the person (core memories
  that did not fit are named, never dropped silently).
- prompt: memories relevant to the prompt (search applies its relevance floor, so an unrelated prompt gets
  nothing) and the capture of the person's own "remember: …" / "记住：…" that opens the prompt — written
  pending for `aimate mem review` unless `hooks.capture_status` is active, and the assistant is told so
  (remember.py says what counts: never a line in pasted text or code); for Kimi, which has no session-start
  channel, the first prompt of a session also gets the session context, and each prompt is a session turn.
- session-end (SessionEnd and PreCompact): the transcript's new turns appended to the session kept under
  the client's session id (its trimming summarizes them; no LLM); SessionEnd then ends that session — and
  only it: an invocation that wrote no turn (`claude mcp list` fires SessionEnd too) ends nothing.

Each facade call goes to a running daemon first (`DaemonCall`: warm model and index, and nothing of the
facade imported here) and is made in-process, keyword-only, when none answers.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from aimate_memory.integrations.claude_transcript import read_new_turns
from aimate_memory.integrations.hook_events import Client, HookEvent, HookKind, parse_event, render_output
from aimate_memory.integrations.hook_state import known_session, session_mark
from aimate_memory.integrations.remember import extract_remembered

LOG_FILE = "hooks.log"
MAX_LOG_BYTES = 1_000_000  # then hooks.log becomes hooks.log.1 and a new one starts
CONTEXT_PREFACE = "Memory from AIMate (the `aimate` MCP tools search and save more):"
RELEVANT_PREFACE = "Relevant memories (AIMate; `aimate mem show ID` for the whole memory):"
NOTICE_PREFACE = "AIMate:"
# Claude Code replaces a hook's output over 10,000 characters with a 2 KB preview and a file path, and the
# model never learns the rest was there (anthropics/claude-code#44086); what is left is for the preface
# and the notice.
MAX_CONTEXT_CHARS = 9_000
BUDGET_TRIES = 3  # a context over the characters is built again with a budget scaled down to fit
SNIPPET_CHARS = 240
PROMPT_TOP_K = 5  # a prompt hook adds to every prompt: a few of the relevant memories, not a page


class MemoryPort(Protocol):
    """The part of the MemorySystem facade the hooks use."""

    @property
    def config(self) -> Any: ...

    def sync(self) -> Any: ...
    def build_context(self, query: str | None = None, budget: int | None = None) -> Any: ...
    def search(self, query: str, top_k: int = 10, where: Any = None) -> Any: ...
    def remember(
        self,
        text: str,
        *,
        source: str = "cli",
        thread: str | None = None,
        status: str | None = None,
        force: bool = False,
    ) -> Any: ...
    def add_conversation(
        self, role: str, content: str, tokens: int | None = None, *, session: str | None = None
    ) -> Any: ...
    def end_session(self, ref: str | None = None, *, session: str | None = None) -> Any: ...
    def close(self) -> None: ...


OpenSystem = Callable[[Path | None], MemoryPort]
# The seam for a warm answer: a running daemon's reply to one op (`watch.server` documents them) for the
# payload's folder, or None when none answered and the hook makes the facade call in this process.
DaemonCall = Callable[[str, dict[str, Any], Path | None], dict[str, Any] | None]
BUDGET_SETTING = "hooks.context_budget"
CAPTURE_STATUS_SETTING = "hooks.capture_status"


class Memory:
    """The facade calls a hook makes: through the daemon while one answers (model and index warm, nothing
    imported here), else on the facade opened on first use (for the payload's cwd, synced once) — and once
    that is open every later call uses it. Closed by `close`."""

    def __init__(self, open_system: OpenSystem, cwd: Path | None, daemon: DaemonCall | None) -> None:
        self._open_system = open_system
        self._cwd = cwd
        self._daemon = daemon
        self._system: MemoryPort | None = None

    @property
    def system(self) -> MemoryPort:
        if self._system is None:
            self._system = self._open_system(self._cwd)
            self._system.sync()
        return self._system

    def context(self, budget: int | None = None) -> tuple[str, int, list[str]]:
        """The session context's text, the budget it was built for, and its warnings' messages; the
        budget is `hooks.context_budget` unless given."""
        fields: dict[str, Any] = {"budget": budget} if budget is not None else {"budget_setting": BUDGET_SETTING}
        reply = self._remote("context", **fields)
        if reply is None:
            built = self.system.build_context(budget=budget or self.system.config.get(BUDGET_SETTING))
            reply = built.to_dict()
        warnings = [str(w.get("message")) for w in reply.get("warnings") or [] if isinstance(w, dict)]
        return str(reply.get("text") or ""), int(reply.get("budget") or 0), warnings

    def relevant(self, query: str) -> list[Any]:
        reply = self._remote("search", query=query, limit=PROMPT_TOP_K)
        if reply is not None:
            from aimate_memory.watch.client import remote_response

            return list(remote_response(query, reply).results)
        return list(self.system.search(query, top_k=PROMPT_TOP_K).results)

    def remember(self, text: str, thread: str | None = None) -> dict[str, Any]:
        """Capture the person's request: pending unless they configured `hooks.capture_status: active`
        (the daemon reads the setting for the payload's vaults, as the context budget). Forced: the person
        asked in so many words, so what capture would drop as small talk is kept (and reviewed)."""
        reply = self._remote(
            "remember", text=text, source="hook", thread=thread, status_setting=CAPTURE_STATUS_SETTING, force=True
        )
        if reply is not None:
            return dict(reply.get("result") or {})
        status = str(self.system.config.get(CAPTURE_STATUS_SETTING))
        return dict(self.system.remember(text, source="hook", thread=thread, status=status, force=True).to_dict())

    def add_conversation(self, role: str, content: str, session: str | None) -> None:
        if self._remote("converse", role=role, content=content, session=session) is None:
            self.system.add_conversation(role, content, session=session)

    def end_session(self, session: str) -> None:
        if self._remote("end_session", session=session) is None:
            self.system.end_session(session=session)

    def close(self) -> None:
        if self._system is not None:
            self._system.close()

    def _remote(self, op: str, **fields: Any) -> dict[str, Any] | None:
        if self._system is not None or self._daemon is None:
            return None
        return self._daemon(op, fields, self._cwd)


def run_hook(
    kind: HookKind,
    stdin_text: str,
    open_system: OpenSystem,
    *,
    client: Client = Client.CLAUDE,
    home: Path | None = None,
    daemon: DaemonCall | None = None,
) -> str:
    """What the hook prints for this payload; "" on any error (logged), never an exception."""
    memory: Memory | None = None
    try:
        event = parse_event(kind, stdin_text)
        memory = Memory(open_system, event.cwd, daemon)
        reply = HANDLERS[kind](event, memory, client, _state_dir(home))
        context, notice = (reply, "") if isinstance(reply, str) else reply
        if not context and not notice:
            return render_output(client, event, context, notice=notice)
        from aimate_memory.system.masking import mask_text  # only with something to print: garbage stays light

        return render_output(client, event, mask_text(context), notice=mask_text(notice))
    except Exception:
        _log_failure(_state_dir(home), kind, client, stdin_text)
        return ""
    finally:
        if memory is not None:
            try:
                memory.close()
            except Exception:
                _log_failure(_state_dir(home), kind, client, stdin_text)


def _session_start(event: HookEvent, memory: Memory, client: Client, state_dir: Path) -> tuple[str, str]:
    return _session_context(memory)


def _prompt(event: HookEvent, memory: Memory, client: Client, state_dir: Path) -> str:
    prompt = (event.prompt or "").strip()
    if not prompt:
        return ""
    parts = []
    thread = conversation_of(client, event)
    if client is Client.KIMI:
        parts.append(_kimi_first_prompt(event, memory, state_dir))
        memory.add_conversation("user", prompt, thread)
    parts.append(_relevant(memory, prompt))
    parts.extend(_capture(memory, text, thread) for text in extract_remembered(prompt))
    return "\n\n".join(part for part in parts if part)


def _session_end(event: HookEvent, memory: Memory, client: Client, state_dir: Path) -> str:
    """The transcript's new turns into the session kept under the client's session id; SessionEnd then
    ends that session if it ran. No session id: whose session it was cannot be known, so nothing ends."""
    session = conversation_of(client, event)
    if session is None or _never_ran(event, state_dir):
        return ""
    if event.transcript_path is not None and event.transcript_path.is_file():
        with session_mark(state_dir, event.session_id, _now()) as mark:
            turns, mark.offset = read_new_turns(event.transcript_path, mark.offset)
            for turn in turns:
                memory.add_conversation(turn.role, turn.content, session)
    if event.ends_session:
        memory.end_session(session)
    return ""


def _never_ran(event: HookEvent, state_dir: Path) -> bool:
    """An invocation that held no conversation — `claude mcp list` sends SessionEnd with a transcript that
    does not exist — and that no hook saw before: nothing to save or end, so no vault is opened for it
    (that cost ~2 s at load 16; a hook must stay cheap)."""
    transcript = event.transcript_path
    return transcript is not None and not transcript.exists() and not known_session(state_dir, event.session_id)


# A handler's reply: the context for the model, or (context, notice for the person).
HANDLERS: dict[HookKind, Callable[[HookEvent, Memory, Client, Path], str | tuple[str, str]]] = {
    HookKind.SESSION_START: _session_start,
    HookKind.PROMPT: _prompt,
    HookKind.SESSION_END: _session_end,
}


def _session_context(memory: Memory) -> tuple[str, str]:
    """The session context for the model and a notice for the person: the context's warnings (core
    memories left out, named; session usage; captures waiting for review). The notice is in the model's
    context too, so the assistant knows what it was not given."""
    text, budget, warnings = memory.context()
    for _ in range(BUDGET_TRIES):
        if len(text) <= MAX_CONTEXT_CHARS or budget <= 1:
            break
        text, budget, warnings = memory.context(max(1, budget * MAX_CONTEXT_CHARS * 9 // (len(text) * 10)))
    notice = f"{NOTICE_PREFACE} " + " ".join(warnings) if warnings else ""
    parts = [f"{CONTEXT_PREFACE}\n\n{text.strip()}" if text.strip() else "", notice]
    return "\n\n".join(part for part in parts if part), notice


def _kimi_first_prompt(event: HookEvent, memory: Memory, state_dir: Path) -> str:
    with session_mark(state_dir, event.session_id, _now()) as mark:
        if mark.primed:
            return ""
        mark.primed = True
    return _session_context(memory)[0]


def _relevant(memory: Memory, prompt: str) -> str:
    hits = memory.relevant(prompt)
    if not hits:
        return ""
    lines = [RELEVANT_PREFACE]
    for hit in hits:
        found = hit.memory
        snippet = " ".join((hit.snippet or "").split())[:SNIPPET_CHARS]
        lines.append(f"- {found.title} [{found.layer.value} {found.id[:8]}]" + (f": {snippet}" if snippet else ""))
    return "\n".join(lines)


def _capture(memory: Memory, text: str, thread: str | None) -> str:
    """What the assistant is told, so it can tell the person: queued for review, saved, or why not."""
    result = memory.remember(text, thread)
    action = str(result.get("action") or "")
    memory_id = str((result.get("memory") or {}).get("id") or "")[:8]
    said = CAPTURE_LINES.get(action) or f"not saved ({result.get('reason') or action})"
    return f"AIMate memory {said}{f' [{memory_id}]' if memory_id else ''}: {text}"


CAPTURE_LINES = {
    "pending": "queued for review (kept only once the person accepts it in `aimate mem review`)",
    "written": "saved",
    "exists": "already known",
}


def conversation_of(client: Client, event: HookEvent) -> str | None:
    """The key of this assistant session (`claude:<session id>`): the session its turns are kept in, and
    the `thread` of what is captured in it — memories said in one conversation are each other's context
    (retrieval/neighbours.py). None when the client sent no session id."""
    return f"{client.value}:{event.session_id}" if event.session_id != "unknown" else None


def _state_dir(home: Path | None) -> Path:
    from aimate_memory.vault.roots import Roots, aimate_home

    return Roots.state_dir(home or aimate_home())


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _log_failure(state_dir: Path, kind: HookKind, client: Client, stdin_text: str) -> None:
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        log = state_dir / LOG_FILE
        if log.exists() and log.stat().st_size > MAX_LOG_BYTES:
            log.replace(log.with_name(LOG_FILE + ".1"))
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(failure_entry(kind, client, len(stdin_text.encode("utf-8", "replace"))))
    except Exception:
        pass  # nowhere left to report to; the client must still not see anything


def failure_entry(kind: HookKind, client: Client, stdin_bytes: int) -> str:
    """The log lines for the exception being handled: what failed (its type) and where (file:line in
    function, innermost last), without its message or any input text."""
    error_type, _, trace = sys.exc_info()
    frames = traceback.extract_tb(trace)
    where = "".join(f"  {Path(f.filename).name}:{f.lineno} in {f.name}\n" for f in frames)
    name = error_type.__name__ if error_type is not None else "error"
    return f"{_now()} {client.value} {kind.value} failed: {name} (stdin {stdin_bytes} bytes)\n{where}"
