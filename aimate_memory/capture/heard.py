"""What a turn of the person's states that may hold beyond now (pure, and cheap: tables of patterns, no model).
The prompt hook runs it on every prompt as it comes, the session's end on every turn (capture/distill.py
files what it hears); docs/design.md, "Capture from a conversation".

Only what the person typed counts (`text/typed.py`: no pasted code, logs or quoted replies), and of that only
what says in its words that it stands: a standing instruction, a choice of how the thing is built, a fact
about the setup, a decision or an open task (the cue tables of `rules.py`) — never a question, a guess, or a
request for now.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from aimate_memory.capture.rules import (
    AT_HAND_CUES,
    BROKEN_STATE,
    CHOICE_CUES,
    DIRECTIVE_CUES,
    FACT_CUES,
    HEDGED_ADVICE,
    INSTRUCTION_FILE_CHANGE,
    LASTING_CUES,
    LIMITATION,
    NO_RULE_MEANT,
    NO_RULE_MEANT_ZH,
    NOT_A_STATEMENT,
    ONE_OFF_CUES,
    PERSONAL_CUES,
    PREFERENCE_ZH,
    PROBLEM_OF_THE_MOMENT,
    PROPOSED_CHANGE,
    RECURRING_SITUATION,
    RULES,
    STANDING_CUES,
    WAY_OF_WORKING,
)
from aimate_memory.capture.supersede import normalize
from aimate_memory.text.typed import typed_lines

MIN_WORDS = 3  # "ok", "yes please", "好的" are never worth a proposal
MAX_SENTENCE_CHARS = 300  # longer than a typed sentence: a paste
# A turn this long mostly carries what the person pasted (a plan, a report, an assistant's answer): of its
# sentences a session proposes only those that say they stand or were said again, and after those of shorter
# turns (capture/distill.py; replay dev projects: a heard sentence of such a turn was a labelled statement 8
# times in 58, of a shorter one 45 in 94).
LONG_TURN_CHARS = 400
# A full stop ends a sentence before a space, and so does one inside a closing quote ('… to update `docs/`." If').
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=[.])(?=\s)|(?<=\.[\"'”’])(?=\s)")
# A sentence's end inside brackets is not one ("用户代理：Mozilla/5.0 (Windows NT 10.0; Win64)", "（如 A；B）"): the
# pieces a split leaves with a bracket open are joined back.
_OPENS, _CLOSES = "(（[【", ")）]】"
_LATIN_WORD = re.compile(r"[A-Za-z0-9_]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
# A key held down ("runnning", "reallly"): read as the word it was meant to be, or no cue would match it.
_HELD_DOWN = re.compile(r"([A-Za-z])\1{2,}")
# A remark in brackets ("Please create a commit message for these changes (added basic testing with vitest)"):
# when the sentence around it asks for now, the aside may still state how the project stands.
_ASIDE = re.compile(r"[(（]([^()（）]+)[)）]")
_EMPHASIS = re.compile(r"(?<!\w)[_*]{1,2}([^\s_*][^_*]*?)[_*]{1,2}(?!\w)")  # Markdown's _word_ and **word**
DECISION_CUES, TASK_CUES, RULE_CUES = (
    tuple(pattern for rule in RULES if rule.name == name for group in rule.patterns.values() for pattern in group)
    for name in ("decision", "task", "rule")
)
# A Chinese sentence is often a request and a standing instruction joined by a comma ("修复这个错误，使用中文
# 回答"): each clause is read on its own, and the one that stands is what is proposed.
# A request often follows the statement without a comma ("…日志就无法输出到指定文件请查看相关文件并修复"): a 请
# after other words (not 申请 / 邀请, nor the nouns 请求 / 请假) begins a clause too.
_REQUEST_START = r"(?<=[\w)）])(?<![申邀聘提])(?=请(?![求假教]))"
_CJK_CLAUSE = re.compile(rf"[，；]|{_REQUEST_START}")
_CLAUSE_END = re.compile(rf"(?<=[，；])|{_REQUEST_START}")
# A Chinese line that numbers its items inline ("1 爬取的连接有问题 ，2 去掉api结构选项3 重构该爬虫"): each item
# is a sentence of its own. A marker is one digit after Chinese text, a Chinese comma or the line's start, then a
# space or 、/./) and Chinese text; a line is split only when it has two or more ("Vue 3 的组件" is no list).
_INLINE_ITEM = re.compile(r"(?:^|(?<=[\u3400-\u9fff，,；;：:。]))\s*[1-9](?:[、.．)）]\s*|\s+)(?=[\u3400-\u9fff])")
# What holds beyond now however it is asked: a rule's always/never/不要/必须, "from now on"/以后/每次, a decision
# said as one, the person's own setup. A sentence with one of these is not a one-off request.
STANDS: tuple[re.Pattern[str], ...] = (
    *RULE_CUES,
    *LASTING_CUES,
    *RECURRING_SITUATION,
    *PERSONAL_CUES,
    *PREFERENCE_ZH,
    *DECISION_CUES,
    *CHOICE_CUES,
)
# What makes a request for the work at hand hold beyond now after all: a rule's always/never/不要/必须, "from now
# on"/以后/每次, the person's taste or setup ("from now on write me the commit message in English"). A decision's
# or a choice's words do not: "let's go with your recommendation" and "请把 A 换成 B" are one change, asked once.
STANDS_ALTHOUGH_AT_HAND: tuple[re.Pattern[str], ...] = (
    *RULE_CUES,
    *LASTING_CUES,
    *PERSONAL_CUES,
    *WAY_OF_WORKING,
    INSTRUCTION_FILE_CHANGE,
    *(pattern for rule in RULES if rule.name == "preference" for group in rule.patterns.values() for pattern in group),
)


@dataclass(frozen=True)
class Heard:
    """A statement the person made in one turn (`heard`): what a session's proposals are chosen from."""

    text: str
    turn: int
    key: str  # the normalized words: the same statement said again has the same key
    in_paste: bool = False  # said inside a long turn (`LONG_TURN_CHARS`): likely quoted material, asked last


