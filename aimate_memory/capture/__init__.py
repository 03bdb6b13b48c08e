"""Capture: turn a sentence into a memory in the right place (pure decisions; the facade does the I/O).

- `classify.classify` — layer, category, scope, title from bilingual cue tables (`rules.RULES`);
- `routing.route` — agent confidence → written / pending / dropped;
- `supersede.decide` — new, supersede an older memory, or already exists;
- `result.CaptureResult` — what happened, JSON-ready.
"""

from aimate_memory.capture.classify import Classification, classify, title_of
from aimate_memory.capture.result import CaptureResult
from aimate_memory.capture.routing import Route, route
from aimate_memory.capture.supersede import Candidate, SupersedeDecision, decide, jaccard, normalize

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
