"""What a finished session leaves behind (pure): the person's own sentences that capture files, with high
confidence, as a rule, preference, decision, knowledge or task — each a proposal for review, never a memory
by itself (docs/design.md, "Capture": session distillation).

Only what the person said counts: turns of role `user`, without fenced code, indented code, quoted lines or
anything that looks pasted (a line too long to have been typed as one sentence). The assistant's turns are
left out — what it said is not what the person wants kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from aimate_memory.capture.classify import Classification
from aimate_memory.capture.rules import (
    CHOICE_CUES,
    DIRECTIVE_CUES,
    FACT_CUES,
    LASTING_CUES,
    NOT_A_STATEMENT,
    ONE_OFF_CUES,
    PERSONAL_CUES,
    RULES,
    STANDING_CUES,
)
from aimate_memory.capture.supersede import normalize
from aimate_memory.text.typed import typed_lines

# The kinds a session may propose: a note is what passes.
DISTILLED_KINDS = frozenset({"rule", "preference", "decision", "knowledge", "project", "task"})
MIN_WORDS = 3  # "ok", "yes please", "好的" are never worth a proposal
MAX_SENTENCE_CHARS = 300  # longer than a typed sentence: a paste
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=[.])(?=\s)")
_LATIN_WORD = re.compile(r"[A-Za-z0-9_]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_DECISION_CUES, _TASK_CUES, _RULE_CUES = (
    tuple(pattern for rule in RULES if rule.name == name for group in rule.patterns.values() for pattern in group)
    for name in ("decision", "task", "rule")
)
# A Chinese sentence is often a request and a standing instruction joined by a comma ("修复这个错误，使用中文
# 回答"): each clause is read on its own, and the one that stands is what is proposed.
_CJK_CLAUSE = re.compile(r"[，；]")
# What holds beyond now however it is asked: a rule's always/never/不要/必须, "from now on"/以后/每次, a decision
# said as one, the person's own setup. A sentence with one of these is not a one-off request.
_STANDS: tuple[re.Pattern[str], ...] = (
    *_RULE_CUES,
    *LASTING_CUES,
    *PERSONAL_CUES,
    *_DECISION_CUES,
    *CHOICE_CUES,
)


@dataclass(frozen=True)
class Proposal:
    """One sentence of the person's, filed by capture: what becomes a pending memory."""

    text: str
    turn: int  # the turn's number in the session, 1-based: the first turn it was said in
    kind: str
    confidence: float
    personal: bool = False  # about the person wherever they work (`rules.PERSONAL_CUES`): the global vault
    standing: bool = False  # says it holds beyond now (`rules.STANDING_CUES`): proposed before the others
    said: int = 1  # in how many turns of the session the person said it: repetition is evidence


@dataclass(frozen=True)
class Heard:
    """A statement the person made in one turn (`heard`): what a session's proposals are chosen from."""

    text: str
    turn: int
    key: str  # the normalized words: the same statement said again has the same key


def sentences(text: str) -> list[str]:
    """The typed sentences of a turn, each one capture would take (short ones and pastes left out)."""
    found: list[str] = []
    for line in typed_lines(text):
        for part in _SENTENCE_END.split(line):
            sentence = part.strip(" \t-*•")
            if _long_enough(sentence) and len(sentence) <= MAX_SENTENCE_CHARS:
                found.append(sentence)
    return found


def heard(number: int, text: str) -> list[Heard]:
    """What one turn of the person's states that may hold beyond now (`worth_keeping`), in order: each typed
    sentence, or of a Chinese sentence that joins a request and a standing instruction by a comma, the
    clauses that stand. Pure and cheap (tables of patterns, no model): the prompt hook runs it on every prompt
    (docs/design.md, "Capture from a conversation")."""
    found = []
    for sentence in sentences(text):
        for unit in _units(sentence):
            if worth_keeping(unit):
                found.append(Heard(unit, number, normalize(unit)))
    return found


def _units(sentence: str) -> list[str]:
    """A sentence as the units capture reads: itself, or its standing clauses when it joins a one-off request
    with one ("修复 sina.py 中的错误，使用中文回答" → "使用中文回答")."""
    if not _CJK.search(sentence) or not _CJK_CLAUSE.search(sentence) or not _matches(ONE_OFF_CUES, sentence):
        return [sentence]
    clauses = [part.strip() for part in _CJK_CLAUSE.split(sentence)]
    standing = [c for c in clauses if _long_enough(c) and not _matches(ONE_OFF_CUES, c) and worth_keeping(c)]
    return standing or [sentence]


