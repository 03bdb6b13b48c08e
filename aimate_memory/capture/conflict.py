"""Conflicts (pure): does a new core memory or decision disagree with an active one on the same subject?

"I prefer 4-space indentation" and "我习惯用 Tab 缩进" are about one subject and take different sides; both
in core would both reach every session. The caller gathers the candidates (active core memories and
decisions of the vault, with their cosine to the new text in the multilingual USE space, which puts English
and Chinese in one space); this module decides, from the table in `capture/data/conflict_rules.json`:

1. **A slot both texts fill, with different values** — a slot is a subject a memory takes a side on
   (indentation, cache, database, test runner, reply language…), its values the sides (tabs, 4 spaces;
   Redis, Memcached). A value the text turns away from ("not npm", "不再用 npm", "from Redis to…", "Redis
   换成…") counts against it. Disagreement: one affirms what the other rejects, or both affirm values
   and share none. The slot decides whenever both texts name a value of it — "Use ruff" and "Don't use
   flake8 anymore" agree — at a low cosine bar (`subject_threshold`): a shared slot is itself the subject.
   A value named only inside an example in brackets ("（如 … 'element-plus' …）", "(e.g. black)") takes no side.
2. **A place both texts keep one kind of file in, moved**: `docs/plans` here, `notes/plans` there (paths that
   share a folder below different roots), at the low bar too — "the plans go to notes/plans now".
3. **An approach to one thing, changed**: "将现有爬虫迁移到基于策略模式的实现" against "将爬虫的启动统一改到直接
   导入爬虫的方法" — a frame of the table names the thing and the way (a phrase ending in an approach word:
   方法, 模式, approach, pattern…); a shared word of the things and no shared word of the ways is a slot with
   open values, at the low bar too. Ways that share a word ("策略模式" both times) say it again.
4. **Otherwise, the same subject by the cosine alone** (`polarity_threshold`, higher) **and** one text
   negated where the other is not ("Use type hints everywhere" / "Don't add type hints"), or the new text
   saying it changes something ("…改用…", "switched to", "no longer"). In one script, what the negation or
   the change turns away from ("don't *create extra files*", "instead of *a hyphen*") must share a word with
   the other text: two requests that are merely near ("fix the imports" / "don't make careless mistakes",
   cosine .44) are not opposed. A negation inside a condition ("if the docs have not been updated") is not
   the sentence's stance. A negation of an excess ("don't create *extra* files", "不要创建*多余*的文件")
   turns away from more of a thing than needed, not from the thing: "create a test file" does not oppose it
   unless it names an excess too (issue 39's replay).

A conflict is not a supersede (capture/supersede.py): a supersede is a restatement, which replaces the old
memory on its own; a conflict waits for the person to say which one holds. Both thresholds were chosen on
the development split of tests/data/conflict_pairs.jsonl by scripts/conflict_eval.py (docs/benchmarks.md,
"Conflicts").
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from importlib import resources
from typing import Any, Literal, NamedTuple

from aimate_memory.capture.supersede import keyword_set
from aimate_memory.text.scripts import is_cjk, script_of

# Latin patterns never match inside a word: "ts" is not in "tests", "js" not in "vue.js"'s "vue".
_BEFORE = r"(?<![A-Za-z0-9_.])"
_AFTER = r"(?![A-Za-z0-9_])"
NUMBER_VALUE = "#"  # a value name meaning "the pattern's group is the value" (line lengths, versions)
Evidence = Literal["slot", "place", "approach", "polarity", "change"]
PLACE_SLOT = "file location"
APPROACH_SLOT = "approach"
# A folder path as people write it: `docs/plans/`, '../notes/src/', notes\plans, app/core/base.py (not a URL).
_PATH = re.compile(r"(?<![\w:/\\.])(?:\.{1,2}[/\\]|~[/\\])*([A-Za-z0-9_][\w.-]*(?:[/\\][\w.-]+)+)[/\\]?(?![\w:])")
_CLAUSE_END = re.compile(r"[,.;:!?，。；：！？、\n]")
_OBJECT_WORD = re.compile(r"[\u3400-\u9fff]|[^\W_]+")  # a CJK character, or a Latin word
OBJECT_WORDS = 5  # the words after a negation that say what it turns away from


def _alternation(patterns: Iterable[str]) -> str:
    """One pattern matching any of `patterns` as a whole word. The word bounds are written once around the
    alternation, not around each pattern: `B(?:p|q)A` matches what `BpA|BqA` does, in the same order, and
    the bounds' character classes were two thirds of compiling the table (~340 → ~110 ms CPU, every process
    that checks a conflict: issue 38). None at all never matches."""
    listed = [f"(?:{pattern})" for pattern in patterns]
    return f"{_BEFORE}(?:{'|'.join(listed)}){_AFTER}" if listed else "(?!)"


def _compile(patterns: Iterable[str]) -> re.Pattern[str]:
    return re.compile(_alternation(patterns), re.IGNORECASE)


@dataclass(frozen=True)
class Slot:
    """A subject a memory takes a side on, and the sides (value name → pattern). Its patterns are compiled the
    first time a text names a value of the table (`ConflictRules.any_value`), not when the table is read: a cold
    `remember` compiled all 34 slots' (~100 ms of CPU) to read texts naming two or three (issue 38)."""

    name: str
    subject_patterns: tuple[str, ...]
    subject_required: bool
    value_patterns: tuple[tuple[str, tuple[str, ...]], ...]

    @cached_property
    def subject(self) -> re.Pattern[str]:
        return _compile(self.subject_patterns)

    @cached_property
    def values(self) -> tuple[tuple[str, re.Pattern[str]], ...]:
        return tuple((name, _compile(patterns)) for name, patterns in self.value_patterns)

    @cached_property
    def any_value(self) -> re.Pattern[str]:
        """One scan says whether to look value by value (most texts name none)."""
        return _compile(pattern for _, patterns in self.value_patterns for pattern in patterns)


