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

# The kinds a session may propose: notes and project descriptions are too transient or too rare in dialogue.
DISTILLED_KINDS = frozenset({"rule", "preference", "decision", "knowledge", "task"})
MIN_WORDS = 3  # "ok", "yes please", "好的" are never worth a proposal
MAX_SENTENCE_CHARS = 300  # longer than a typed sentence: a paste
_FENCE = re.compile(r"^\s*(```|~~~)")
_QUOTED = re.compile(r"^\s*>")
_INDENTED_CODE = re.compile(r"^(?: {4}|\t)\S")
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=[.])(?=\s)")
_LATIN_WORD = re.compile(r"[A-Za-z0-9_]+")
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Proposal:
    """One sentence of the person's, filed by capture: what becomes a pending memory."""

    text: str
    turn: int  # the turn's number in the session, 1-based
    kind: str
    confidence: float


def typed_lines(text: str) -> list[str]:
    """The lines of a turn the person typed: fenced blocks, indented code and quoted lines left out."""
    kept: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or _QUOTED.match(line) or _INDENTED_CODE.match(line):
            continue
        kept.append(line)
    return kept


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
) -> list[Proposal]:
    """Proposals from `turns` ((role, text), in order): the user's sentences that `classify_one` files as one
    of `DISTILLED_KINDS` with confidence ≥ `min_confidence`, at most `limit`, most confident first (in turn
    order among equals), each sentence once."""
    found: dict[str, Proposal] = {}
    for number, text in _user_turns(turns):
        for sentence in sentences(text):
            if sentence in found:
                continue
            filed = classify_one(sentence)
            confidence = filed.confidence or 0.0
            if not filed.drop and filed.kind in DISTILLED_KINDS and confidence >= min_confidence:
                found[sentence] = Proposal(sentence, number, filed.kind, confidence)
    ranked = sorted(found.values(), key=lambda proposal: (-proposal.confidence, proposal.turn))
    return sorted(ranked[:limit], key=lambda proposal: proposal.turn)


def _user_turns(turns: Iterable[tuple[str, str]]) -> Iterable[tuple[int, str]]:
    for number, (role, text) in enumerate(turns, start=1):
        if role == "user":
            yield number, text