def sentences(text: str) -> list[str]:
    """The typed sentences of a turn, each one capture would take (short ones and pastes left out)."""
    found: list[str] = []
    for line in typed_lines(text):
        for part in (item for piece in split_outside_brackets(_SENTENCE_END, line) for item in _items(piece)):
            sentence = part.strip(" \t-*•，,")
            if long_enough(sentence) and len(sentence) <= MAX_SENTENCE_CHARS:
                found.append(sentence)
    return found


def heard(number: int, text: str) -> list[Heard]:
    """What one turn of the person's states that may hold beyond now (`worth_keeping`), in order: each typed
    sentence, or of a Chinese sentence that joins a request and a standing instruction by a comma, the
    clauses that stand — or, when it holds nothing, a fact it gives in brackets (`_asides`). Pure and cheap
    (tables of patterns, no model): the prompt hook runs it on every prompt
    (docs/design.md, "Capture from a conversation")."""
    found: list[Heard] = []
    long_turn = len(text.strip()) > LONG_TURN_CHARS
    for sentence in sentences(text):
        kept = [unit for unit in _units(sentence) if worth_keeping(unit)] or _asides(sentence)
        found.extend(Heard(unit, number, normalize(unit), long_turn) for unit in kept)
    return found


def _asides(sentence: str) -> list[str]:
    """The bracketed remarks of a sentence that holds nothing itself, those that state a fact about the project
    (`FACT_CUES`: how it stands, a change the person made) on their own, in the person's words without the
    brackets. Not any aside that would be heard: a plan's "(使用合适的设计模式)" is a note on its item."""
    asides = (aside.strip() for aside in _ASIDE.findall(sentence))
    return [aside for aside in asides if long_enough(aside) and matches(FACT_CUES, aside) and worth_keeping(aside)]


def split_outside_brackets(boundary: re.Pattern[str], text: str) -> list[str]:
    """`text` split at `boundary` (a zero-width pattern: the pieces keep their marks, joined they are `text`),
    except where a bracket is open: a piece that leaves one open takes the next ones until it closes, when it
    closes later in `text`."""
    pieces: list[str] = []
    depth, seen = 0, 0
    for piece in boundary.split(text):
        seen += len(piece)
        if depth > 0 and pieces:
            pieces[-1] += piece
        else:
            pieces.append(piece)
        depth = max(0, depth + _count(piece, _OPENS) - _count(piece, _CLOSES))
        if not _count(text[seen:], _CLOSES):
            depth = 0  # never closed (a smiley, a typo): the marks split as they would without it
    return pieces


def _count(text: str, marks: str) -> int:
    return sum(text.count(mark) for mark in marks)


def _items(piece: str) -> list[str]:
    """A piece of a line, or its inline numbered items when it numbers two or more (`_INLINE_ITEM`)."""
    if len(_INLINE_ITEM.findall(piece)) < 2:
        return [piece]
    return [item for item in _INLINE_ITEM.split(piece) if item.strip()]


