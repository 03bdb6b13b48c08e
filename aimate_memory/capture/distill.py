"""What a finished session leaves behind (pure): the person's own sentences that capture files, with high
confidence, as a rule, preference, decision, knowledge or task — each a proposal for review, never a memory
by itself (docs/design.md, "Capture": session distillation).

Only what the person said counts: turns of role `user`, read by `heard.py` (their typed words only, and only
what says it stands). The assistant's turns are left out — what it said is not what the person wants kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from aimate_memory.capture.choice import choices, with_choices
from aimate_memory.capture.classify import Classification
from aimate_memory.capture.conflict import Reading, read
from aimate_memory.capture.heard import (
    DECISION_CUES,
    RULE_CUES,
    STANDS,
    TASK_CUES,
    Heard,
    heard,
    matches,
    reports_problem,
)
from aimate_memory.capture.rules import (
    BEHAVIOUR_CUES,
    CHOICE_CUES,
    DIRECTIVE_CUES,
    FACT_CUES,
    LASTING_CUES,
    MADE_BY_THE_PERSON,
    PERSONAL_CUES,
    PLACEMENT_CUES,
    RECURRING_SITUATION,
    STANDING_CUES,
)

# What is proposed of a long turn's sentences (`Heard.in_paste`), said once: the project's state as the person made
# it or placed it ("I've made a new directory src/color", "Create `docs/plans/x.md` with:") or sees it behave
# (`rules.BEHAVIOUR_CUES`) — words of the person's, not of a pasted plan, and what later requests build on — and,
# after those, what says it stands: in a long turn an instruction is as often about the task at hand ("Please do
# not do any work, let's discuss the options"; replay dev projects: 4 of 13 kept, against 2 of 4).
_STATE_IN_PASTE = (*MADE_BY_THE_PERSON, *PLACEMENT_CUES, *BEHAVIOUR_CUES)
_HEARD_IN_PASTE = (*STANDS, *_STATE_IN_PASTE)
# A statement said again in a later turn of the session in nearly the same words ("Use context7 for Playwright",
# "Use context7 fro Playwright Nuxt and p5js as needed", "使用中文回答" / "请用中文回答我"): the share of the
# shorter wording's character pairs found in the other. Two statements built alike ("limit your fixes to
# a.js" / "limit your changes to b.vue": .62) stay under it.
SAID_AGAIN = 0.8
# A session may propose one more for every this many turns of the person's (`session_limit`).
TURNS_PER_EXTRA = 10
# The kinds a session may propose: a note is what passes.
DISTILLED_KINDS = frozenset({"rule", "preference", "decision", "knowledge", "project", "task"})


@dataclass(frozen=True)
class Proposal:
    """One sentence of the person's, filed by capture: what becomes a pending memory."""

    text: str
    turn: int  # the turn's number in the session, 1-based: the first turn it was said in
    kind: str
    confidence: float
    personal: bool = False  # about the person wherever they work (`rules.PERSONAL_CUES`): the global vault
    standing: bool = False  # says it holds beyond now (`rules.STANDING_CUES`): proposed before the others
    said: int = 1  # in how many turns of the session, and earlier sessions, the person said it: evidence
    in_paste: bool = False  # first said inside a long turn (`Heard.in_paste`)


def distill(
    turns: Sequence[tuple[str, str]],
    classify_one: Callable[[str], Classification],
    min_confidence: float,
    limit: int,
    rejected: Callable[[str], bool] = lambda sentence: False,
    said_before: Callable[[str], int] = lambda key: 0,
) -> list[Proposal]:
    """The first `session_limit` of `ranked`, in turn order: what a session proposes when nothing of it is known
    yet (a session's end skips what the vault already holds before it counts, system/capture.py)."""
    found = ranked(turns, classify_one, min_confidence, rejected, said_before)
    return sorted(found[: session_limit(limit, user_turn_count(turns))], key=lambda proposal: proposal.turn)


