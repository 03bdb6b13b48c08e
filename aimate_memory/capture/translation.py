"""Restatements across languages (pure): does a Chinese sentence say what an English memory says, or the reverse?

A bilingual person states a rule in both languages ("Always run ruff before committing", then "提交代码前一定要
先运行 ruff"). The multilingual USE model puts the two at .48 — under every restatement bar (.70), and close to
distinct rules on the same subject ("提交前先跑测试", .37). The cosine alone cannot tell them apart, so a pair in
two languages whose cosine is at least `CROSS_COSINE` is read word by word through the bilingual lexicon
(text/bridge.py) and is the same statement when all three hold:

1. **Named things match.** What people keep verbatim across languages — tool names, paths, identifiers,
   numbers (`ruff`, `docs/plans`, `8080`, `UTC`) — is named on both sides: every Latin word of the Chinese
   text is in the English one, and every name of the English text (a well-known software name, an acronym, a
   word with a digit, a dot, a slash or an underscore) is in the Chinese one. "提交前先跑测试" names no `ruff`.
2. **The content words agree.** Each Chinese headword's English glosses and each English content word
   (stopwords left out, plurals and -ing/-ed endings taken off) are matched both ways: at least `AGREEMENT`
   of each text's content words are said by the other. The lesser share decides: a text that says what the
   other says and more ("Each test file covers one module" after "测试文件放在 tests 目录") is another rule
   on the subject. A Chinese headword whose first gloss is an
   English stopword (之前 "before", 所有 "all", 不要 "don't") is a function word and is not counted.
3. **Both say it, or both say not to.** A negation on one side only ("永远不要提交" / "Commit the .env file")
   is the other side of a rule, never the rule said again (capture/conflict.py reads the negations).

Both constants were chosen on tests/data/crosslang_pairs.jsonl by scripts/crosslang_eval.py
(docs/benchmarks.md, "Restatements across languages (issue 39)"). A pair at or above the restatement bar
itself needs none of this: the caller decides it as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from aimate_memory.capture.conflict import read
from aimate_memory.text import bridge
from aimate_memory.text.scripts import CJK_CHAR, CJK_RUN, WORD
from aimate_memory.text.stopwords import EN_STOPWORDS

CROSS_COSINE = 0.40  # the USE cosine under which two texts in two languages are not read word by word
AGREEMENT = 0.50  # the share of each text's content words the other says too
_NAME_SHAPE = re.compile(r"[\d./_\\-]|^[A-Z]{2,}s?$|[a-z][A-Z]")  # a digit, a path or an identifier, an acronym
_SIBILANT_ES = ("sses", "ches", "shes", "xes", "zes")


@dataclass(frozen=True)
class CrossVerdict:
    """Whether two texts in two languages say one thing, and why in a few words."""

    same: bool
    reason: str
    agreement: float = 0.0


def across_languages(first: str, second: str) -> bool:
    """One text has Chinese characters and the other none."""
    return (CJK_CHAR.search(first) is None) != (CJK_CHAR.search(second) is None)


def stem(word: str) -> str:
    """A word without its plural or -ing/-ed ending ("committing" → "commit", "files" → "file", "classes" →
    "class"): enough for a gloss to meet the word a person wrote."""
    word = word.lower().removesuffix("'s")
    if len(word) <= 4:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(_SIBILANT_ES):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            return word[:-1] if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "ls" else word
    return word


def _latin_words(text: str) -> list[str]:
    return WORD.findall(CJK_RUN.sub(" ", text))


def english_names(text: str) -> frozenset[str]:
    """The names an English text keeps verbatim: well-known software, acronyms, words shaped like code."""
    return frozenset(
        stem(word) for word in _latin_words(text) if _NAME_SHAPE.search(word) or bridge.with_kinds(word) != word
    )


@lru_cache(maxsize=2048)
def _chinese_terms(text: str) -> tuple[tuple[frozenset[str], ...], frozenset[str]]:
    """The Chinese text's content headwords (each as its glosses' stems, function words left out) and its
    Latin words (stemmed): the names it keeps verbatim."""
    headwords: dict[str, frozenset[str]] = {}  # each headword once: a title and a body say it twice
    for run in CJK_RUN.findall(text):
        for _, head in bridge.headwords(run):
            glosses = [gloss.lower() for gloss in bridge.english_of(head)]
            if glosses and not all(part in EN_STOPWORDS for part in WORD.findall(glosses[0])):
                headwords[head] = frozenset(stem(gloss) for gloss in glosses)
    return tuple(headwords.values()), frozenset(stem(word) for word in _latin_words(text))


def _english_terms(text: str) -> frozenset[str]:
    """An English text's content words, stemmed: stopwords and single letters left out, numbers kept."""
    kept = (word for word in WORD.findall(text) if len(word) > 1 or word.isdigit())
    return frozenset(stem(word) for word in kept if word.lower() not in EN_STOPWORDS)


def says_the_same(first: str, second: str, cosine: float | None) -> CrossVerdict:
    """Whether `first` and `second`, one Chinese and one English, say one thing (module docstring). No cosine
    (no model loaded) or a pair in one language: never (the caller's own bar decides those)."""
    if cosine is None or not across_languages(first, second):
        return CrossVerdict(False, "not a pair in two languages")
    if cosine < CROSS_COSINE:
        return CrossVerdict(False, f"cosine {cosine:.2f} < {CROSS_COSINE:.2f}")
    chinese, english = (first, second) if CJK_CHAR.search(first) else (second, first)
    headwords, kept = _chinese_terms(chinese)
    words = _english_terms(english)
    missing = (kept - words) | (english_names(english) - kept)
    if missing:
        return CrossVerdict(False, f"names {', '.join(sorted(missing))} on one side only")
    if read(chinese).negated != read(english).negated:
        return CrossVerdict(False, "one says not to")
    said_in_english = sum(1 for glosses in headwords if glosses & words) + len(kept)
    said_in_chinese = len(words & (frozenset().union(*headwords) | kept))
    # The lesser share: a text that says what the other says and more ("Each test file covers one module"
    # after "测试文件放在 tests 目录") is a second statement on the subject, not the same one.
    agreement = min(said_in_english / (len(headwords) + len(kept) or 1), said_in_chinese / (len(words) or 1))
    if agreement < AGREEMENT:
        return CrossVerdict(False, f"words agree {agreement:.2f} < {AGREEMENT:.2f}", agreement)
    reason = f"the same in two languages (cosine {cosine:.2f}, words agree {agreement:.2f})"
    return CrossVerdict(True, reason, agreement)


def says_again(text: str, known: str, cosine: float | None, bar: float) -> bool:
    """Whether `text` says `known` again: a cosine at or over the restatement `bar`, or a pair in two languages
    that says the same (`says_the_same`). Whether it contradicts `known` is the caller's check."""
    return (cosine is not None and cosine >= bar) or says_the_same(text, known, cosine).same
