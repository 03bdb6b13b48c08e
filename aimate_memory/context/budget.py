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

import itertools
import re
from bisect import bisect_right
from collections.abc import Sequence
from itertools import pairwise

from aimate_memory.context.model import ContextItem, ContextWarning, PlacedItem, Section, SectionRequest
from aimate_memory.context.render import item_frame, render_item, section_heading, shown_text
from aimate_memory.text.estimate import prompt_tokens

ELLIPSIS = "…"
NAMED_IN_WARNING = 10  # core memories named in a warning; more are counted ("and 4 more")
# Where a sentence ends: after 。！？ (no space follows in Chinese), after .!? followed by whitespace,
# or at a line break. Every boundary sits next to punctuation or whitespace, so the token counts of the
# pieces between boundaries add up to the count of their concatenation.
_BOUNDARY = re.compile(r"(?<=[。！？])|(?<=[.!?])(?=\s)|(?=\n)")
# Where a summary line may end besides: after a Chinese clause mark (，；), or a comma or semicolon before a
# space. Not after a colon: what comes before one is a label ("复杂场景：…"), not a summary. The same property
# holds: each boundary sits next to punctuation or whitespace.
_BRACKET_DEPTH = {"(": 1, "（": 1, "[": 1, "【": 1, ")": -1, "）": -1, "]": -1, "】": -1}
_CLAUSE = re.compile(r"(?<=[。！？，；])|(?<=[.!?,;])(?=\s)|(?=\n)")


def allocate(requests: Sequence[SectionRequest], total_budget: int, *, core_cap: int | None = None) -> list[Section]:
    """Sections in the order of `requests`, within `total_budget` tokens in all; core within `core_cap`
    (None: core may use the whole budget)."""
    total_budget = max(0, total_budget)
    cap = total_budget if core_cap is None else max(0, min(core_cap, total_budget))
    sizes = _Sizes()
    sections: dict[int, Section] = {}
    core_used = 0
    for index, request in enumerate(requests):
        if request.required:
            sections[index] = _fill(request, cap - core_used, _taken(sections, index), sizes, whole_only=True)
            core_used += sections[index].tokens
    others = [index for index, request in enumerate(requests) if not request.required]
    shares = _shares([requests[index].ratio for index in others], total_budget - core_used)
    for index, share in zip(others, shares, strict=True):
        sections[index] = _fill(requests[index], share, _taken(sections, index), sizes)
    _flow(requests, sections, others, total_budget - core_used, sizes)
    return [sections[index] for index in range(len(requests))]


class _Sizes:
    """Token counts of one build, each computed once: a section filled again (the flow) re-reads them, and
    a session window of 200 turns cost ~4 ms to split and count each time."""

    def __init__(self) -> None:
        self._whole: dict[ContextItem, tuple[str, int, int]] = {}
        self._sentences: dict[tuple[str, bool], tuple[list[str], list[int]]] = {}

    def whole(self, item: ContextItem) -> tuple[str, int, int]:
        """(shown text, its tokens, the whole block's tokens)."""
        if item not in self._whole:
            text = shown_text(item)
            text_tokens = prompt_tokens(text)
            # The block is the text in a whitespace-joined frame (render.py), so only the frame is counted
            # besides: a long text is read by the estimator once.
            before, after = item_frame(item, text)
            self._whole[item] = (text, text_tokens, text_tokens + prompt_tokens(before) + prompt_tokens(after))
        return self._whole[item]

    def sentences(self, text: str, keep_tail: bool, limit: int) -> tuple[list[str], list[int]]:
        """The text's sentences (reversed for `keep_tail`) and their running token counts, counted only as
        far as `limit` and one past it: most cut attempts are for a little room at the end of a section."""
        key = (text, keep_tail)
        if key not in self._sentences:
            pieces = sentences(text)
            if keep_tail:
                pieces.reverse()
            self._sentences[key] = (pieces, [])
        pieces, counts = self._sentences[key]
        while len(counts) < len(pieces) and (not counts or counts[-1] <= limit):
            counts.append((counts[-1] if counts else 0) + prompt_tokens(pieces[len(counts)]))
        return pieces, counts


def _shares(ratios: Sequence[float], tokens: int) -> list[int]:
    weights = [max(0.0, ratio) for ratio in ratios]
    total = sum(weights)
    if total <= 0:  # no ratios given: equal shares
        weights, total = [1.0] * len(ratios), float(len(ratios))
    return [int(tokens * weight / total) for weight in weights]


def _flow(
    requests: Sequence[SectionRequest], sections: dict[int, Section], others: list[int], tokens: int, sizes: _Sizes
) -> None:
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
            wider = _fill(requests[index], section.tokens + free, _taken(sections, index), sizes)
            if wider.tokens > section.tokens:
                sections[index] = wider
                changed = True


