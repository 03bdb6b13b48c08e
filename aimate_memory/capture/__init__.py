"""Capture: turn a sentence into a memory in the right place (pure decisions; the facade does the I/O).

- `classify.classify` — layer, category, scope, title from bilingual cue tables (`rules.RULES`);
- `routing.route` — agent confidence → written / pending / dropped;
- `supersede.decide` — new, supersede an older memory, or already exists;
- `result.CaptureResult` — what happened, JSON-ready;
- `heard.heard` — what a turn of the person's states (cue tables only): the prompt hook runs it on every prompt.

The names load on first use: the prompt hook imports `capture.heard` (regular expressions) without the kind
model and numpy behind `classify` (~0.4 s). `capture.classify` stays the function, as it was when the package
loaded it at once: its module, loaded later, does not take the name over (`_Package`).
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aimate_memory.capture.classify import Classification, classify, title_of
    from aimate_memory.capture.result import CaptureResult
    from aimate_memory.capture.routing import Route, route
    from aimate_memory.capture.supersede import Candidate, SupersedeDecision, decide, jaccard, normalize

_WHERE = {
    "Classification": "classify",
    "classify": "classify",
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
    "classify",
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


class _Package(ModuleType):
    """The package, whose name `classify` is the function: importing the submodule of that name sets the
    package's attribute to the module, which would hide the function from `from … import classify`."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "classify" and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
