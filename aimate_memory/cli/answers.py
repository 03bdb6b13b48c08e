"""How the commands a daemon answers print their answer — list, show, stale, review, timeline, context,
remember, search — and what `add` and the `session` commands wrote or read, given the view's JSON object or
the client's record: one renderer, used by the typer commands and by the fast path (`cli.fast`) alike, so the
two print the same bytes (tests/cli/test_fastpath.py). Only `cli.plain` for output: no typer, no rich."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from aimate_memory.cli.plain import (
    MEMORY_COLUMNS,
    memory_rows,
    print_json,
    print_table,
    print_warning,
    say,
    style,
)
from aimate_memory.system.records import (
    SCORE_PARTS,
    CaptureRecord,
    ContextRecord,
    HitRecord,
    LinkedMemory,
    MemoryDetailsRecord,
    SearchRecord,
    TimelineEvent,
    TimelineRecord,
)
from aimate_memory.wording import plural

if TYPE_CHECKING:
    from aimate_memory.sessions import SessionInfo
    from aimate_memory.sessions.store import AppendResult
    from aimate_memory.system.records import ConflictRecord
    from aimate_memory.vault.model import Memory

NOTHING_TO_REVIEW = "nothing to review: every memory change is committed"


def accept_or_reject(item_id: str, others: Sequence[str]) -> str:
    """What accepting a capture that may contradict `others` (ids) retires, said before the person accepts:
    all of them unless they name the ones it replaces (`--replace ID`) or keep both."""
    short, retired = item_id[:8], ", ".join(other[:8] for other in others)
    line = f"accept {short} retires {retired} (superseded)"
    if len(others) > 1:
        line += f"; only one: --accept {short} --replace ID"
    return f"{line}; --keep-both retires none; reject keeps {'them' if len(others) > 1 else 'it'}"


# -- list, show, stale -------------------------------------------------------------------------------


def print_list(listed: dict[str, Any], as_json: bool) -> None:
    """The `list` view: a table and its count, or the memories as JSON."""
    memories = listed["memories"]
    if listed.get("broken"):  # stderr: --json stays parseable
        print_warning(listed["broken"])
    if as_json:
        print_json(memories)
        return
    print_table(MEMORY_COLUMNS, memory_rows(memories), cuttable=("title", "tags"))
    total = int(listed["total"])
    shown = f"{len(memories)} of {plural(total, 'memory', 'memories')}" if total > len(memories) else None
    if shown and listed.get("paged"):
        shown += ", the newest (`-n N` or `--all` for more)"
    say(style("dim", shown or plural(total, "memory", "memories")))


def list_paged(limit: int | None, show_all: bool, as_json: bool) -> bool:
    """Whether `list` asks for one page (`cli.list_page`): a table with no `-n` or `--all`; JSON is never cut,
    so a script reading it never gets a part of the list without being told."""
    return limit is None and not show_all and not as_json


def print_show(shown: dict[str, Any], as_json: bool, details: bool) -> None:
    """The `show` view: the file exactly as written under a few `#` lines, its details, or JSON."""
    if details:
        print_details(MemoryDetailsRecord.from_dict(shown["details"]), as_json)
        return
    memory = shown["memory"]
    if as_json:
        print_json(memory)
        return
    say(style("dim", f"# {shown['location']}"))
    if shown["stale_text"]:
        verify = f"`aimate mem verify {str(memory['id'])[:8]}`"
        say(style("yellow", f"# possibly stale: {shown['stale_text']} ({verify})"))
    for key, label in (("supersedes", "supersedes"), ("superseded_by", "superseded by")):
        if shown.get(key):
            say(style("dim", f"# {label} {shown[key]}"))
    sys.stdout.flush()
    sys.stdout.write(shown["text"])


def print_details(record: MemoryDetailsRecord, as_json: bool) -> None:
    if as_json:
        print_json(record.to_dict())
        return
    memory = record.memory
    where = f"{str(memory['id'])[:8]} {record.location}"
    say(f"{style('bold', str(memory['title']))}  {style('dim', where)}")
    fields = ("layer", "category", "status", "importance", "tags", "source", "thread", "created_at", "updated_at")
    for key in fields:
        value = memory.get(key)
        if value not in (None, "", []):
            shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
            say(f"  {key}: {shown}")
    say()
    say(str(memory.get("body") or "").rstrip())
    sections = (
        ("supersedes", record.supersedes),
        ("superseded by", record.superseded_by),
        ("before it in its thread", record.thread_before),
        ("after it in its thread", record.thread_after),
        ("related", record.related),
    )
    for heading, links in sections:
        if links:
            say(f"\n{style('bold', heading)}")
            for link in links:
                say(f"  {_link_line(link)}")
    for key, raw in (("anchors", record.anchors), ("stale", record.stale)):
        if raw is not None:
            say(f"\n{style('bold', key)}\n  {json.dumps(raw, ensure_ascii=False)}")
    say(f"\n{style('bold', 'history')}")
    if not record.history:
        say(f"  {style('dim', record.history_note or 'no commits yet')}")
    for entry in record.history:
        moved = f"{entry['old_path']} → " if entry.get("old_path") else ""
        say(
            f"  {str(entry['commit'])[:8]}  {str(entry['date'])[:16].replace('T', ' ')}  {entry['action']:<6} "
            f"{entry['subject']} {style('dim', moved + str(entry['path']))}"
        )


def _link_line(link: LinkedMemory) -> str:
    if link.missing:
        return f"{link.ref} {style('yellow', '(not found)')}"
    where = f"{(link.id or '')[:8]} {link.scope}:{link.layer} {link.status}"
    return f"{link.title or ''} {style('dim', where)}"


def print_stale_view(answer: dict[str, Any], as_json: bool) -> None:
    """The `stale` view: the project memories whose cited code changed, each with what changed."""
    found = answer["memories"]
    if not answer["project"] and not as_json:
        say("not inside a project: only project memories are anchored to code")
        return
    if as_json:
        print_json([{key: value for key, value in memory.items() if key != "stale_text"} for memory in found])
        return
    for memory in found:
        say(f"{style('bold', str(memory['id'])[:8])}  {memory['title']}  {style('dim', 'project:' + memory['path'])}")
        say(f"   {style('yellow', memory['stale_text'])}")
    if found:
        count = plural(len(found), "memory", "memories")
        say(style("dim", f"{count} possibly stale; `aimate mem verify ID` after checking one"))
    else:
        say("no memory is stale: the files they cite are as they were when verified")


# -- review ------------------------------------------------------------------------------------------


def print_review_list(listed: dict[str, Any], as_json: bool) -> None:
    """The `review` view without a decision: the pending changes, then the possibly stale memories."""
    if as_json:
        print_json(listed["items"])
        return
    items = listed["items"]
    if not items:
        say(NOTHING_TO_REVIEW)
    for item in items:
        print_review_item(item)
    if items:
        say(
            style(
                "dim",
                f"{plural(len(items), 'change')}: accept with `aimate mem review --accept ID` (or --accept-all), "
                "reject with --reject ID; run in a terminal to review one by one",
            )
        )
    print_possibly_stale(listed["stale"])


def print_outcomes(outcomes: list[dict[str, Any]]) -> None:
    """`ReviewOutcome.to_dict()`s, as a person reads them: one write, not one a line — 20,000 accepted files
    printed line by line took longer than committing them."""
    lines = []
    for outcome in outcomes:
        scope, detail = f"[{outcome['scope']}]", outcome["detail"]
        if outcome["action"] == "skipped":
            lines.append(f"{style('yellow', 'skipped')} {scope} {outcome['path']}: {detail}")
        elif outcome["action"] == "reject":
            lines.append(f"rejected {scope} {detail}")
        else:
            to = f" → {outcome['commit'][:8]}" if outcome["commit"] else ""
            lines.append(f"accepted {scope} {detail}{to}")
    if lines:
        say("\n".join(lines))


def print_possibly_stale(stale: list[dict[str, Any]]) -> None:
    """The project memories whose cited code changed since they were verified: also for a person to look
    at (`aimate mem stale` lists them alone, docs/anchors.md)."""
    if not stale:
        return
    say(f"{plural(len(stale), 'memory', 'memories')} possibly stale (the code they cite changed):")
    for memory in stale:
        say(f"{style('bold', str(memory['id'])[:8])} {memory['title']}: {style('yellow', memory['stale_text'])}")
    say(style("dim", "check each; `aimate mem verify ID` when it still holds, `aimate mem edit ID` when not"))


# What a change is, in a person's words: a pending capture is a memory nobody has accepted yet.
_KIND = {
    "added": "new",
    "modified": "edited",
    "deleted": "deleted",
    "renamed": "moved",
    "conflict": "conflict",
    "team": "team change, not trusted yet",
}


def review_kind(item: dict[str, Any]) -> str:
    if item["parse_error"] is not None:
        return "broken file"
    if item["memory_status"] == "pending" and item["status"] in ("added", "modified", "renamed"):
        return "pending capture"
    return _KIND.get(str(item["status"]), str(item["status"]))


def print_review_item(item: dict[str, Any]) -> None:
    """One change (`ReviewItem.to_dict()`) as a memory: id, scope, what kind of change, title; the fields that
    changed and the body as a short diff (`aimate mem diff ID` shows the whole file)."""
    memory_id = (item["id"] or "")[:8] or "-" * 8
    title = item["title"] or item["path"]
    say(f"{style('bold', memory_id)} [{item['scope']}] {review_kind(item)}: {style('bold', title)}")
    where = item["path"] if item["old_path"] is None else f"{item['old_path']} → {item['path']}"
    say(f"    {style('dim', where)}")
    for key, change in item["fields"].items():
        say(f"    {key}: {_shown(change['before'])} → {_shown(change['after'])}")
    for line in item["body_diff"].splitlines():
        diff_style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
        say(f"    {style(diff_style, line)}")
    for conflict in item["conflicts"]:
        say(
            f"    {style('yellow', 'may contradict')} {style('bold', conflict['id'][:8])} [{conflict['scope']}] "
            f"{conflict['layer']}/{conflict['category']}: {style('bold', conflict['title'])}"
        )
    if item["conflicts"]:
        say(f"    {style('dim', accept_or_reject(item['id'] or '', [other['id'] for other in item['conflicts']]))}")
    if _note(item):
        say(f"    {style('yellow', _note(item))}")


def _shown(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, list):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def _note(item: dict[str, Any]) -> str:
    if item["parse_error"] is not None:
        return f"does not parse ({item['parse_error']}): fix it (`aimate mem edit`), then accept it"
    if not item["secrets"]:
        return ""
    first = item["secrets"][0]
    where = f"line {first['line']}" if first["line"] else "the file name"
    return f"secret? {where}: {first['kind']}: {first['excerpt']}"


# -- timeline ----------------------------------------------------------------------------------------


def print_timeline(record: TimelineRecord, by: str, since: str | None, limit: int, as_json: bool) -> None:
    """The `timeline` view grouped `by` day or session."""
    if as_json:
        print_json(record.to_dict())
        return
    for warning in record.warnings:
        print_warning(warning)
    if not record.events:
        say("nothing happened" + (f" since {since}" if since else ""))
        return
    groups: dict[str | None, tuple[TimelineEvent, ...]] = {}
    groups.update(record.by_day() if by == "day" else record.by_session())
    for name, events in groups.items():
        heading = name if by == "day" else (f"session {name}" if name else "outside any session")
        say(style("bold", heading or ""))
        for event in events:
            say(timeline_line(event, show_day=by != "day"))
    if record.truncated:
        say(style("dim", f"… older events left out; raise --limit (now {limit})"))


def timeline_line(event: TimelineEvent, show_day: bool) -> str:
    when = event.when[:16].replace("T", " ") if show_day else event.when[11:16]
    where = f"{event.scope}:{event.layer}"
    mark = f" {style('yellow', '(pending review)')}" if event.pending else ""
    session = f" {style('dim', 'session ' + event.session[:12])}" if event.session and not show_day else ""
    return f"  {when}  {event.kind:<10} {event.title} {style('dim', event.memory_id[:8] + ' ' + where)}{session}{mark}"


# -- context, remember -------------------------------------------------------------------------------


def print_context(built: ContextRecord, as_json: bool) -> None:
    """The context as Markdown (its warnings on stderr), or its record as JSON."""
    if as_json:
        print_json(built.to_dict())
        return
    sys.stdout.write(built.text)
    for message in built.warning_messages:
        print_warning(message)


def print_capture(result: CaptureRecord, as_json: bool) -> None:
    """What `remember` did, in one line (or two with conflicts), or as JSON."""
    if as_json:
        print_json(result.to_dict())
    else:
        say(result.line())


# -- search ------------------------------------------------------------------------------------------

# A capture waiting for review is shown only marked as such (docs/design.md "Pending is not memory"); how
# `--explain` names the factors: the evidence, the relevance made of it, then the weights that multiply it.
PENDING_MARK = "pending review, not yet a memory"
_EVIDENCE = (("similarity", "cosine"), ("vector", "vector"), ("keyword", "keyword"))
_WEIGHTS = (("recency", "recency"), ("importance", "importance"), ("access", "use"))


def print_search(found: SearchRecord, as_json: bool, explain: bool, started: float) -> None:
    """A search's hits best first, each with its snippet (the matched words highlighted) and what else it is,
    then how many, how it searched and how long the command waited since `started` (`time.monotonic()`)."""
    for warning in found.warnings:
        print_warning(warning)
    if as_json:
        print_json([hit.to_dict(explain) for hit in found.hits])
        return
    if not found.hits:
        # why: below the relevance floor nothing is an answer (retrieval/relevance.py); exit 0
        say("no memory about that")
        return
    for rank, hit in enumerate(found.hits, 1):
        say("\n".join(_hit_lines(rank, hit, explain)))
    say(style("dim", f"{plural(len(found.hits), 'result')}, {found.mode}, {took(started, found.elapsed_ms)}"))


def _hit_lines(rank: int, hit: HitRecord, explain: bool) -> list[str]:
    head = f"{rank}. {hit.title}"
    about = f"{hit.id[:8]} {hit.location}  {hit.layer}  score {hit.score:.3f}"
    pending = "" if hit.reviewed else "  " + style("yellow", PENDING_MARK)
    lines = [f"{style('bold', head)}  {style('dim', about)}{pending}"]
    if hit.snippet:
        lines.append("   " + highlighted(hit.snippet, hit.highlights))
    if hit.stale is not None:
        lines.append("   " + style("yellow", f"possibly stale: {hit.stale.describe()}"))
    if hit.context_of:
        lines.append("   " + style("dim", f"next to {hit.context_of[:8]} in their conversation"))
    if explain and not hit.context_of:  # a neighbour shown as context: the score of the result it follows
        lines.append("   " + style("dim", explanation(dict(hit.factors))))
    return lines


def took(started: float, search_ms: float) -> str:
    """The command's whole wait, and the search's own part of it when the rest was most of it (a model
    loaded, the index refreshed): never the search's milliseconds alone after seconds of loading (issue 38)."""
    waited_ms = (time.monotonic() - started) * 1000
    if waited_ms > 2 * search_ms + 200:
        return f"{waited_ms:.0f} ms in all (the search itself {search_ms:.0f} ms)"
    return f"{waited_ms:.0f} ms"