def user_turn_count(turns: Sequence[tuple[str, str]]) -> int:
    return sum(1 for role, _ in turns if role == "user")


def ranked(
    turns: Sequence[tuple[str, str]],
    classify_one: Callable[[str], Classification],
    min_confidence: float,
    rejected: Callable[[str], bool] = lambda sentence: False,
    said_before: Callable[[str], int] = lambda key: 0,
) -> list[Proposal]:
    """Every proposal of `turns` ((role, text), in order), the first to propose first: what the person stated
    that holds beyond the moment (`heard`), each statement once however often it was said (at its first turn,
    `said` counting the turns), filed by `classify_one` as one of `DISTILLED_KINDS` with confidence ≥
    `min_confidence`, a pick of an option the assistant offered read as that option (`capture/choice.py`; one
    that cannot be read is no proposal and takes no place), none the person `rejected` before; ranked: what was
    said in several turns or sessions first (`said_before(key)`: the earlier sessions that heard it,
    `capture/ledger.py`), then what was said outside a long paste, then standing instructions, then the most
    confident (in turn order among equals)."""
    by_key: dict[str, list[Heard]] = {}
    for number, text in _user_turns(turns):
        for statement in heard(number, text):
            turns_of = by_key.setdefault(_said_as(statement.key, by_key), [])
            if all(earlier.turn != number for earlier in turns_of):
                turns_of.append(statement)
    said = {key: len(group) + said_before(key) for key, group in by_key.items()}
    # What is left out whatever the model says is left out before it reads anything (a USE vector each).
    wanted = [
        group
        for key, group in by_key.items()
        if not rejected(group[0].text)
        and (not group[0].in_paste or said[key] > 1 or matches(_HEARD_IN_PASTE, group[0].text))
    ]
    filed = [p for group in wanted if (p := _proposal(group, said[group[0].key], classify_one, min_confidence))]
    found = [proposal for proposal in with_choices(filed, choices(turns)) if not rejected(proposal.text)]
    return sorted(found, key=_rank)


def _rank(proposal: Proposal) -> tuple[int, bool, bool, bool, float, int]:
    """What a session proposes first (`ranked`): said again, said outside a long paste, of a long paste the
    project's state (`_STATE_IN_PASTE`), standing, the most confident, the earliest."""
    of_paste_not_state = proposal.in_paste and not matches(_STATE_IN_PASTE, proposal.text)
    return (
        -min(proposal.said, 2),
        proposal.in_paste,
        of_paste_not_state,
        not proposal.standing,
        -proposal.confidence,
        proposal.turn,
    )


def session_limit(limit: int, user_turns: int) -> int:
    """How many proposals a session may leave: `limit`, and one more for every `TURNS_PER_EXTRA` turns of the
    person's past the first — a working day's session states more than a short question does, and a cap
    that fits the short one left most of the long one's statements unasked (docs/design.md, "Capture from a
    conversation"); the median session still asks for a handful of decisions or fewer."""
    return limit + max(0, user_turns - 1) // TURNS_PER_EXTRA if limit > 0 else 0


def _said_as(key: str, by_key: dict[str, list[Heard]]) -> str:
    """The key under which a statement is counted: an earlier statement of the session in nearly the same
    words (a typo, a word added or dropped: `SAID_AGAIN` of the characters in common) that neither negates
    nor changes what the other does (the conflict table's reading: "不再使用 Naive UI" is not "使用 Naive UI"
    again), else its own. The person saying it again in other turns is evidence it holds, whatever small slip
    the wording has."""
    if key in by_key:
        return key
    pairs, reading = _pairs(key), read(key)
    close = (
        earlier
        for earlier in by_key
        if _shared(pairs, _pairs(earlier)) >= SAID_AGAIN and _same_sense(reading, read(earlier))
    )
    return next(close, key)


def _same_sense(one: Reading, other: Reading) -> bool:
    return one.negated == other.negated and one.changes == other.changes


