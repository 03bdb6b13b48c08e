"""Fill a token budget with memories, section by section (pure; docs/design.md, "Context").

Each section may use its share (`ratio × total_budget`) plus what the sections before it left unused;
the total never exceeds the budget. Items go in best first; one that does not fit whole is cut at a
sentence boundary (Chinese 。！？, English .!? before a space, or a line end) and marked `…`, or skipped
when not even its first sentence fits; later, smaller items may still fit. An id placed by an earlier
section is not placed again. Tokens are counted on the rendered text (headings and tags included) with
the index's estimator, piece by piece (render.py says why the pieces add up).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import accumulate, pairwise

from aimate_memory.context.model import ContextItem, ContextWarning, PlacedItem, Section, SectionRequest
from aimate_memory.context.render import item_heading, section_heading
from aimate_memory.index.chunking import estimate_tokens

ELLIPSIS = "…"
# Where a sentence ends: after 。！？ (no space follows in Chinese), after .!? followed by whitespace,
# or at a line break. Every boundary sits next to punctuation or whitespace, so the token counts of the
# pieces between boundaries add up to the count of their concatenation.
_BOUNDARY = re.compile(r"(?<=[。！？])|(?<=[.!?])(?=\s)|(?=\n)")


def allocate(requests: Sequence[SectionRequest], total_budget: int) -> list[Section]:
    sections: list[Section] = []
    placed_ids: set[str] = set()
    used_total = carry = 0
    for request in requests:
        share = int(request.ratio * total_budget)
        allowance = max(0, min(share + carry, total_budget - used_total))
        section = _fill(request, allowance, placed_ids)
        used_total += section.tokens
        carry = allowance - section.tokens
        sections.append(section)
    return sections


def _fill(request: SectionRequest, allowance: int, placed_ids: set[str]) -> Section:
    heading = request.heading or section_heading(request.layer, request.scope)
    section = Section(request.layer, request.scope, heading, allowance, required=request.required)
    heading_tokens = estimate_tokens(heading)
    for item in request.items:
        if item.id in placed_ids:
            section.duplicates.append(item.id)
            continue
        opening = 0 if section.items else heading_tokens
        head_tokens = estimate_tokens(item_heading(item))
        room = allowance - section.tokens - opening - head_tokens
        placed = _place(item, room, head_tokens, request.keep_tail)
        if placed is None:
            section.skipped.append(item)
            continue
        section.items.append(placed)
        section.tokens += opening + placed.tokens
        placed_ids.add(item.id)
    return section


def _place(item: ContextItem, room: int, head_tokens: int, keep_tail: bool) -> PlacedItem | None:
    if room < 0:
        return None
    text = item.body.strip()
    tokens = estimate_tokens(text)
    if tokens <= room:
        return PlacedItem(item, text, head_tokens + tokens)
    cut = cut_to_fit(text, room, keep_tail=keep_tail)
    if cut is None:
        return None
    return PlacedItem(item, cut, head_tokens + estimate_tokens(cut), cut=True)


def sentences(text: str) -> list[str]:
    """`text` split at sentence ends; the pieces concatenate back to `text`."""
    cuts = sorted({0, len(text), *(match.start() for match in _BOUNDARY.finditer(text))})
    return [text[start:end] for start, end in pairwise(cuts) if end > start]


def cut_to_fit(text: str, max_tokens: int, *, keep_tail: bool = False) -> str | None:
    """The longest run of whole sentences from the start (or the end) of `text` that fits in
    `max_tokens` with the `…` marking the cut; None when not even one sentence fits."""
    pieces = sentences(text)
    if keep_tail:
        pieces.reverse()
    counts = list(accumulate(estimate_tokens(piece) for piece in pieces))
    marker = estimate_tokens(ELLIPSIS)
    fitting = [n for n, total in enumerate(counts, start=1) if total + marker <= max_tokens and n < len(pieces)]
    if not fitting:
        return None
    kept = pieces[: fitting[-1]]
    if keep_tail:
        return f"{ELLIPSIS} " + "".join(reversed(kept)).lstrip()
    return "".join(kept).rstrip() + f" {ELLIPSIS}"


def core_warnings(sections: Sequence[Section]) -> list[ContextWarning]:
    """Required (core) sections never lose an item silently: one warning names every skipped or cut item."""
    warnings = []
    for section in sections:
        if not section.required:
            continue
        skipped = [_name(item) for item in section.skipped]
        cut = [_name(placed.item) for placed in section.items if placed.cut]
        if not skipped and not cut:
            continue
        parts = ([f"did not fit: {', '.join(skipped)}"] if skipped else []) + (
            [f"shortened: {', '.join(cut)}"] if cut else []
        )
        message = f"{section.layer} ({section.scope}) is over its budget of {section.allowance} tokens; " + "; ".join(
            parts
        )
        warnings.append(ContextWarning("core_over_budget", message))
    return warnings


def _name(item: ContextItem) -> str:
    return f"'{item.title}' ({item.id[:8]})"
