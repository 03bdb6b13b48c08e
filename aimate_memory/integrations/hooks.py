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

Each call goes through the one client (`system.client`, made by `watch.client.connect`): a running daemon
first (warm model and index, and nothing of the facade imported here), else the facade in this process.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from aimate_memory.integrations.claude_transcript import CLAUDE, TranscriptFormat, read_new
from aimate_memory.integrations.codex_transcript import CODEX
from aimate_memory.integrations.hook_events import Client, HookEvent, HookKind, parse_event, render_output
from aimate_memory.integrations.hook_state import idle_sessions, known_session, session_mark
from aimate_memory.integrations.remember import extract_remembered
from aimate_memory.text.typed import typed_text

if TYPE_CHECKING:  # a payload that is not one prints nothing without importing these
    from aimate_memory.system.client import MemoryClient
    from aimate_memory.system.records import ContextRecord, HitRecord

LOG_FILE = "hooks.log"
MAX_LOG_BYTES = 1_000_000  # then hooks.log becomes hooks.log.1 and a new one starts
CONTEXT_PREFACE = "Memory from AIMate (the `aimate` MCP tools search and save more):"
RELEVANT_PREFACE = "Relevant memories (AIMate; `aimate mem show ID` for the whole memory):"
NOTICE_PREFACE = "AIMate:"
# Claude Code replaces a hook's output over 10,000 characters with a 2 KB preview and a file path, and the
# model never learns the rest was there (anthropics/claude-code#44086); what is left is for the preface
# and the notice.
MAX_CONTEXT_CHARS = 9_000
# A context over the characters or the tokens is built again with a budget scaled down to fit, at most this often.
BUDGET_TRIES = 4
SNIPPET_CHARS = 240
PROMPT_TOP_K = 5  # a prompt hook adds to every prompt: a few of the relevant memories, not a page
IDLE_CLOSED_PER_START = 2  # dead sessions a session start closes: each costs a transcript read and an end
PROMPT_SESSIONS = 2  # past sessions searched when no memory answers
FEW_HITS = 2  # fewer memories than this answered: one past session's episode may add what they miss
EPISODE_CHARS = 320  # of one past session's episode line
PAST_SESSION_PREFACE = (
    "From past conversations (AIMate; no memory answered this prompt; what was said then, by the person or the"
    " assistant, not a memory):"
)
EPISODE_PREFACE = "From a past session (AIMate; what was asked, decided and left open then, not a memory):"
EPISODES_PREFACE = (
    "From past sessions (AIMate; no memory answered this prompt; what was asked, decided and left open then,"
    " not a memory):"
)
QUERY_TURNS = 2  # earlier prompts of the session searched too (`_prompt_query`)
FOLLOW_UP_HITS = 2  # memories the earlier prompts add at most: the prompt's own come first
QUERY_TURN_CHARS = 300  # of one prompt's own words
QUERY_CHARS = 600  # of the earlier prompts' query


# The client for the payload's folder (`watch.client.connect`: the daemon while one answers, else the facade
# in this process), made on first need: an empty prompt or a session that never ran opens nothing.
Connect = Callable[[Path | None], "MemoryClient"]
BUDGET_SETTING = "hooks.context_budget"
CAPTURE_STATUS_SETTING = "hooks.capture_status"


class _OnDemand:
    """`connect(cwd)` once, on the first call; closed by `close`."""

    def __init__(self, connect: Connect, cwd: Path | None) -> None:
        self._connect = connect
        self._cwd = cwd
        self._client: MemoryClient | None = None

    def __call__(self) -> MemoryClient:
        if self._client is None:
            self._client = self._connect(self._cwd)
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


GetClient = Callable[[], "MemoryClient"]


def run_hook(
    kind: HookKind,
    stdin_text: str,
    connect: Connect,
    *,
    client: Client = Client.CLAUDE,
    home: Path | None = None,
) -> str:
    """What the hook prints for this payload; "" on any error (logged), never an exception."""
    memory: _OnDemand | None = None
    try:
        event = parse_event(kind, stdin_text)
        memory = _OnDemand(connect, event.cwd)
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