def distill(
    turns: Sequence[tuple[str, str]],
    classify_one: Callable[[str], Classification],
    min_confidence: float,
    limit: int,
    rejected: Callable[[str], bool] = lambda sentence: False,
) -> list[Proposal]:
    """Proposals from `turns` ((role, text), in order): what the person stated that holds beyond the moment
    (`heard`), each statement once however often it was said (at its first turn, `said` counting the turns),
    filed by `classify_one` as one of `DISTILLED_KINDS` with confidence ≥ `min_confidence`, none the person
    `rejected` before; at most `limit`: what was said in several turns first, then standing instructions, then
    the most confident (in turn order among equals)."""
    said: dict[str, list[Heard]] = {}
    for number, text in _user_turns(turns):
        for statement in heard(number, text):
            turns_of = said.setdefault(statement.key, [])
            if all(earlier.turn != number for earlier in turns_of):
                turns_of.append(statement)
    found = [proposal for group in said.values() if (proposal := _proposal(group, classify_one, min_confidence))]
    found = [proposal for proposal in found if not rejected(proposal.text)]
    ranked = sorted(found, key=lambda p: (-min(p.said, 2), not p.standing, -p.confidence, p.turn))
    return sorted(ranked[:limit], key=lambda proposal: proposal.turn)


def _proposal(
    group: list[Heard], classify_one: Callable[[str], Classification], min_confidence: float
) -> Proposal | None:
    """The proposal for a statement said in the turns of `group` (its first wording), or None when it is
    filed as a passing note or below `min_confidence`."""
    first = group[0]
    filed = classify_one(first.text)
    confidence = filed.confidence or 0.0
    kind = _kind(first.text, filed.kind)
    # A decision's or the person's own words settle it even where the model reads small talk ("Yes, let's go
    # with the factory approach", "使用中文回答"), and so does saying it again.
    settled = len(group) > 1 or _matches((*_DECISION_CUES, *PERSONAL_CUES, *DIRECTIVE_CUES), first.text)
    if kind not in DISTILLED_KINDS or (not settled and (filed.drop or confidence < min_confidence)):
        return None
    personal, standing = _matches(PERSONAL_CUES, first.text), _matches(STANDING_CUES, first.text)
    return Proposal(first.text, first.turn, kind, confidence, personal, standing, len(group))


def worth_keeping(sentence: str) -> bool:
    """Whether the sentence says it holds beyond now: a standing instruction, a choice of how the thing is
    built, a fact about the setup, a decision or an open task (rules.py, "What a session proposes") — and is
    not a request for now (`ONE_OFF_CUES`) unless it also says it stands (`_STANDS`)."""
    if _matches(NOT_A_STATEMENT, sentence):
        return False
    cues = (STANDING_CUES, CHOICE_CUES, FACT_CUES, PERSONAL_CUES, DIRECTIVE_CUES, _DECISION_CUES, _TASK_CUES)
    if not any(_matches(patterns, sentence) for patterns in cues):
        return False
    return not _matches(ONE_OFF_CUES, sentence) or _matches(_STANDS, sentence)


def _kind(sentence: str, filed: str) -> str:
    """The model's kind, except where the words settle it: a decision's cue, a choice the team lives with or a
    choice of how the thing is built files a decision (the model reads most decisions as rules or tasks) —
    unless a rule's always/never makes it a standing rule; a fact about the setup is knowledge, not a
    preference or a passing note."""
    if _matches(_DECISION_CUES, sentence) or (filed != "preference" and _matches(CHOICE_CUES, sentence)):
        return "decision"
    if filed in ("rule", "task", "note", "knowledge") and _matches(DIRECTIVE_CUES, sentence):
        return "rule" if filed == "rule" and _matches((*_RULE_CUES, *LASTING_CUES), sentence) else "decision"
    if filed in ("preference", "rule", "task", "note") and _matches(FACT_CUES, sentence):
        return filed if _matches(STANDING_CUES, sentence) and filed != "note" else "knowledge"
    return filed


def _long_enough(sentence: str) -> bool:
    words = len(_LATIN_WORD.findall(sentence)) + (len(_CJK.findall(sentence)) + 1) // 2
    return words >= MIN_WORDS


def _matches(patterns: Iterable[re.Pattern[str]], sentence: str) -> bool:
    return any(pattern.search(sentence) for pattern in patterns)


def _user_turns(turns: Iterable[tuple[str, str]]) -> Iterable[tuple[int, str]]:
    for number, (role, text) in enumerate(turns, start=1):
        if role == "user":
            yield number, text
