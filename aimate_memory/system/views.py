"""The answers of the commands a person waits on — list, show, stale, timeline, review — as JSON-ready
records, computed from a facade by one function each (`VIEWS`). The client (`system.client`) runs them here
or asks the daemon for the same record (its `view` op), and the CLI prints the record either way: a command
the daemon answers imports neither the facade nor the models (docs/agents.md, "Every face through the daemon").

Each view takes the command's arguments as a JSON object (`Args`) and returns a JSON object. `fresh`: the
index is synced first (unless `no_refresh`), as a read command always did; `review` reads git, not the index
(but its `stale` part does).
The records' shapes are the `--json` outputs of the commands (docs/cli.md), plus what the human lines need."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aimate_memory.errors import InvalidInputError

if TYPE_CHECKING:
    from aimate_memory.system.facade import MemorySystem

Args = Mapping[str, Any]
Json = dict[str, Any]


@dataclass(frozen=True)
class View:
    run: Callable[[MemorySystem, Args], Json]
    fresh: bool  # the index synced before it runs (unless the arguments say `no_refresh`)
    fresh_with: str | None = None  # or only when this argument is given (review's `stale` reads the index)

    def reads_index(self, args: Args) -> bool:
        """Whether the index is synced before it runs: by the client's own freshness — in the daemon only the
        vaults with changes not synced yet, never a walk of every file per request."""
        return self.fresh or (self.fresh_with is not None and bool(args.get(self.fresh_with)))


def list_view(system: MemorySystem, args: Args) -> Json:
    """`list`: the memories `where` selects, newest first, at most `limit` — or, with `page` and no limit,
    `cli.list_page` of them; `total`: how many it selects."""
    from aimate_memory.system.records import where_from_dict

    where = where_from_dict(args.get("where") or {})
    limit = args.get("limit")
    if limit is None and args.get("page"):
        limit = int(system.config.get("cli.list_page"))
    memories = system.list(where, limit=int(limit) if limit is not None else None)
    total = system.count(where) if limit is not None and len(memories) == int(limit) else len(memories)
    # `broken`: the files the index could not read, named, so a list never leaves them out in silence
    return {
        "memories": [memory.public_dict() for memory in memories],
        "total": total,
        "paged": bool(args.get("page")) and args.get("limit") is None,
        "broken": system.broken_warning(),
    }


def show_view(system: MemorySystem, args: Args) -> Json:
    """`show REF`: the memory's fields, frontmatter, body and whether it may be stale, and its file's text
    exactly as written (`location` names it); with `details`, `MemoryDetailsRecord.to_dict()`."""
    from aimate_memory.system.records import frontmatter_fields

    ref = str(args.get("ref") or "")
    if args.get("details"):
        return {"details": system.details(ref).to_dict()}
    memory = system.read(ref)
    stale = system.staleness(memory)
    data = memory.public_dict()
    data["stale"] = stale.to_dict() if stale is not None else None
    data["frontmatter"] = frontmatter_fields(memory)
    data["body"] = memory.body
    doc = memory.doc
    return {
        "memory": data,
        "location": f"{memory.scope.value}:{memory.rel_path.as_posix()}",
        "stale_text": stale.describe() if stale is not None else None,
        "supersedes": (doc.get("supersedes") or None) if doc is not None else None,
        "superseded_by": (doc.get("superseded_by") or None) if doc is not None else None,
        "text": system.store.vault_for(memory.scope).abs_path(memory.rel_path).read_text(encoding="utf-8"),
    }


def stale_view(system: MemorySystem, args: Args) -> Json:
    """`stale`: the project memories whose cited files changed since they were verified; `project`: whether
    there is a project vault at all."""
    found = system.stale()
    return {
        "project": system.project_vault is not None,
        "memories": [
            {**memory.public_dict(), "stale": staleness.to_dict(), "stale_text": staleness.describe()}
            for memory, staleness in found
        ],
    }


def timeline_view(system: MemorySystem, args: Args) -> Json:
    """`timeline`: `TimelineRecord.to_dict()`."""
    since = args.get("since")
    scope = args.get("scope")
    record = system.timeline(
        str(since) if since else None, limit=int(args.get("limit") or 100), scope=str(scope) if scope else None
    )
    return record.to_dict()


def review_view(system: MemorySystem, args: Args) -> Json:
    """`review`: with `accept`/`reject` (ids, prefixes or paths) or `accept_all`, what each did
    (`outcomes`); else the pending changes (`items`, each `ReviewItem.to_dict()`) and, with `stale`, the
    possibly stale memories to look at too."""
    accept, reject = list(args.get("accept") or []), list(args.get("reject") or [])
    allow_secret = bool(args.get("allow_secret"))
    if accept or reject:
        outcomes = system.git.reject(reject) + system.git.accept(
            accept,
            allow_secret=allow_secret,
            keep_both=bool(args.get("keep_both")),
            replace=[str(memory_id) for memory_id in args.get("replace") or ()],
        )
        return {"outcomes": [outcome.to_dict() for outcome in outcomes]}
    if args.get("accept_all"):
        return {"outcomes": [outcome.to_dict() for outcome in system.git.accept_all(allow_secret=allow_secret)]}
    answer: Json = {"items": [item.to_dict() for item in system.git.pending_changes()]}
    if args.get("stale"):  # the index is fresh: `View.fresh_with`
        answer["stale"] = stale_view(system, args)["memories"]
    return answer


# The views by name: the client's `view(name, args)` and the daemon's ops of the same names.
VIEWS: dict[str, View] = {
    "list": View(list_view, fresh=True),
    "show": View(show_view, fresh=True),
    "stale": View(stale_view, fresh=True),
    "timeline": View(timeline_view, fresh=False),
    "review": View(review_view, fresh=False, fresh_with="stale"),
}


def view_named(name: str) -> View:
    if name not in VIEWS:
        raise InvalidInputError(f"unknown view {name!r}", f"one of {', '.join(VIEWS)}")
    return VIEWS[name]