def _session_start(event: HookEvent, memory: GetClient, client: Client, state_dir: Path) -> tuple[str, str]:
    if event.cwd is not None:
        _close_idle(event.cwd, event.session_id, memory, state_dir)
        _remember_start(event, client, state_dir)
    return _session_context(memory, state_dir, _refused_config(event, client))


def _refused_config(event: HookEvent, client: Client) -> str:
    """The keys the project's config may not set (ignored), named once per session (config/guest.py)."""
    from aimate_memory.config.guest import warning_once
    from aimate_memory.errors import AimateError
    from aimate_memory.vault.roots import detect_roots

    session = conversation_of(client, event) or f"{client.value}:unknown"
    try:
        roots = detect_roots(cwd=event.cwd)
        return warning_once(roots.home, roots.project, session)
    except (AimateError, OSError):  # the line must never cost the session its context
        return ""


def _remember_start(event: HookEvent, client: Client, state_dir: Path) -> None:
    """Where this session's transcript is, so a later session start can close it if its client dies."""
    if event.transcript_path is None or event.session_id == "unknown":
        return
    with session_mark(state_dir, event.session_id, _now()) as mark:
        mark.transcript, mark.cwd, mark.client = str(event.transcript_path), str(event.cwd), client.value


def _close_idle(cwd: Path, current: str, memory: GetClient, state_dir: Path) -> None:
    """End the sessions of this project whose client died (no SessionEnd, transcript quiet for
    `session.idle_timeout_minutes`): their last turns saved, then ended — distilled, with an episode — as
    SessionEnd would have (docs/design.md "Episodes"). At most IDLE_CLOSED_PER_START, oldest first."""
    from aimate_memory.config.defaults import DEFAULTS  # the hook has no config of its own; the default

    idle_seconds = float(DEFAULTS["session"]["idle_timeout_minutes"]) * 60
    for idle in idle_sessions(state_dir, cwd, current, idle_seconds, time.time())[:IDLE_CLOSED_PER_START]:
        client = Client(idle.client) if idle.client in {c.value for c in Client} else Client.CLAUDE
        dead = HookEvent(HookKind.SESSION_END, "SessionEnd", idle.session_id, cwd, idle.transcript, None, None)
        _session_end(dead, memory, client, state_dir)


def _prompt(event: HookEvent, memory: GetClient, client: Client, state_dir: Path) -> str:
    prompt = (event.prompt or "").strip()
    if not prompt:
        return ""
    parts = []
    thread = conversation_of(client, event)
    if client is Client.KIMI:
        parts.append(_kimi_first_prompt(event, memory, state_dir))
        memory().add_conversation("user", prompt, session=thread)
    parts.append(_relevant(memory, *_prompt_query(event, prompt, state_dir)))
    parts.extend(_capture(memory, text, thread) for text in extract_remembered(prompt))
    parts.append(_picked(event, memory, client, prompt, thread))
    if thread is not None:
        try:
            _hear(thread, prompt, state_dir)
        except Exception:  # noting evidence must never cost the prompt its context
            _log_failure(state_dir, HookKind.PROMPT, client, prompt)
    return "\n\n".join(part for part in parts if part)


def _picked(event: HookEvent, memory: GetClient, client: Client, prompt: str, thread: str | None) -> str:
    """An option picked in this prompt, captured in this turn as the decision it makes (integrations/picked.py),
    pending like any capture; the assistant is told, as for a `remember:`."""
    from aimate_memory.integrations.picked import picked_decision

    decision = picked_decision(prompt, event.transcript_path, TRANSCRIPTS.get(client, CLAUDE))
    return _capture(memory, decision, thread, kind="decision") if decision else ""