def explanation(factors: dict[str, float]) -> str:
    """The evidence and the relevance the floor reads, then the parts that add up to the shown score."""
    evidence = "  ".join(f"{label} {factors[key]:.3f}" for key, label in _EVIDENCE if key in factors)
    weights = " × ".join(f"{label} {factors[key]:.3f}" for key, label in _WEIGHTS if key in factors)
    relevance = f"relevance {factors.get('relevance', 0.0):.3f}"
    parts = " + ".join(f"{label} {factors[key]:.3f}" for key, label in SCORE_PARTS if key in factors)
    age = f"{factors.get('days', 0.0):.0f} days old"
    return f"{evidence}  →  {relevance};  score {parts} = {factors.get('final', 0.0):.3f}  (each × {weights}; {age})"


def highlighted(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    """`text` with each span (start, end) in bold yellow."""
    out, last = [], 0
    for start, end in spans:
        out.append(text[last:start])
        out.append(style("bold yellow", text[start:end]))
        last = end
    out.append(text[last:])
    return "".join(out)


# -- add ---------------------------------------------------------------------------------------------


def print_added(memory: Memory, conflicts: list[ConflictRecord], as_json: bool) -> None:
    """What `add` wrote, and each active memory it may contradict (a warning naming both ways to keep one)."""
    if as_json:
        print_json({**memory.public_dict(), "conflicts": [conflict.to_dict() for conflict in conflicts]})
        return
    say(f"added {memory.id[:8]}  {memory.scope.value}:{memory.rel_path.as_posix()}")
    for conflict in conflicts:
        print_warning(
            f'{memory.id[:8]} may contradict {conflict.id[:8]} "{conflict.title}" ({conflict.reason}); keep one: '
            f"`aimate mem set {conflict.id[:8]} status=superseded` or `aimate mem rm {memory.id[:8]}`"
        )


# -- session -----------------------------------------------------------------------------------------


def print_session_started(info: SessionInfo, as_json: bool) -> None:
    if as_json:
        print_json(info.to_dict())
    else:
        say(f"started session {info.id[:8]}: {info.title}")


def print_appended(result: AppendResult, as_json: bool) -> None:
    """The turn `session append` added: its number, the window's tokens and use, a summary when it trimmed."""
    if as_json:
        print_json(result.to_dict())
        return
    data = result.to_dict()
    line = f"turn {data['turns']}: window {data['window_tokens']} tokens ({data['usage']:.0%})"
    if data["summary_id"]:
        line += f"; trimmed, summary {str(data['summary_id'])[:8]}"
    say(line)
    for warning in result.warnings:
        print_warning(warning)


def print_sessions_shown(shown: Sequence[SessionInfo], as_json: bool) -> None:
    """Each session with every turn, the window's turns unmarked and the trimmed ones marked "-"; --json: the
    session, a list when several are running."""
    if as_json:
        print_json(shown[0].to_dict() if len(shown) == 1 else [info.to_dict() for info in shown])
        return
    for info in shown:
        data = info.to_dict()
        head = f"{info.id[:8]} {info.title} ({info.status}"
        head += f", {info.key}): " if info.key else "): "
        say(f"{head}{len(info.turns)} turns, window {data['window_tokens']} tokens")
        window = set(info.window)
        for index, turn in enumerate(info.turns):
            mark = " " if index in window else "-"
            say(f"{mark}{index + 1:>4} {turn.role:<9} {turn.text}")


def print_session_ended(info: SessionInfo | None, as_json: bool) -> None:
    if as_json:
        print_json(info.to_dict() if info is not None else None)
    elif info is None:
        say("no active session")
    else:
        say(f"ended session {info.id[:8]}: {info.title} → {info.path}")


def print_session_list(sessions: Sequence[SessionInfo], as_json: bool) -> None:
    """The vault's sessions, the active one first, then past ones newest first."""
    if as_json:
        print_json([_session_summary(info) for info in sessions])
        return
    for info in sessions:
        started = info.started_at.strftime("%Y-%m-%d %H:%M")
        line = f"{info.id[:8]}  {info.status:<7} {started}  {len(info.turns):>4} turns  {info.title}"
        say(line + (f"  ({info.key})" if info.key else ""))
    say(style("dim", f"{len(sessions)} session(s)"))


def _session_summary(info: SessionInfo) -> dict[str, object]:
    data = info.to_dict()
    return {key: data[key] for key in ("id", "title", "status", "key", "started_at", "path", "tokens", "usage")} | {
        "turns": len(data["turns"])
    }
