"""Context for a prompt: memories fitted into a token budget, section by section (pure part).

- `model` — `ContextItem`, `SectionRequest`, `Section`, `PlacedItem`, `ContextWarning`, `Context` (`to_dict`);
- `budget` — `allocate` (core first and whole, ratios for the rest, flow both ways, dedupe, sentence cuts),
  `cut_to_fit`, `core_warnings`;
- `render` — compact Markdown text (a short memory is one line);
- `build` — `build_context` (allocate + render + warnings).
"""

from aimate_memory.context.budget import allocate, core_warnings, cut_to_fit
from aimate_memory.context.build import build_context, pending_warnings, session_warnings
from aimate_memory.context.model import Context, ContextItem, ContextWarning, PlacedItem, Section, SectionRequest
from aimate_memory.context.render import render_context

__all__ = [
    "Context",
    "ContextItem",
    "ContextWarning",
    "PlacedItem",
    "Section",
    "SectionRequest",
    "allocate",
    "build_context",
    "core_warnings",
    "cut_to_fit",
    "pending_warnings",
    "render_context",
    "session_warnings",
]