def _hear(thread: str, prompt: str, state_dir: Path) -> None:
    """Capture as it is said, at no token cost and without a model (docs/design.md, "Capture from a
    conversation"): the statements of the person's own words in this prompt (`capture/heard.py`, cue tables)
    are noted for the session (`capture/ledger.py`, hashes in the state folder). The session's end files
    them; one heard in another session too is proposed first there."""
    from aimate_memory.capture.heard import heard  # cue tables only: no model, no numpy
    from aimate_memory.capture.ledger import HeardLedger

    statements = heard(0, prompt)
    if statements:
        HeardLedger(state_dir).note(thread, (statement.key for statement in statements))


def _prompt_query(event: HookEvent, prompt: str, state_dir: Path) -> tuple[str, str]:
    """What the prompt hook searches with (docs/design.md, "Capture from a conversation"): the person's own
    words of this prompt (a pasted log or code block left out: it is shown, not asked about), and those of
    the session's last prompts, so a follow-up ("and the other one?") finds what the turns before it found.
    Two queries, not one: the earlier turns' words appended to a short prompt's drown it."""
    words = typed_text(prompt, QUERY_TURN_CHARS)
    if event.session_id == "unknown":
        return words, ""
    with session_mark(state_dir, event.session_id, _now()) as mark:
        earlier = [turn for turn in mark.recent if isinstance(turn, str)][-QUERY_TURNS:]
        mark.recent = [*earlier, words][-QUERY_TURNS:]
    return words, " ".join(reversed(earlier))[:QUERY_CHARS]


def _session_end(event: HookEvent, memory: GetClient, client: Client, state_dir: Path) -> str:
    """The transcript's new turns into the session kept under the client's session id; SessionEnd then
    ends that session if it ran. No session id: whose session it was cannot be known, so nothing ends."""
    session = conversation_of(client, event)
    if session is None or _never_ran(event, state_dir):
        return ""
    if event.transcript_path is not None and event.transcript_path.is_file():
        with session_mark(state_dir, event.session_id, _now()) as mark:
            read = read_new(event.transcript_path, mark.offset, TRANSCRIPTS.get(client, CLAUDE))
            mark.offset = read.offset
            mark.started = mark.started or read.started or ""
            for turn in read.turns:
                memory().add_conversation(turn.role, turn.content, session=session)
            if read.edited or (read.turns and mark.started):  # what the session's episode needs
                from aimate_memory.sessions.episode import activity_turn  # the sessions package: only when needed

                edited = [_shown_path(path, event.cwd) for path in read.edited]
                memory().add_conversation("tool", activity_turn(mark.started or None, edited), session=session)
    if event.ends_session:
        memory().end_session(session=session)
        with session_mark(state_dir, event.session_id, _now()) as mark:
            mark.ended = True
    return ""


# How each client's transcript is read: Claude Code's records, Codex's rollout (Kimi sends no transcript).
TRANSCRIPTS: dict[Client, TranscriptFormat] = {Client.CLAUDE: CLAUDE, Client.CODEX: CODEX}


def _shown_path(path: str, cwd: Path | None) -> str:
    """A file the assistant edited, relative to the project when inside it (as git names it)."""
    if cwd is not None and Path(path).is_absolute():
        try:
            return Path(path).relative_to(cwd).as_posix()
        except ValueError:
            return path
    return path


def _never_ran(event: HookEvent, state_dir: Path) -> bool:
    """An invocation that held no conversation — `claude mcp list` sends SessionEnd with a transcript that
    does not exist — and that no hook saw before: nothing to save or end, so no vault is opened for it
    (that cost ~2 s at load 16; a hook must stay cheap)."""
    transcript = event.transcript_path
    return transcript is not None and not transcript.exists() and not known_session(state_dir, event.session_id)


# A handler's reply: the context for the model, or (context, notice for the person).
HANDLERS: dict[HookKind, Callable[[HookEvent, GetClient, Client, Path], str | tuple[str, str]]] = {
    HookKind.SESSION_START: _session_start,
    HookKind.PROMPT: _prompt,
    HookKind.SESSION_END: _session_end,
}


