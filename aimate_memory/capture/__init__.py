"""Capture: turn a sentence into a memory in the right place (pure decisions; the facade does the I/O).

- `classify.classify` — layer, category, scope, title from bilingual cue tables (`rules.RULES`); import it from
  `capture.classify` (in the package, the name `classify` is that module);
- `routing.route` — agent confidence → written / pending / dropped;
- `supersede.decide` — new, supersede an older memory, or already exists;
- `result.CaptureResult` — what happened, JSON-ready;
- `heard.heard` — what a turn of the person's states (cue tables only): the prompt hook runs it on every prompt.

The names load on first use: the prompt hook imports `capture.heard` (regular expressions) without the kind
model and numpy behind `classify` (~0.4 s).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aimate_memory.capture.classify import Classification, title_of
    from aimate_memory.capture.result import CaptureResult
    from aimate_memory.capture.routing import Route, route
    from aimate_memory.capture.supersede import Candidate, SupersedeDecision, decide, jaccard, normalize

_WHERE = {
    "Classification": "classify",
    "title_of": "classify",
    "CaptureResult": "result",
    "Route": "routing",
    "route": "routing",
    "Candidate": "supersede",
    "SupersedeDecision": "supersede",
    "decide": "supersede",
    "jaccard": "supersede",
    "normalize": "supersede",
}

__all__ = [
    "Candidate",
    "CaptureResult",
    "Classification",
    "Route",
    "SupersedeDecision",
    "decide",
    "jaccard",
    "normalize",
    "route",
    "title_of",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