@dataclass(frozen=True)
class ConflictRules:
    """The table, compiled."""

    slots: tuple[Slot, ...]
    any_value: re.Pattern[str]  # any value of any slot
    rejects_next: re.Pattern[str]  # matched at the end of the text before a value: "not ", "不再用"
    rejects_previous: re.Pattern[str]  # matched at the start of the text after a value: " 换成", " was replaced"
    negation: re.Pattern[str]
    not_negation: re.Pattern[str]
    change: re.Pattern[str]
    departure: re.Pattern[str]  # change words naming what is left: "instead of", "而不是"
    excess: re.Pattern[str] = re.compile("(?!)")  # more than needed: "extra", "多余"
    examples: re.Pattern[str] = re.compile("(?!)")  # an example in brackets: "（如 …）", "(e.g. …)"
    approach_frames: tuple[re.Pattern[str], ...] = ()  # each with the groups `thing` and `way`
    approach_head: re.Pattern[str] = re.compile("(?!)")  # the approach word a way ends in: "方法", "pattern"
    approach_filler: re.Pattern[str] = re.compile("(?!)")  # words before the thing that are not it: "the", "可以"
    approach_borrowed: re.Pattern[str] = re.compile("(?!)")  # a way pointing at another's: "the same way as", "相同"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConflictRules:
        slots = tuple(
            Slot(
                str(slot["name"]),
                tuple(slot["subject"]),
                bool(slot.get("subject_required")),
                tuple((str(name), tuple(patterns)) for name, patterns in slot["values"].items()),
            )
            for slot in data["slots"]
        )
        every_value = [
            pattern for slot in data["slots"] for patterns in slot["values"].values() for pattern in patterns
        ]
        filler = rf"(?:\s*(?:{_alternation(data['value_filler'])}))*\s*"
        return cls(
            slots=slots,
            any_value=_compile(every_value),
            rejects_next=re.compile(rf"(?:{_alternation(data['rejects_next'])}){filler}$", re.IGNORECASE),
            rejects_previous=re.compile(rf"^\s*(?:{_alternation(data['rejects_previous'])})", re.IGNORECASE),
            negation=_compile(data["negations"]),
            not_negation=_compile(data["not_negations"]),
            change=_compile(data["changes"]),
            departure=_compile(data.get("departures", ())),
            excess=_compile(data.get("excess", ())),
            examples=re.compile("|".join(data.get("examples", ())) or "(?!)", re.IGNORECASE),
            **_approach_rules(data),
        )