def _session_context(memory: GetClient, state_dir: Path | None = None, refused_config: str = "") -> tuple[str, str]:
    """The session context for the model and a notice for the person: the context's warnings (core
    memories left out, named; session usage; captures waiting for review; the project config's keys that
    were ignored). The notice is in the model's context too, so the assistant knows what it was not given.
    The whole of what the client receives — preface, memories, stale lines, notice — is held to
    `hooks.context_budget` by `prompt_tokens`, and to Claude Code's characters (docs/agents.md, "The hooks")."""
    from aimate_memory.text.estimate import prompt_tokens

    extra = [*_sync_failure(state_dir), *filter(None, [refused_config])]
    context = memory().build_context(budget_setting=BUDGET_SETTING)
    budget = context.budget  # the person's setting: what the whole reply may cost
    for _ in range(BUDGET_TRIES):
        over = prompt_tokens(_start_reply(context, extra)) - budget
        if (len(context.text) <= MAX_CONTEXT_CHARS and over <= 0) or context.budget <= 1:
            break
        by_chars = context.budget * MAX_CONTEXT_CHARS * 9 // (max(1, len(context.text)) * 10)
        # What the sections used (a reply that does not say: the budget), less what the whole reply went over.
        by_tokens = min(context.budget, context.total_tokens or context.budget) - max(0, over)
        context = memory().build_context(budget=max(1, min(by_chars, by_tokens)))
    return _start_reply(context, extra), _notice([*context.warning_messages, *extra])


def _start_reply(context: ContextRecord, extra: list[str]) -> str:
    """What a session start hands the model: the preface and the context, then what it was not given."""
    from aimate_memory.context.build import PROPOSALS_KIND

    # The pending captures' titles are for the person (their review), not the model: not memory yet.
    told = [str(w.get("message")) for w in context.warnings if w.get("kind") != PROPOSALS_KIND] + extra
    text = context.text.strip()
    return "\n\n".join(part for part in (f"{CONTEXT_PREFACE}\n\n{text}" if text else "", _notice(told)) if part)


def _notice(messages: list[str]) -> str:
    return f"{NOTICE_PREFACE} " + " ".join(messages) if messages else ""


def _sync_failure(state_dir: Path | None) -> list[str]:
    """The last sync of the global vault failed (`state/sync.json`): the person hears it at the next session
    start (docs/agents.md, "Sync that runs itself") rather than finding out on the other machine."""
    from aimate_memory.git.sync_record import read_record

    record = read_record(state_dir) if state_dir is not None else None
    return [record.notice()] if record is not None and not record.ok else []


def _kimi_first_prompt(event: HookEvent, memory: GetClient, state_dir: Path) -> str:
    with session_mark(state_dir, event.session_id, _now()) as mark:
        if mark.primed:
            return ""
        mark.primed = True
    return _session_context(memory, state_dir, _refused_config(event, Client.KIMI))[0]


def _relevant(memory: GetClient, words: str, earlier: str) -> str:
    """Curated memories first (every layer, both vaults): those the prompt's own words find, then a few
    found with the session's previous prompts (a follow-up). A past session comes back through its episode
    (docs/design.md "Episodes"): one, labelled, beside fewer than FEW_HITS memories; up to PROMPT_SESSIONS
    when no memory answers — a session with no episode (an older one) as its matching chunk, under a heading
    that says it is a conversation, not a memory: its words may be the assistant's."""
    from aimate_memory.vault.filters import MemoryFilter
    from aimate_memory.vault.layout import Layer

    memories = MemoryFilter(layers=(Layer.CORE, Layer.LONG_TERM, Layer.SHORT_TERM))
    # A capture waiting for review is not memory: the assistant is never handed it as such (docs/design.md
    # "Pending is not memory").
    hits = [hit for hit in memory().search(words, PROMPT_TOP_K, where=memories).hits if hit.reviewed]
    if earlier and len(hits) < PROMPT_TOP_K:
        shown = {hit.id for hit in hits}
        found = memory().search(earlier, PROMPT_TOP_K, where=memories).hits
        more = [hit for hit in found if hit.id not in shown and hit.reviewed]
        hits += more[: min(FOLLOW_UP_HITS, PROMPT_TOP_K - len(hits))]
    answered = "\n".join([RELEVANT_PREFACE, *map(_hit_line, hits)]) if hits else ""
    if len(hits) >= FEW_HITS:
        return answered
    past = memory().search(words, PROMPT_SESSIONS, where=MemoryFilter(layers=(Layer.SESSION,))).hits
    if hits:  # memories answered, a few: one past session besides, and only through its episode
        episodes = [hit for hit in past if hit.episode][:1]
        return "\n\n".join([answered, *(f"{EPISODE_PREFACE}\n{_episode_line(hit)}" for hit in episodes)])
    if not past:
        return ""
    preface = EPISODES_PREFACE if all(hit.episode for hit in past) else PAST_SESSION_PREFACE
    return "\n".join([preface, *(_episode_line(hit) if hit.episode else _hit_line(hit) for hit in past)])


