"""Choices (pure): the person picks one of the options the assistant's previous turn offered — "Let's go with
option 2", "A, please", "就用第二种方案", "用你说的第一个" — and the decision is that option, not the words "option
2", which a later session cannot read (docs/design.md, "Choices among the assistant's options").

`offered` reads the options of an assistant turn (headings or list items labelled "Option 2", "方案二", "B)",
"2."), `chosen` which one a turn of the person's picks (an ordinal, a letter, "the latter"/"后者") when it says
it picks, and `resolve` joins the two: the person's own sentence and the option's text, "Let's go with option 2:
pass the layers object to the factory". `with_choices` applies that to a session's proposals: a proposal that is
a bare reference is replaced by its resolution, or dropped when the option cannot be read (a reply cut short);
a choice heard nowhere else becomes a decision proposal. Nothing here writes: what comes out waits for review
like any capture.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from aimate_memory.capture.heard import line_sentences
from aimate_memory.text.scripts import is_cjk

if TYPE_CHECKING:  # distill reads with the kind model's numpy: the prompt hook resolves a choice without it
    from aimate_memory.capture.distill import Proposal

OPTION_CHARS = 200  # an option's text kept in the decision: its first line or sentence, at most this long
MAX_CHOICE_CHARS = 160  # a longer turn says more than which option: it is read as it is, not as a choice
CHOICE_CONFIDENCE = 0.9  # a proposal made from a resolved choice: the person's word and the option's text

_ORDINALS = {
    "1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6,
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5,
    "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
    "a": 1, "b": 2, "c": 3, "d": 4, "e": 5,
    "former": 1, "前者": 1, "latter": -1, "后者": -1, "last": -1, "最后": -1,
}  # fmt: skip
_NUMBER = r"[1-6]|one|two|three|four|five|first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th"
_OPTION_WORD = r"option|approach|choice|plan|solution|alternative|variant|proposal|idea|suggestion|way"
_ZH_NUMBER = r"[1-6一二两三四五六]"
_ZH_OPTION_WORD = r"方案|选项|办法|方法|思路|做法|建议|种|个|条|套|号"

# How an option is labelled in the assistant's turn, at a line's start (after Markdown's #, -, *, **).
_LABEL = re.compile(
    rf"^\s*(?:#{{1,6}}\s*)?(?:[-*+]\s+)?(?:\*\*|__)?\s*"
    rf"(?:(?:{_OPTION_WORD})\s+(?P<word>[1-6A-Ea-e])\b|(?:方案|选项|思路|做法)\s*(?P<zh>{_ZH_NUMBER}|[A-Ea-e])"
    rf"|(?P<number>[1-6])(?:[.)、:：]|\s*[)）])|[(（](?P<paren>[1-6A-Ea-e])[)）]|(?P<letter>[A-E])[.)、:：]"
    rf"|(?P<han>[一二三四五六])、)",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"\*\*|__|`|^#+\s*")
_LEAD = re.compile(r"^[\s:：.、)）\-–—*]+")

# What picks one: an ordinal with an option word ("option 2", "the second approach", "第二种方案", "方案二"), or
# a turn that is nothing but a label ("A, please", "2.", "选 B").
_PICK_EN = re.compile(
    rf"\b(?:(?:{_OPTION_WORD})\s*#?\s*(?P<after>{_NUMBER}|[A-E])\b"
    rf"|(?:the\s+)?(?P<before>{_NUMBER}|last)\s+(?:{_OPTION_WORD}|one)\b|the\s+(?P<side>former|latter)\b"
    rf"|#(?P<hash>[1-6])\b)",
    re.IGNORECASE,
)
_PICK_ZH = re.compile(
    rf"(?:第\s*(?P<nth>{_ZH_NUMBER})\s*(?:{_ZH_OPTION_WORD})|(?:方案|选项)\s*(?P<named>{_ZH_NUMBER}|[A-Ea-e])"
    rf"|(?:选|用)\s*(?P<picked>[1-6A-Ea-e])(?=$|[\s，。！,.!吧]|方案)|(?P<zside>前者|后者)|最后(?:一|那)(?:个|种))"
)
_BARE = re.compile(r"^\W*(?P<label>[A-E1-6])\s*(?:[,，.。!！]\s*)?(?:please|pls|thanks|吧|谢谢)?\W*$", re.IGNORECASE)
# A turn that picks says so: "go with", "let's do", "pick", "用", "选", "就", "按" — or is short and nothing else.
_PICKING = re.compile(
    r"\b(?:go(?:ing)? with|let'?s|pick|choose|chose|take|use|prefer|stick with|agree|sounds good|"
    r"i like|works for me|it is)\b|用|选|按|采用|同意|吧",
    re.IGNORECASE,
)
_POLITE = re.compile(r"\b(?:please|pls|thanks|thank you|ok|okay|yes)\b|请|谢谢|好的", re.IGNORECASE)
# Asking about an option is not picking it: "What are the pros and cons of option 2?", "方案二和方案三有什么区别".
_ASKING = re.compile(
    r"[?？]|\b(?:what|which|why|how|compare|pros|cons|difference|explain|tell me)\b"
    r"|吗|什么|哪|为什么|怎么|区别|优缺点|比较",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Option:
    """One option of an assistant's turn: where it stands in the list (1-based), its label, its text."""

    position: int
    label: str  # "2", "b", "二": as written, case-folded
    text: str


