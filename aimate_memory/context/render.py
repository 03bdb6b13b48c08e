"""A context as Markdown for a prompt: a heading per section, each memory as title + tag, then its text.

Every piece is joined to the next by whitespace, so (see `index.chunking.estimate_tokens`) the tokens of
the whole text are the sum of the pieces' tokens: the budget is counted piece by piece and holds for
the rendered text exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

from aimate_memory.context.model import ContextItem, Section

LAYER_HEADINGS = {
    "core": "Core memory",
    "session": "Current session",
    "short_term": "Recent short-term memory",
    "long_term": "Long-term memory",
}


def section_heading(layer: str, scope: str) -> str:
    return f"## {LAYER_HEADINGS.get(layer, layer)} · {scope}"


def item_heading(item: ContextItem) -> str:
    title = " ".join(item.title.split()) or "untitled"
    return f"### {title} {item.tag}"


def render_item(heading: str, text: str) -> str:
    return f"{heading}\n\n{text}\n\n" if text.strip() else f"{heading}\n\n"


def render_section(section: Section) -> str:
    if not section.items:
        return ""
    return f"{section.heading}\n\n" + "".join(render_item(item_heading(p.item), p.text) for p in section.items)


def render_context(sections: Sequence[Section]) -> str:
    text = "".join(render_section(section) for section in sections).rstrip("\n")
    return text + "\n" if text else ""