def _units(sentence: str) -> list[str]:
    """A sentence as the units capture reads: itself, or its standing clauses when it joins a one-off request
    with them ("修复 sina.py 中的错误，使用中文回答" → "使用中文回答"). Standing clauses said one after the other
    stay one unit, in the person's words: a fact and the decision it explains ("我们根本没有api获取渠道，去掉api
    获取部分") are one statement."""
    if not _CJK.search(sentence) or not _CJK_CLAUSE.search(sentence) or not _for_now(sentence):
        return [sentence]
    runs: list[list[str]] = [[]]
    for clause in split_outside_brackets(_CLAUSE_END, sentence):  # each keeps its comma: joined back verbatim
        bare = clause.rstrip("，；")
        if long_enough(bare) and (reports_problem(bare) or not _for_now(bare)) and worth_keeping(bare):
            runs[-1].append(clause)
        elif runs[-1]:
            runs.append([])
    standing = ["".join(run).rstrip("，；").strip() for run in runs if run]
    return standing or [sentence]


def _for_now(text: str) -> bool:
    return matches(ONE_OFF_CUES, text) or matches(AT_HAND_CUES, text)


def worth_keeping(sentence: str) -> bool:
    """Whether the sentence says it holds beyond now: a standing instruction, a choice of how the thing is
    built, a fact about the setup, a decision or an open task (rules.py, "What a session proposes") — and is
    not a request for now (`ONE_OFF_CUES`) unless it also says it stands (`STANDS`)."""
    sentence = HEDGED_ADVICE.sub(r"\1", _EMPHASIS.sub(r"\1", _HELD_DOWN.sub(r"\1\1", sentence)))
    if matches(NOT_A_STATEMENT, sentence) and not matches(PROPOSED_CHANGE, sentence):
        return False
    if reports_problem(sentence):
        return True
    for cue_of_none in (*NO_RULE_MEANT, *NO_RULE_MEANT_ZH):  # "never disappears" reports a bug; it is no "never" rule
        sentence = cue_of_none.sub(" ", sentence)
    if asks_for_now(sentence):
        return False
    cues = (STANDING_CUES, CHOICE_CUES, FACT_CUES, PERSONAL_CUES, DIRECTIVE_CUES, DECISION_CUES, TASK_CUES)
    if not any(matches(patterns, sentence) for patterns in cues):
        return False
    return not matches(ONE_OFF_CUES, sentence) or matches(STANDS, sentence)


def asks_for_now(text: str) -> bool:
    """Whether the text asks for the work at hand (`rules.AT_HAND_CUES`: "Please create a commit message for these
    changes", "帮我写一下这次改动的提交信息", "then rename the branch", "请把 A 改成 B") and says nothing that makes it
    hold beyond now (`STANDS_ALTHOUGH_AT_HAND`). Never proposed from a conversation; kept by `remember` as a task
    for now, not a rule (docs/design.md, "One-off requests")."""
    return matches(AT_HAND_CUES, text) and not matches(STANDS_ALTHOUGH_AT_HAND, text)


def reports_problem(sentence: str) -> bool:
    """Whether the sentence reports, as a fact, a problem of the project (`rules.BROKEN_STATE`: "网易爬虫也没注册",
    "web页面无法启动") and names what is broken before it ("无法正常输出" alone names nothing) — neither asking
    about it, following an earlier report up nor tying it to the moment (`PROBLEM_OF_THE_MOMENT`): an open task
    a later request builds on, its 无法 no request for now."""
    if PROBLEM_OF_THE_MOMENT.search(sentence):
        return False
    if matches(LIMITATION, sentence):
        return True  # it names what is limited in its own words
    hits = (hit for pattern in BROKEN_STATE if (hit := pattern.search(sentence)))
    return any(hit.group() == "只有" or word_count(sentence[: hit.start()]) >= 1 for hit in hits)


def word_count(text: str) -> int:
    """A text's words, a Chinese word ~2 characters (as in text/scripts.py): "好的，收到" is as short as "ok,
    got it". What `long_enough` and the kind model's length features (capture/model.py) count."""
    return len(_LATIN_WORD.findall(text)) + (len(_CJK.findall(text)) + 1) // 2


def long_enough(sentence: str) -> bool:
    return word_count(sentence) >= MIN_WORDS


def matches(patterns: Iterable[re.Pattern[str]], sentence: str) -> bool:
    return any(pattern.search(sentence) for pattern in patterns)


def line_sentences(line: str) -> list[str]:
    """One line cut into its sentences, marks kept and brackets whole: the one sentence splitter, which
    capture/choice.py reads an option's first sentence with too."""
    return split_outside_brackets(_SENTENCE_END, line)