def offered(reply: str) -> list[Option]:
    """The options an assistant's turn offers: the items labelled "Option N"/"方案N" when there are two or
    more, else the last run of numbered or lettered items (the offer usually closes the turn: "Which one?")."""
    lines = reply.splitlines()
    labelled: list[tuple[int, str, bool]] = []  # (line, label, named "option"/"方案")
    for number, line in enumerate(lines):
        match = _LABEL.match(line)
        if match:
            as_option = match["word"] is not None or match["zh"] is not None
            label = next(group for group in match.groupdict().values() if group)
            labelled.append((number, label.casefold(), as_option))
    named = [item for item in labelled if item[2]]
    items = named if len(named) >= 2 else _last_run([item for item in labelled if not item[2]])
    return [
        Option(position, label, _option_text(lines, number)) for position, (number, label, _) in enumerate(items, 1)
    ]


def _last_run(items: list[tuple[int, str, bool]]) -> list[tuple[int, str, bool]]:
    """The last list among `items`: a list starts again where an item's label is its first ("1", "a", "一")."""
    runs: list[list[tuple[int, str, bool]]] = []
    for item in items:
        if not runs or _ORDINALS.get(item[1]) == 1:
            runs.append([])
        runs[-1].append(item)
    return runs[-1] if runs and len(runs[-1]) >= 2 else []


def _option_text(lines: list[str], number: int) -> str:
    """An option's text: what follows its label on its line, or the next non-empty line when the label stands
    alone ("## Option 2" then its description); Markdown left out, the first sentence, `OPTION_CHARS` at most."""
    match = _LABEL.match(lines[number])
    rest = lines[number][match.end() :] if match else lines[number]
    text = _clean(rest)
    following = (line for line in lines[number + 1 : number + 4] if _clean(line) and not _LABEL.match(line))
    if len(text) < 3:  # "## Option 2:" alone on its line
        text = _clean(next(following, ""))
    first = next((part for part in line_sentences(text) if part.strip()), text)
    return first.strip()[:OPTION_CHARS].rstrip()


def _clean(text: str) -> str:
    return _LEAD.sub("", _MARKUP.sub("", text.strip())).strip()