def _approach_rules(data: Mapping[str, Any]) -> dict[str, Any]:
    """The approach frames, `{head}` in each standing for any approach word."""
    heads = "|".join(str(head) for head in data.get("approach_heads", ()))
    if not heads:
        return {}
    frames = tuple(
        re.compile(str(frame).replace("{head}", heads), re.IGNORECASE) for frame in data.get("approach_frames", ())
    )
    fillers = "|".join(str(filler) for filler in data.get("approach_thing_fillers", ()))
    return {
        "approach_frames": frames,
        "approach_head": re.compile(rf"(?:{heads})s?", re.IGNORECASE),
        "approach_borrowed": _compile(data.get("approach_borrowed", ())),
        # A Latin filler is a whole word ("we", not "web"); a Chinese one has no word bounds to keep.
        "approach_filler": re.compile(rf"^(?:(?:{fillers or '(?!)'})(?:\b|(?<=[\u3400-\u9fff]))\s*)+", re.IGNORECASE),
    }


@dataclass(frozen=True)
class Approach:
    """A way of doing a thing a text names: the thing and the way as written, and their keywords (the way's
    without its approach word: "the strategy pattern" and "the factory pattern" share none)."""

    thing: str
    way: str
    thing_terms: frozenset[str]
    way_terms: frozenset[str]


def approaches(text: str, rules: ConflictRules) -> tuple[Approach, ...]:
    """The approaches `text` names, by the table's frames (the first frame that matches a stretch wins)."""
    found: list[Approach] = []
    taken: list[range] = []
    for frame in rules.approach_frames:
        for match in frame.finditer(text):
            if any(match.start() in span or match.end() - 1 in span for span in taken):
                continue  # a stretch one frame read already: "将…迁移到基于…模式" is not read twice
            thing = rules.approach_filler.sub("", match["thing"].strip())
            way = match["way"].strip()
            if rules.approach_borrowed.search(way):
                continue  # "和东方财富爬虫的相同方式": another thing's way, named elsewhere
            thing_terms, way_terms = _terms(thing), _terms(rules.approach_head.sub(" ", way))
            if thing_terms and way_terms:  # a way that is only its approach word ("a method") says no side
                found.append(Approach(thing, way, thing_terms, way_terms))
                taken.append(range(match.start(), match.end()))
    return tuple(found)


def _terms(text: str) -> frozenset[str]:
    """Keywords of two characters or more: a lone CJK character ("件" of 文件 and 条件) names no thing."""
    return frozenset(term for term in keyword_set(text) if len(term) >= 2)


def changed_approach(new: Reading, old: Reading) -> tuple[Approach, Approach] | None:
    """One thing both texts give a way for, with ways sharing no word; None when there is none."""
    for here, there in _same_things(new, old):
        if not here.way_terms & there.way_terms:
            return here, there
    return None


def kept_approach(new: Reading, old: Reading) -> Approach | None:
    """A thing both texts give the same way for (their ways share a word): they agree on it."""
    return next((here for here, there in _same_things(new, old) if here.way_terms & there.way_terms), None)


def _same_things(new: Reading, old: Reading) -> Iterator[tuple[Approach, Approach]]:
    for here in new.approaches:
        for there in old.approaches:
            if here.thing_terms & there.thing_terms:
                yield here, there


@cache
def default_rules() -> ConflictRules:
    """The shipped table (`capture/data/conflict_rules.json`), read once per process."""
    table = resources.files("aimate_memory.capture").joinpath("data").joinpath("conflict_rules.json")
    text = table.read_text(encoding="utf-8")
    return ConflictRules.from_dict(json.loads(text))


def normalized(text: str) -> str:
    """NFKC (full-width letters and digits become ASCII), curly apostrophes straight."""
    return unicodedata.normalize("NFKC", text).replace("’", "'")


@dataclass(frozen=True)
class SlotReading:
    """The values of one slot a text names: those it stands for and those it turns away from."""

    affirmed: frozenset[str]
    rejected: frozenset[str]


@dataclass(frozen=True)
class Reading:
    """What the table finds in one text."""

    slots: Mapping[str, SlotReading]  # only the slots it names a value of
    negated: bool
    changes: bool
    places: frozenset[tuple[str, ...]] = frozenset()  # folders it names, as lower-case segments
    script: str = "latin"
    terms: frozenset[str] = frozenset()  # its keywords (capture/supersede.py `keyword_set`)
    turned_from: frozenset[str] = frozenset()  # the keywords of what it negates or leaves ("don't X", "instead of X")
    approaches: tuple[Approach, ...] = ()  # the ways of doing things it names
    names_excess: bool = False  # it names more of something than needed ("extra files", "多余的文件")
    turns_from_excess: bool = False  # what it negates or leaves is such an excess ("don't create extra files")


