"""A whole context: allocate the sections, render the text, gather the warnings (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from aimate_memory.context.budget import allocate, core_warnings
from aimate_memory.context.model import Context, ContextWarning, Section, SectionRequest
from aimate_memory.context.render import render_context, render_stale, section_heading
from aimate_memory.sessions.trimming import SessionUsage
from aimate_memory.text.estimate import prompt_tokens

PROPOSALS_NAMED = 3  # pending captures a session start names: a handful, never a page
LEFT_OUT_KIND = "left_out"  # memories outside core the budget did not fit
LISTED_LAYERS = ("short_term", "long_term")  # the sections `aimate mem list --layer` lists
PROPOSALS_KIND = "pending_proposals"  # the warning that names them: for the person, not the model


def build_context(
    requests: Sequence[SectionRequest],
    total_budget: int,
    *,
    core_cap: int | None = None,
    session_usage: SessionUsage | None = None,
    pending_captures: int = 0,
    proposals: Sequence[tuple[str, str]] = (),
) -> Context:
    """Sections in the order given (the caller's loading order: global core, project core, session
    window, project short-term, long-term, then global short/long-term for a query); core within
    `core_cap` tokens (budget.py `allocate`). `proposals`: (id, title) of the newest pending captures, named
    in the pending warning with the one-step way to accept or reject each."""
    sections = allocate(requests, total_budget, core_cap=core_cap)
    text = render_context(sections)
    stale = render_stale(sections)
    stale_tokens = prompt_tokens(stale) if stale else 0
    if stale:  # outside the budget: a few lines, and what they say matters more than one more memory
        text = f"{text}\n{stale}"
    warnings = [
        *session_warnings(session_usage),
        *core_warnings(sections, capped=core_cap is not None and core_cap < total_budget),
        *left_out_warnings(sections),
        *pending_warnings(pending_captures, proposals),
    ]
    # The pieces' counts add up to the text's (render.py), so the text is not counted a second time.
    return Context(sections, sum(section.tokens for section in sections) + stale_tokens, total_budget, warnings, text)


def left_out_warnings(sections: Sequence[Section]) -> list[ContextWarning]:
    """How many memories outside core the budget left out, and how to list them: a smaller budget never hides
    what it leaves out (core's are named by `core_warnings`)."""
    counts = [
        f"{section_heading(section.layer, section.scope).removeprefix('## ')}: {len(section.skipped)}"
        for section in sections
        if not section.required and section.skipped and section.layer in LISTED_LAYERS
    ]
    if not counts:
        return []
    message = (
        f"not shown for the budget: {', '.join(counts)}; `aimate mem list --layer short_term|long_term` lists "
        "them, `aimate mem show ID` reads one"
    )
    return [ContextWarning(LEFT_OUT_KIND, message)]


def session_warnings(session_usage: SessionUsage | None) -> list[ContextWarning]:
    if session_usage is None:
        return []
    return [ContextWarning("session_usage", message) for message in session_usage.warnings()]


def pending_warnings(count: int, proposals: Sequence[tuple[str, str]] = ()) -> list[ContextWarning]:
    """How many captures wait for review; and, for the person only (`PROPOSALS_KIND`: a hook shows it to them,
    never to the model — a pending capture is not a memory), the newest few (`proposals`: id, title) with the
    one-step way to accept or reject each, where they already look (the session start's notice)."""
    if count <= 0:
        return []
    noun = "capture waits" if count == 1 else "captures wait"
    warnings = [ContextWarning("pending_captures", f"{count} pending {noun} for review (aimate mem review)")]
    if proposals:
        named = "; ".join(f'"{title}" [{memory_id[:8]}]' for memory_id, title in proposals[:PROPOSALS_NAMED])
        first = proposals[0][0][:8]
        message = (
            f"to review: {named} — keep one: aimate mem review --accept {first}; "
            f"drop it for good: aimate mem review --reject {first}"
        )
        warnings.append(ContextWarning(PROPOSALS_KIND, message))
    return warnings
