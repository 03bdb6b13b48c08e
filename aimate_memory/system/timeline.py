"""The timeline's events (docs/usage.md, "Timeline"): what each change to a memory file was — a capture, an
addition, an edit, a lifecycle move, a removal — decided from the file before and after it, the same way for
a commit, an uncommitted change and a vault outside git. `GitActions.timeline` gathers the changes; this
module only names them."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path, PurePosixPath

from aimate_memory.errors import MemoryFileError
from aimate_memory.system.records import TimelineEvent
from aimate_memory.vault.codec import parse_document
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.model import Memory, memory_from_document, to_datetime

# Who adds a memory on the person's behalf (the `source` the writer puts in the frontmatter): an addition
# by one of them is a capture. `cli` (the person typing), `import` and `promotion` are not.
CAPTURE_SOURCES = frozenset({"hook", "mcp", "session", "session_trim"})

# A status a change sets → the event it is (lifecycle/planner.py, capture/supersede.py, `remove`).
STATUS_EVENTS = {"expired": "expired", "archived": "archived", "superseded": "superseded"}


def change_kind(status: str, before: Memory | None, after: Memory | None) -> str:
    """What one change to one memory file was. status: A (added) | M (modified) | R (moved) | D (deleted)."""
    if status == "D" or after is None:
        return "removed"
    if status == "A" or before is None:
        return "capture" if after.source in CAPTURE_SOURCES else "add"
    if before.layer is Layer.SHORT_TERM and after.layer is Layer.LONG_TERM:
        return "promoted"
    if after.status != before.status and after.status in STATUS_EVENTS:
        return STATUS_EVENTS[after.status]
    if after.archived and not before.archived:  # e.g. a superseded memory archived after its grace period
        return "archived"
    if before.status == "pending" and after.status == "active":
        return "accepted"
    return "moved" if status == "R" else "edit"


def read_memory(text: str | None, rel_path: PurePosixPath, scope: Scope, when: datetime) -> Memory | None:
    """The memory a file's text holds (None: no text, or not a memory the codec can read)."""
    if text is None:
        return None
    try:
        doc = parse_document(text, Path(rel_path.as_posix()), read_only=True)
    except MemoryFileError:
        return None
    return memory_from_document(doc, rel_path, scope, when)


def event(
    kind: str,
    memory: Memory,
    when: str,
    *,
    commit: str | None = None,
    subject: str = "",
    old_path: PurePosixPath | None = None,
    pending: bool = False,
    path: PurePosixPath | None = None,
) -> TimelineEvent:
    """The event `kind` about `memory` (its state after the change; before it for a removal)."""
    session = memory.doc.get("session") if memory.doc is not None else None
    return TimelineEvent(
        when=when,
        day=when[:10],
        kind=kind,
        memory_id=memory.id,
        title=memory.title,
        layer=memory.layer.value,
        scope=memory.scope.value,
        session=str(session) if session else memory.thread,
        commit=commit,
        path=(path or memory.rel_path).as_posix(),
        old_path=old_path.as_posix() if old_path is not None else None,
        source=memory.source,
        subject=subject,
        pending=pending,
    )


def change_event(
    status: str,
    path: PurePosixPath,
    old_path: PurePosixPath | None,
    before: str | None,
    after: str | None,
    scope: Scope,
    when: str,
    *,
    commit: str | None = None,
    subject: str = "",
    pending: bool = False,
) -> TimelineEvent | None:
    """The event one change to one file makes, from its text before and after (None: neither side is a
    memory the codec can read)."""
    moment = to_datetime(when) or datetime.now().astimezone()
    old = read_memory(before, old_path or path, scope, moment)
    new = read_memory(after, path, scope, moment)
    shown = new or old
    if shown is None:
        return None
    kind = change_kind(status, old, new)
    return event(kind, shown, when, commit=commit, subject=subject, old_path=old_path, pending=pending, path=path)


def file_events(memories: Iterable[Memory], since: datetime | None) -> list[TimelineEvent]:
    """A vault outside git told from its files alone, newest first: each memory's last change
    (`updated_at`) when its status or `source` names a lifecycle move or it changed after it was made, then
    its addition (`created_at`)."""
    events: list[TimelineEvent] = []
    for memory in memories:
        if memory.layer is Layer.SESSION:
            continue
        created, changed = memory.created_at, max(memory.updated_at, memory.created_at)
        moved = STATUS_EVENTS.get(memory.status) or ("promoted" if memory.source == "promotion" else None)
        if (moved or changed > created) and (since is None or changed >= since):
            events.append(event(moved or "edit", memory, changed.isoformat()))
        if since is None or created >= since:
            events.append(event("capture" if memory.source in CAPTURE_SOURCES else "add", memory, created.isoformat()))
    return events
