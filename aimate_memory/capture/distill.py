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
from aimate_memory.capture.rules import CHOICE_CUES, FACT_CUES, NOT_A_STATEMENT, PERSONAL_CUES, RULES, STANDING_CUES
from aimate_memory.text.typed import typed_lines

# The kinds a session may propose: a note is what passes.
DISTILLED_KINDS = frozenset({"rule", "preference", "decision", "knowledge", "project", "task"})
MIN_WORDS = 3  # "ok", "yes please", "好的" are never worth a proposal
MAX_SENTENCE_CHARS = 300  # longer than a typed sentence: a paste
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=[.])(?=\s)")
_LATIN_WORD = re.compile(r"[A-Za-z0-9_]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_DECISION_CUES, _TASK_CUES = (
    tuple(pattern for rule in RULES if rule.name == name for group in rule.patterns.values() for pattern in group)
    for name in ("decision", "task")
)


@dataclass(frozen=True)
class Proposal:
    """One sentence of the person's, filed by capture: what becomes a pending memory."""

    text: str
    turn: int  # the turn's number in the session, 1-based
    kind: str
    confidence: float
    personal: bool = False  # about the person wherever they work (`rules.PERSONAL_CUES`): the global vault
    standing: bool = False  # says it holds beyond now (`rules.STANDING_CUES`): proposed before the others


def sentences(text: str) -> list[str]:
    """The typed sentences of a turn, each one capture would take (short ones and pastes left out)."""
    found: list[str] = []
    for line in typed_lines(text):
        for part in _SENTENCE_END.split(line):
            sentence = part.strip(" \t-*•")
            words = len(_LATIN_WORD.findall(sentence)) + (len(_CJK.findall(sentence)) + 1) // 2
            if words >= MIN_WORDS and len(sentence) <= MAX_SENTENCE_CHARS:
                found.append(sentence)
    return found


def distill(
    turns: Sequence[tuple[str, str]],
    classify_one: Callable[[str], Classification],
    min_confidence: float,
    limit: int,
    rejected: Callable[[str], bool] = lambda sentence: False,
) -> list[Proposal]:
    """Proposals from `turns` ((role, text), in order): the user's sentences that say they hold beyond the
    moment (`worth_keeping`) and that `classify_one` files as one of `DISTILLED_KINDS` with confidence ≥
    `min_confidence`, each sentence once, none the person `rejected` before; at most `limit`, standing
    instructions first, then the most confident (in turn order among equals)."""
    found: dict[str, Proposal] = {}
    for number, text in _user_turns(turns):
        for sentence in sentences(text):
            if sentence in found or not worth_keeping(sentence) or rejected(sentence):
                continue
            filed = classify_one(sentence)
            confidence = filed.confidence or 0.0
            kind = _kind(sentence, filed.kind)
            # A decision's or the person's own words settle it even where the model reads small talk
            # ("Yes, let's go with the factory approach", "使用中文回答").
            settled = _matches(_DECISION_CUES, sentence) or _matches(PERSONAL_CUES, sentence)
            if kind not in DISTILLED_KINDS or (not settled and (filed.drop or confidence < min_confidence)):
                continue
            standing = _matches(STANDING_CUES, sentence)
            found[sentence] = Proposal(sentence, number, kind, confidence, _matches(PERSONAL_CUES, sentence), standing)
    ranked = sorted(found.values(), key=lambda proposal: (not proposal.standing, -proposal.confidence, proposal.turn))
    return sorted(ranked[:limit], key=lambda proposal: proposal.turn)


def worth_keeping(sentence: str) -> bool:
    """Whether the sentence says it holds beyond now: a standing instruction, a fact about the setup, a
    decision or an open task (rules.py, "What a session proposes"); a request for now is not a memory."""
    if _matches(NOT_A_STATEMENT, sentence):
        return False
    cues = (STANDING_CUES, CHOICE_CUES, FACT_CUES, PERSONAL_CUES, _DECISION_CUES, _TASK_CUES)
    return any(_matches(patterns, sentence) for patterns in cues)


def _kind(sentence: str, filed: str) -> str:
    """The model's kind, except where the words settle it: a decision's cue or a choice the team lives with
    files a decision (the model reads most decisions as rules or tasks); a fact about the setup is knowledge,
    not a preference or a passing note."""
    if _matches(_DECISION_CUES, sentence) or (filed != "preference" and _matches(CHOICE_CUES, sentence)):
        return "decision"
    if filed in ("preference", "rule", "task", "note") and _matches(FACT_CUES, sentence):
        return filed if _matches(STANDING_CUES, sentence) and filed != "note" else "knowledge"
    return filed


def _matches(patterns: Iterable[re.Pattern[str]], sentence: str) -> bool:
    return any(pattern.search(sentence) for pattern in patterns)


def _user_turns(turns: Iterable[tuple[str, str]]) -> Iterable[tuple[int, str]]:
    for number, (role, text) in enumerate(turns, start=1):
        if role == "user":
            yield number, text


def says(kind: str, sentence: str) -> bool:
    """Whether the sentence carries a "decision" or "task" cue of rules.py: also what a session's episode
    takes as decided or left open (sessions/episode.py), one rule for both."""
    return _matches({"decision": _DECISION_CUES, "task": _TASK_CUES}[kind], sentence)