def chosen(turn: str) -> int | str | None:
    """Which option a turn of the person's picks: a position (1-based; -1 the last), a letter, or None when the
    turn does not pick one (asks about it, is long, names none)."""
    text = turn.strip()
    if not text or len(text) > MAX_CHOICE_CHARS or _ASKING.search(text):
        return None
    bare = _BARE.match(text)
    if bare:
        return _reference(bare["label"])
    match = _PICK_EN.search(text) or _PICK_ZH.search(text)
    if match is None or not _picks(text, match):
        return None
    if match.re is _PICK_ZH and match["zside"] is None and match[0].startswith("最后"):
        return -1
    return _reference(next(group for group in match.groupdict().values() if group))


def _picks(text: str, match: re.Match[str]) -> bool:
    """Whether the words around the reference pick it: a picking word, or nothing much else ("Option 2.")."""
    rest = _POLITE.sub("", text[: match.start()] + " " + text[match.end() :]).strip(" \t,.!，。！")
    return bool(_PICKING.search(rest)) or not rest


def _reference(label: str) -> int | str:
    key = label.casefold()
    if key in "abcde" and len(key) == 1:
        return key
    return _ORDINALS[key]


def pick(options: Sequence[Option], reference: int | str) -> Option | None:
    """The option a reference names: a letter by its label; a number by its label, else by its position."""
    if isinstance(reference, str):
        by_label = [option for option in options if option.label == reference]
        return by_label[0] if by_label else pick(options, _ORDINALS[reference])
    if reference == -1:
        return options[-1] if options else None
    for option in options:
        if _ORDINALS.get(option.label) == reference and not option.label.isalpha():
            return option
    return options[reference - 1] if 0 < reference <= len(options) else None


def resolve(turn: str, reply: str) -> str | None:
    """The decision a turn of the person's makes by picking one of `reply`'s options: their words and the
    option's text ("Let's go with option 2: pass the layers object to the factory"); None when the turn picks
    none, or picks one `reply` does not spell out (then its words alone are not worth keeping)."""
    reference = chosen(turn)
    option = pick(offered(reply), reference) if reference is not None else None
    if option is None or not option.text:
        return None
    words = turn.strip().rstrip(".。!！")
    joiner = "：" if any(is_cjk(char) for char in words) else ": "
    return f"{words}{joiner}{option.text}"


@dataclass(frozen=True)
class Choice:
    """A turn of the person's that picks an option: the decision it makes, or None when the option cannot be
    read (the assistant's turn was cut short, or offered no list)."""

    turn: int  # 1-based, as `distill` numbers turns
    decision: str | None


def choices(turns: Sequence[tuple[str, str]]) -> dict[int, Choice]:
    """The turns of `turns` ((role, text), in order) that pick one of the options of the assistant turn before
    them, by turn number."""
    found: dict[int, Choice] = {}
    reply = ""
    for number, (role, text) in enumerate(turns, start=1):
        if role == "assistant":
            reply = text
        elif role == "user":
            if chosen(text) is not None:
                found[number] = Choice(number, resolve(text, reply))
            reply = ""  # an option is picked from the reply just before, never an older one
    return found


def with_choices(proposals: Sequence[Proposal], picked: dict[int, Choice]) -> list[Proposal]:
    """A session's proposals with its choices resolved: a proposal of a turn that picks an option is replaced by
    the decision (dropped when the option cannot be read); a resolved choice no proposal carried is added as a
    decision. In turn order."""
    from aimate_memory.capture.distill import Proposal

    kept: list[Proposal] = []
    carried: set[int] = set()
    for proposal in proposals:
        choice = picked.get(proposal.turn)
        if choice is None or chosen(proposal.text) is None:
            kept.append(proposal)
            continue
        carried.add(proposal.turn)
        if choice.decision is not None:
            kept.append(replace(proposal, text=choice.decision, kind="decision"))
    added = [
        Proposal(choice.decision, choice.turn, "decision", CHOICE_CONFIDENCE)
        for choice in picked.values()
        if choice.decision is not None and choice.turn not in carried
    ]
    return sorted([*kept, *added], key=lambda proposal: proposal.turn)