def read(text: str, rules: ConflictRules | None = None) -> Reading:
    """What the table finds in `text`. With the shipped table the answer is remembered (a process reads the
    same titles at every check)."""
    return _read(text, rules) if rules is not None else _read_shipped(text)


@lru_cache(maxsize=4096)
def _read_shipped(text: str) -> Reading:
    return _read(text, default_rules())


def _read(text: str, rules: ConflictRules) -> Reading:
    text = normalized(text)
    slots = _slots(rules.examples.sub(" ", text), rules)
    plain = rules.not_negation.sub(" ", text)
    negations = list(rules.negation.finditer(plain))
    turned_from = [_clause_after(plain, match.end()) for match in negations]
    turned_from += [_clause_after(text, match.end()) for match in rules.departure.finditer(text)]
    names_excess = rules.excess.search(text) is not None
    return Reading(
        slots,
        bool(negations),
        bool(rules.change.search(text)),
        places(text),
        script_of(text),
        keyword_set(text),
        frozenset(term for clause in turned_from for term in keyword_set(clause)),
        approaches(text, rules),
        names_excess,
        names_excess and any(rules.excess.search(clause) for clause in turned_from),
    )


def _slots(text: str, rules: ConflictRules) -> dict[str, SlotReading]:
    """The slots `text` names a value of, each with the values it affirms and those it turns away from. An
    example in brackets ("（如 … element-plus …）", "(e.g. black)") is taken out first by the caller: it
    takes no side."""
    slots: dict[str, SlotReading] = {}
    named = rules.any_value.search(text) is not None
    for slot in rules.slots if named else ():
        if not slot.any_value.search(text) or (slot.subject_required and not slot.subject.search(text)):
            continue
        affirmed: set[str] = set()
        rejected: set[str] = set()
        for name, pattern in slot.values:
            for match in pattern.finditer(text):
                value = next((group for group in match.groups() if group), match[0]) if name == NUMBER_VALUE else name
                turned_away = rules.rejects_next.search(text[: match.start()]) or rules.rejects_previous.search(
                    text[match.end() :]
                )
                (rejected if turned_away else affirmed).add(value.casefold() if name == NUMBER_VALUE else value)
        if affirmed or rejected:
            slots[slot.name] = SlotReading(frozenset(affirmed), frozenset(rejected - affirmed))
    return slots


def _clause_after(text: str, start: int) -> str:
    """What a negation or a change word turns away from: the clause after it, at most its first
    `OBJECT_WORDS` words (a Chinese word ~2 characters). A run-on clause ("不要出现低级错误保证能够正确爬取") turns
    away from its object ("出现低级错误"), not from what it goes on to say (issue 39's replay)."""
    end = _CLAUSE_END.search(text, start)
    clause = text[start : end.start() if end else len(text)]
    cut, words = 0, 0.0
    for match in _OBJECT_WORD.finditer(clause):
        words += 0.5 if is_cjk(match[0]) else 1.0
        cut = match.end()
        if words >= OBJECT_WORDS:
            break
    return clause[:cut]


def places(text: str) -> frozenset[tuple[str, ...]]:
    """The folders `text` names: each path without a file name at its end and without `./`, `../`, `~/`."""
    found = set()
    for match in _PATH.finditer(text):
        parts = [part for part in re.split(r"[/\\]", match[1].casefold()) if part not in ("", ".", "..")]
        if parts and "." in parts[-1].lstrip("."):
            parts = parts[:-1]  # a file: its folder is the place
        if len(parts) >= 2:
            found.add(tuple(parts))
    return frozenset(found)


def moved(new: frozenset[tuple[str, ...]], old: frozenset[tuple[str, ...]]) -> tuple[str, str] | None:
    """A folder of one kind of file under a different root (`notes/plans` against `docs/plans`, `notes/src`
    against `docs/src/color`): the same second segment, another first. None when none moved or both name the
    other's place too."""
    for here in sorted(new - old):
        for there in sorted(old - new):
            if here[0] != there[0] and here[1] == there[1] and there not in new and here not in old:
                return "/".join(here), "/".join(there)
    return None


@dataclass(frozen=True)
class Thresholds:
    """Cosines (USE space) at or above which two texts are about the same subject: `subject` when they fill
    one slot, `polarity` when only the cosine says so."""

    subject: float
    polarity: float


@dataclass(frozen=True)
class Judgement:
    """Whether a new text disagrees with one memory, and why in a few words."""

    conflict: bool
    reason: str
    slot: str | None = None
    evidence: Evidence | None = None


