"""Fill a token budget with memories, section by section (pure; docs/design.md, "Context builder").

1. Core first and whole: the required (core) sections, in order (global, then project), place each item
   whole while the core cap (`min(core_cap, total_budget)`) holds; an item that does not fit is left out,
   never cut (half a rule can say the opposite of the rule: "Never X. Unless Y."), and a smaller one after
   it may still fit. `core_warnings` names every item left out.
2. What core left is shared by the other sections' ratios (each against the sum of theirs).
3. Unused shares flow, in both directions: while tokens are free, each section that still has items
   waiting (skipped, or cut) is filled again with its tokens plus all that is free. So a budget is never
   left unused while a memory that would fit waits.

Outside core, an item that does not fit whole is cut at a sentence boundary (Chinese 。！？, English .!?
before a space, or a line end) and marked `…`, or skipped when not even its first sentence fits; later,
smaller items may still fit. An id placed by one section is not placed by another. Tokens are counted on
the rendered text with the index's estimator, block by block (render.py says why the blocks add up).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import accumulate, pairwise

from aimate_memory.context.model import ContextItem, ContextWarning, PlacedItem, Section, SectionRequest
from aimate_memory.context.render import render_item, section_heading, shown_text
from aimate_memory.index.chunking import estimate_tokens

ELLIPSIS = "…"
NAMED_IN_WARNING = 10  # core memories named in a warning; more are counted ("and 4 more")
# Where a sentence ends: after 。！？ (no space follows in Chinese), after .!? followed by whitespace,
# or at a line break. Every boundary sits next to punctuation or whitespace, so the token counts of the
# pieces between boundaries add up to the count of their concatenation.
_BOUNDARY = re.compile(r"(?<=[。！？])|(?<=[.!?])(?=\s)|(?=\n)")


def allocate(requests: Sequence[SectionRequest], total_budget: int, *, core_cap: int | None = None) -> list[Section]:
    """Sections in the order of `requests`, within `total_budget` tokens in all; core within `core_cap`
    (None: core may use the whole budget)."""
    total_budget = max(0, total_budget)
    cap = total_budget if core_cap is None else max(0, min(core_cap, total_budget))
    sections: dict[int, Section] = {}
    core_used = 0
    for index, request in enumerate(requests):
        if request.required:
            sections[index] = _fill(request, cap - core_used, _taken(sections, index), whole_only=True)
            core_used += sections[index].tokens
    others = [index for index, request in enumerate(requests) if not request.required]
    shares = _shares([requests[index].ratio for index in others], total_budget - core_used)
    for index, share in zip(others, shares, strict=True):
        sections[index] = _fill(requests[index], share, _taken(sections, index))
    _flow(requests, sections, others, total_budget - core_used)
    return [sections[index] for index in range(len(requests))]


def _shares(ratios: Sequence[float], tokens: int) -> list[int]:
    weights = [max(0.0, ratio) for ratio in ratios]
    total = sum(weights)
    if total <= 0:  # no ratios given: equal shares
        weights, total = [1.0] * len(ratios), float(len(ratios))
    return [int(tokens * weight / total) for weight in weights]


def _flow(requests: Sequence[SectionRequest], sections: dict[int, Section], others: list[int], tokens: int) -> None:
    """Give what is free to sections whose items wait, in order, until nothing more gets placed. Each pass
    that changes anything places more tokens, so this ends."""
    changed = True
    while changed:
        changed = False
        for index in others:
            free = tokens - sum(sections[i].tokens for i in others)
            section = sections[index]
            if free <= 0:
                return
            if not section.wants_more:
                continue
            wider = _fill(requests[index], section.tokens + free, _taken(sections, index))
            if wider.tokens > section.tokens:
                sections[index] = wider
                changed = True


def _taken(sections: dict[int, Section], index: int) -> set[str]:
    """Ids placed by the other sections."""
    return {placed.item.id for i, section in sections.items() if i != index for placed in section.items}


def _fill(request: SectionRequest, allowance: int, taken: set[str], *, whole_only: bool = False) -> Section:
    heading = request.heading or section_heading(request.layer, request.scope)
    section = Section(request.layer, request.scope, heading, allowance, required=request.required)
    heading_tokens = estimate_tokens(heading)
    for item in request.items:
        if item.id in taken:
            section.duplicates.append(item.id)
            continue
        opening = 0 if section.items else heading_tokens
        room = allowance - section.tokens - opening
        placed = _place(item, room, keep_tail=request.keep_tail, whole_only=whole_only)
        if placed is None:
            section.skipped.append(item)
            continue
        section.items.append(placed)
        section.tokens += opening + placed.tokens
        taken.add(item.id)
    return section


def _place(item: ContextItem, room: int, *, keep_tail: bool, whole_only: bool) -> PlacedItem | None:
    if room <= 0:
        return None
    text = shown_text(item)
    tokens = estimate_tokens(render_item(item, text))
    if tokens <= room:
        return PlacedItem(item, text, tokens)
    if whole_only:
        return None
    # The block is its text plus a frame (list marker, title, id) joined by whitespace: the frame's count
    # is the difference, and the text may have the rest.
    frame = tokens - estimate_tokens(text)
    cut = cut_to_fit(text, room - frame, keep_tail=keep_tail)
    if cut is None:
        return None
    cut_tokens = estimate_tokens(render_item(item, cut))
    if cut_tokens > room:  # a cut of one line lost its title's echo and gained a label: rare, so let go
        return None
    return PlacedItem(item, cut, cut_tokens, cut=True)


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


def core_left_out(sections: Sequence[Section]) -> list[ContextItem]:
    """Core memories that are in no section: skipped by their own and placed by none."""
    placed = {p.item.id for section in sections for p in section.items}
    left_out = {item.id: item for s in sections if s.required for item in s.skipped if item.id not in placed}
    return list(left_out.values())


def core_warnings(sections: Sequence[Section], *, capped: bool = False) -> list[ContextWarning]:
    """One warning that names the core memories left out (never dropped silently) and how to see them:
    `capped` when the core cap, not the whole budget, was the limit (a larger budget would not help)."""
    left_out = core_left_out(sections)
    if not left_out:
        return []
    count = len(left_out)
    noun = "core memory did not fit" if count == 1 else "core memories did not fit"
    names = ", ".join(_name(item) for item in left_out[:NAMED_IN_WARNING])
    more = f" and {count - NAMED_IN_WARNING} more" if count > NAMED_IN_WARNING else ""
    if capped:
        hint = (
            "core is capped at context.core_max_tokens: raise it (`aimate mem config set context.core_max_tokens N`)"
            " or shorten them; `aimate mem list --layer core` lists them"
        )
    else:
        hint = "run `aimate mem context` to see them"
    return [ContextWarning("core_over_budget", f"{count} {noun}: {names}{more}; {hint}")]


def _name(item: ContextItem) -> str:
    title = " ".join(item.title.split())
    short = title if len(title) <= 60 else title[:59] + ELLIPSIS
    return f"'{short}' ({item.id[:8]})"