def _episode_line(hit: HitRecord) -> str:
    """A past session as its episode: its title and date, then what was asked, decided and left open."""
    said = " · ".join(" ".join(line.split()) for line in hit.episode)
    said = said if len(said) <= EPISODE_CHARS else said[: EPISODE_CHARS - 1] + "…"
    return f"- {hit.title} ({hit.updated_at[:10]}) [session {hit.id[:8]}]: {said}"


def _hit_line(hit: HitRecord) -> str:
    snippet = " ".join(hit.snippet.split())[:SNIPPET_CHARS]
    line = f"- {hit.title} [{hit.layer} {hit.id[:8]}]" + (f": {snippet}" if snippet else "")
    # A fact, like the context's heading (docs/anchors.md): what changed in the code the memory cites.
    return line + (f" (possibly stale: {hit.stale.describe()})" if hit.stale is not None else "")


def _capture(memory: GetClient, text: str, thread: str | None, kind: str | None = None) -> str:
    """What the assistant is told, so it can tell the person: queued for review, saved, or why not."""
    # Pending unless the person configured `hooks.capture_status: active` (read for the payload's vaults, by
    # the daemon or here). Forced: the person asked in so many words, so what capture would drop as small
    # talk is kept (and reviewed).
    # A picked option (`kind` decision) is the session's capture, not a `remember:`: pending whatever the setting.
    from aimate_memory.errors import AimateError

    try:
        result = memory().remember(
            text,
            source="session" if kind else "hook",
            thread=thread,
            status="pending" if kind else None,
            status_setting=CAPTURE_STATUS_SETTING,
            force=True,
            kind=kind,
        )
    except AimateError as refused:  # e.g. a pasted document is not a rule (capture.max_chars, issue 38)
        # Said like any capture that was not saved, with its hint, so the assistant can tell the person what to
        # do; the prompt keeps its relevant memories. An AimateError: the daemon's refusal arrives as one. The
        # text is not echoed whole: its length is what was refused.
        shown = text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"
        hint = f"; {refused.hint}" if refused.hint else ""
        return f"AIMate memory not saved ({refused.message}{hint}): {shown}"
    action, memory_id = result.action, result.memory_id[:8]
    waiting = action == "exists" and (result.memory or {}).get("status") == "pending"
    said = (
        CAPTURE_LINES["pending"] if waiting else CAPTURE_LINES.get(action) or f"not saved ({result.reason or action})"
    )
    line = f"AIMate memory {said}{f' [{memory_id}]' if memory_id else ''}: {text}"
    # A conflict is said as a fact with both sides, so the assistant can tell the person which one it is.
    return "\n".join([line, *(f'- it may contradict [{c.id[:8]}] "{c.title}" ({c.reason})' for c in result.conflicts)])


CAPTURE_LINES = {
    "pending": "queued for review (kept only once the person accepts it in `aimate mem review`)",
    "conflict": "queued for review, as it may contradict an active memory (`aimate mem review` keeps one or both)",
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