def _values(reading: SlotReading) -> str:
    shown = sorted(reading.affirmed) or [f"not {value}" for value in sorted(reading.rejected)]
    return " / ".join(shown)


def _slot_disagreement(new: SlotReading, old: SlotReading) -> bool:
    if new.affirmed & old.rejected or new.rejected & old.affirmed:
        return True
    return bool(new.affirmed and old.affirmed and not new.affirmed & old.affirmed)


def judge(new: Reading, old: Reading, cosine: float | None, thresholds: Thresholds) -> Judgement:
    """Whether `new` disagrees with `old` (module docstring), and why in a few words. No cosine (no model
    loaded): the table alone decides — a shared slot with different values; the cosine rules are off."""
    shared = [name for name in new.slots if name in old.slots]
    for name in shared:
        close = cosine is None or cosine >= thresholds.subject
        if close and _slot_disagreement(new.slots[name], old.slots[name]):
            reason = f"{name}: {_values(new.slots[name])} here, {_values(old.slots[name])} there"
            return Judgement(True, reason, name, "slot")
    if shared:
        return Judgement(False, f"agree on {shared[0]}", shared[0])
    place = moved(new.places, old.places)
    if place is not None and (cosine is None or cosine >= thresholds.subject):
        return Judgement(True, f"{PLACE_SLOT}: {place[0]} here, {place[1]} there", PLACE_SLOT, "place")
    ways = changed_approach(new, old)
    if ways is not None and (cosine is None or cosine >= thresholds.subject):
        here, there = ways
        reason = f"{APPROACH_SLOT} to {here.thing}: {here.way} here, {there.way} there"
        return Judgement(True, reason, APPROACH_SLOT, "approach")
    kept = kept_approach(new, old)
    if kept is not None:  # "迁移到策略模式的实现" after "采用策略模式": a change word, but to the same way
        return Judgement(False, f"agree on the {APPROACH_SLOT} to {kept.thing}", APPROACH_SLOT)
    if cosine is None or cosine < thresholds.polarity:
        return Judgement(False, "no disagreement found")
    if new.negated != old.negated and _opposed(new if new.negated else old, old if new.negated else new):
        side = "this says not to" if new.negated else "that one says not to"
        return Judgement(True, f"same subject (cosine {cosine:.2f}); {side}", None, "polarity")
    if new.changes and (not new.turned_from or _opposed(new, old)):
        return Judgement(True, f"same subject (cosine {cosine:.2f}); this one changes it", None, "change")
    return Judgement(False, "no disagreement found")


def _opposed(turning: Reading, other: Reading) -> bool:
    """Whether what `turning` negates or leaves is something `other` says. English against Chinese shares no
    word, and the cosine alone has to do; a mixed text ("请你修改 README") shares words with either. A turn
    away from an excess opposes only a text that names an excess too (module docstring)."""
    if turning.turns_from_excess and not other.names_excess:
        return False
    across = turning.script != other.script and "mixed" not in (turning.script, other.script)
    return across or bool(turning.turned_from & other.terms)


class ActiveMemory(NamedTuple):
    """An active memory a new text is checked against."""

    memory_id: str
    text: str  # the memory's title and body
    cosine: float | None  # USE cosine to the new text; None: no model loaded


@dataclass(frozen=True)
class Conflict:
    """An active memory the new text may contradict."""

    memory_id: str
    reason: str
    cosine: float | None
    slot: str | None


def find_conflicts(
    new_text: str, candidates: Sequence[ActiveMemory], thresholds: Thresholds, rules: ConflictRules | None = None
) -> list[Conflict]:
    """The candidates `new_text` disagrees with, the most similar first."""
    new = read(new_text, rules)  # rules None: the shipped table, and the readings it remembers
    found = []
    for candidate in candidates:
        verdict = judge(new, read(candidate.text, rules), candidate.cosine, thresholds)
        if verdict.conflict:
            found.append(Conflict(candidate.memory_id, verdict.reason, candidate.cosine, verdict.slot))
    return sorted(found, key=lambda conflict: -(conflict.cosine or 0.0))


def shares_slot(first: Reading, second: Reading) -> bool:
    """Whether both texts name a value of one slot, or a way of doing one thing: the cheap test that picks
    which candidates to read."""
    return any(name in second.slots for name in first.slots) or changed_approach(first, second) is not None