def _pairs(key: str) -> set[str]:
    """A key's character pairs, spaces left out: what two wordings of a statement share, in any script."""
    joined = key.replace(" ", "")
    return {joined[i : i + 2] for i in range(len(joined) - 1)}


def _shared(one: set[str], other: set[str]) -> float:
    """The share of the smaller set's character pairs found in the other."""
    small, large = sorted((one, other), key=len)
    return len(small & large) / len(small) if small else 0.0


def _proposal(
    group: list[Heard], said: int, classify_one: Callable[[str], Classification], min_confidence: float
) -> Proposal | None:
    """The proposal for a statement said in the turns of `group` (its first wording), `said` times in all, or
    None when it is filed as a passing note or below `min_confidence`."""
    first = group[0]
    filed = classify_one(first.text)
    confidence = filed.confidence or 0.0
    kind = _kind(first.text, filed.kind)
    # A decision's, an open task's or the person's own words settle it even where the model reads small talk
    # ("Yes, let's go with the factory approach", "I will have to fix that at some point", "使用中文回答"), and
    # so do saying it again and the person's word on how the code behaves ("the external code is responsible
    # for disposing of it": the model reads a description of code as a remark), and an instruction for a situation
    # that comes back ("When adding a migration, run the schema check first": the model reads a task or a remark).
    settled = (
        said > 1
        or matches(
            (*DECISION_CUES, *TASK_CUES, *PERSONAL_CUES, *DIRECTIVE_CUES, *BEHAVIOUR_CUES, *RECURRING_SITUATION),
            first.text,
        )
        or reports_problem(first.text)
    )
    if kind not in DISTILLED_KINDS or (not settled and (filed.drop or confidence < min_confidence)):
        return None
    personal, standing = matches(PERSONAL_CUES, first.text), matches(STANDING_CUES, first.text)
    return Proposal(first.text, first.turn, kind, confidence, personal, standing, said, first.in_paste)


def _kind(sentence: str, filed: str) -> str:
    """The model's kind, except where the words settle it: a problem or limit of the project is knowledge, an
    instruction for a situation that comes back a rule; the person's own ways (the language of replies)
    keep the model's kind (never a decision of the project); a decision's cue, a choice the team lives with or
    a choice of how the thing is built files a decision (the model reads most decisions as rules or tasks) —
    unless a rule's always/never makes it a standing rule; a fact about the setup is knowledge, not a
    preference or a note."""
    if reports_problem(sentence):
        return "knowledge"  # the state of the project: on the replay it lasted weeks, past a task's 14 days
    if matches(RECURRING_SITUATION, sentence):
        return "rule"  # it holds each time the situation comes back (rules.py; the bench's seven are rules)
    if matches(PERSONAL_CUES, sentence) and not matches((*DECISION_CUES, *FACT_CUES), sentence):
        return filed  # how they work, wherever they work: no directive makes it a decision of the project
    if matches(DECISION_CUES, sentence) or (filed != "preference" and matches(CHOICE_CUES, sentence)):
        return "decision"
    if filed in ("rule", "task", "note", "knowledge") and matches(DIRECTIVE_CUES, sentence):
        return "rule" if filed == "rule" and matches((*RULE_CUES, *LASTING_CUES), sentence) else "decision"
    if filed in ("preference", "rule", "task", "note") and matches(FACT_CUES, sentence):
        return filed if matches(STANDING_CUES, sentence) and filed != "note" else "knowledge"
    return filed


def _user_turns(turns: Iterable[tuple[str, str]]) -> Iterable[tuple[int, str]]:
    for number, (role, text) in enumerate(turns, start=1):
        if role == "user":
            yield number, text


def says(kind: str, sentence: str) -> bool:
    """Whether the sentence carries a "decision" or "task" cue of rules.py: also what a session's episode
    takes as decided or left open (sessions/episode.py), one rule for both."""
    return matches({"decision": DECISION_CUES, "task": TASK_CUES}[kind], sentence)