def _taken(sections: dict[int, Section], index: int) -> set[str]:
    """Ids placed by the other sections."""
    return {placed.item.id for i, section in sections.items() if i != index for placed in section.items}


def _fill(
    request: SectionRequest, allowance: int, taken: set[str], sizes: _Sizes, *, whole_only: bool = False
) -> Section:
    heading = request.heading or section_heading(request.layer, request.scope)
    section = Section(request.layer, request.scope, heading, allowance, required=request.required)
    heading_tokens = prompt_tokens(heading)
    for item in request.items:
        if item.id in taken:
            section.duplicates.append(item.id)
            continue
        opening = 0 if section.items else heading_tokens
        room = allowance - section.tokens - opening
        most = None if whole_only else request.summary_tokens  # core is always whole
        placed = _summary(item, room, most) if most else None
        placed = placed or _place(item, room, sizes, keep_tail=request.keep_tail, whole_only=whole_only)
        if placed is None:
            section.skipped.append(item)
            continue
        section.items.append(placed)
        section.tokens += opening + placed.tokens
        taken.add(item.id)
    return section


def _place(item: ContextItem, room: int, sizes: _Sizes, *, keep_tail: bool, whole_only: bool) -> PlacedItem | None:
    if room <= 0:
        return None
    text, text_tokens, tokens = sizes.whole(item)
    if tokens <= room:
        return PlacedItem(item, text, tokens)
    if whole_only:
        return None
    # The block is its text plus a frame (list marker, title, id) joined by whitespace: the frame's count
    # is the difference, and the text may have the rest.
    limit = room - (tokens - text_tokens)
    cut = _cut(*sizes.sentences(text, keep_tail, limit), limit, keep_tail=keep_tail)
    if cut is None:
        return None
    cut_tokens = prompt_tokens(render_item(item, cut))
    if cut_tokens > room:  # a cut of one line lost its title's echo and gained a label: rare, so let go
        return None
    return PlacedItem(item, cut, cut_tokens, cut=True)


def _summary(item: ContextItem, room: int, most: int) -> PlacedItem | None:
    """A long one-line item as its summary line: its first clauses within `most` tokens (and the room), `…`
    marking the cut; None when the item is short enough, spans lines, or has no clause that short (then it is
    placed as any item is)."""
    text = shown_text(item)
    tokens = prompt_tokens(render_item(item, text))
    if tokens <= most or "\n" in text.strip():
        return None
    limit = min(most, room) - (tokens - prompt_tokens(text))
    pieces = clauses(text)
    counts = list(itertools.accumulate(prompt_tokens(piece) for piece in pieces))
    cut = _cut(pieces, counts, limit, keep_tail=False)
    if cut is None:
        return None
    cut_tokens = prompt_tokens(render_item(item, cut))
    return PlacedItem(item, cut, cut_tokens, cut=True) if cut_tokens <= room else None


def clauses(text: str) -> list[str]:
    """`text` split after its sentences and clauses (，； and , ; before a space), never inside brackets
    ("选 Zustand（React，轻量…）" is not cut after "React，"); the pieces concatenate back to `text`."""
    depth = list(itertools.accumulate(_BRACKET_DEPTH.get(char, 0) for char in text))
    inside = {index + 1 for index, level in enumerate(depth) if level > 0}  # boundaries after an opened bracket
    found = (match.start() for match in _CLAUSE.finditer(text))
    cuts = sorted({0, len(text), *(cut for cut in found if cut not in inside)})
    return [text[start:end] for start, end in pairwise(cuts) if end > start]


def sentences(text: str) -> list[str]:
    """`text` split at sentence ends; the pieces concatenate back to `text`."""
    cuts = sorted({0, len(text), *(match.start() for match in _BOUNDARY.finditer(text))})
    return [text[start:end] for start, end in pairwise(cuts) if end > start]


def cut_to_fit(text: str, max_tokens: int, *, keep_tail: bool = False) -> str | None:
    """The longest run of whole sentences from the start (or the end) of `text` that fits in
    `max_tokens` with the `…` marking the cut; None when not even one sentence fits."""
    return _cut(*_Sizes().sentences(text, keep_tail, max_tokens), max_tokens, keep_tail=keep_tail)


def _cut(pieces: list[str], counts: list[int], max_tokens: int, *, keep_tail: bool) -> str | None:
    """`cut_to_fit` on the text's sentences (reversed for `keep_tail`) and their running token counts (as far
    as one past `max_tokens`)."""
    limit = max_tokens - prompt_tokens(ELLIPSIS)
    fitting = bisect_right(counts, limit)  # running counts only grow
    fitting = min(fitting, len(pieces) - 1)  # all of them would not be a cut
    if fitting < 1:
        return None
    kept = pieces[:fitting]
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
