"""Text processing for keyword search: FTS5 pre-tokenization, safe MATCH queries, script detection.

FTS5's ``unicode61`` tokenizer does not split Chinese at all (a whole run of Han characters becomes one
token, so recall on Chinese is ~0). We therefore pre-tokenize every text before it reaches FTS5, at index
time *and* at query time, and store/query space-separated tokens:

- Latin (and every other space-delimited script): lower-cased letter/digit runs. Stemming is done by the
  FTS5 table's own ``porter`` tokenizer (:data:`FTS_TOKENIZE`), which stems ASCII words identically at
  index and query time; measured on the bench it is as good as a Python stemmer and costs nothing.
- CJK runs (Han, kana, Hangul): overlapping character bigrams, plus the last character of each run as a
  unigram. The unigram makes every character position the *start* of some token, so a one-character
  query term is found with a prefix query (``"猫"*``) wherever that character occurs.

:func:`fts_query` turns arbitrary user text into a MATCH expression built only from quoted terms joined by
``OR``; user text is never passed raw to MATCH, so ``"``, ``NEAR(``, ``*``, ``-``, SQL or 10 kB of junk is
searched literally and never raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

#: The tokenizer the FTS5 table must be created with (``tokenize = '…'``): porter stems English words,
#: unicode61 splits on whitespace/punctuation (our CJK bigrams are already space-separated), and
#: ``remove_diacritics 2`` folds "café" to "cafe".
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"
#: Bumped whenever index-time tokenization changes; part of the index identity (docs/design.md §6).
TOKENIZER_VERSION = "aimate-fts-1"

#: Query terms kept at most (a 10 kB query must not turn into a 5,000-term MATCH).
MAX_QUERY_TERMS = 256

Script = Literal["latin", "cjk", "mixed"]

_CJK_RANGES = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u2e80-\u2fdf"  # CJK radicals
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u312f"  # Bopomofo
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana extension
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\ua960-\ua97f"  # Hangul Jamo extended A
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # half-width Katakana
    "\U00020000-\U0002fa1f"  # CJK extensions B-F, compatibility supplement
)
_CJK_CHAR = re.compile(f"[{_CJK_RANGES}]")
_CJK_RUN = re.compile(f"[{_CJK_RANGES}]+")
# A "word": a run of letters/digits (no underscore), as FTS5 unicode61 would see it.
_WORD = re.compile(r"[^\W_]+")
_SPLIT_CJK = re.compile(f"([{_CJK_RANGES}]+)")

EN_STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "couldn",
        "did",
        "didn",
        "do",
        "does",
        "doesn",
        "doing",
        "don",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "hadn",
        "has",
        "hasn",
        "have",
        "haven",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn",
        "it",
        "its",
        "itself",
        "just",
        "ll",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "ought",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "re",
        "s",
        "same",
        "shan",
        "she",
        "should",
        "shouldn",
        "so",
        "some",
        "such",
        "t",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "wasn",
        "we",
        "were",
        "weren",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "won",
        "would",
        "wouldn",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "ve",
        "d",
        "m",
        "y",
        "also",
        "ever",
    ]
)
# Single characters that carry no meaning on their own (particles, pronouns, copula). Only whole query
# tokens equal to one of these are dropped; bigrams that contain them are kept.
ZH_STOPWORDS = frozenset(
    [
        "的",
        "了",
        "是",
        "我",
        "你",
        "他",
        "她",
        "它",
        "们",
        "在",
        "吗",
        "呢",
        "吧",
        "啊",
        "呀",
        "哦",
        "嗯",
        "和",
        "与",
        "就",
        "都",
        "也",
        "还",
        "很",
        "这",
        "那",
        "有",
        "没",
        "不",
        "个",
        "一",
        "上",
        "下",
        "会",
        "要",
        "让",
        "说",
        "对",
        "把",
        "被",
        "着",
        "过",
        "给",
    ]
)


def is_cjk(ch: str) -> bool:
    """True for a Han, kana or Hangul character."""
    return bool(_CJK_CHAR.match(ch))


def script_of(text: str) -> Script:
    """Which scripts the text is written in: ``"latin"``, ``"cjk"`` or ``"mixed"``.

    "latin" stands for every space-delimited script (what a Latin-script model can at least tokenize);
    text without any letters counts as "latin". A CJK character weighs half a word (a Chinese word is
    ~2 characters); the text is "mixed" unless one script holds at least 80 % of its words. Embedding
    routes on this: an English note quoting one Chinese name is still "latin" (a Latin model reads it
    well), a Chinese note naming one English product is "cjk". :func:`scripts_in` tells whether a
    script is present at all.
    """
    cjk = len(_CJK_CHAR.findall(text))
    if cjk == 0:
        return "latin"
    latin = sum(1 for w in _WORD.findall(_CJK_RUN.sub(" ", text)))
    if latin == 0:
        return "cjk"
    cjk_words = cjk / 2
    share = cjk_words / (cjk_words + latin)
    if share >= 0.8:
        return "cjk"
    if share <= 0.2:
        return "latin"
    return "mixed"


def scripts_in(text: str) -> frozenset[str]:
    """The set of scripts present at all: a subset of {"latin", "cjk"} (empty text → {"latin"})."""
    has_cjk = _CJK_CHAR.search(text) is not None
    has_latin = _WORD.search(_CJK_RUN.sub(" ", text)) is not None if has_cjk else True
    out = set()
    if has_cjk:
        out.add("cjk")
    if has_latin:
        out.add("latin")
    return frozenset(out)


def _cjk_tokens(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    toks = [run[i : i + 2] for i in range(len(run) - 1)]
    toks.append(run[-1])
    return toks


def tokens(text: str) -> list[str]:
    """Index-time tokens, in order: lower-cased words; CJK runs as bigrams + last-character unigram."""
    out: list[str] = []
    for word in _WORD.findall(text):
        if not _CJK_CHAR.search(word):
            out.append(word.lower())
            continue
        for i, part in enumerate(_SPLIT_CJK.split(word)):
            if not part:
                continue
            if i % 2:  # odd parts are the captured CJK runs
                out.extend(_cjk_tokens(part))
            else:
                out.append(part.lower())
    return out


def fts_document(text: str) -> str:
    """The text to store in an FTS5 column (tokens joined by spaces)."""
    return " ".join(tokens(text))


def query_terms(text: str, max_terms: int = MAX_QUERY_TERMS) -> list[tuple[str, bool]]:
    """Distinct query terms, in order of first appearance, as ``(term, is_prefix)``.

    Stopwords are dropped (English function words; single-character Chinese particles); a lone CJK
    character becomes a prefix term so it matches the bigrams it starts. If every term is a stopword the
    stopwords are kept (searching "the who" should still find "The Who").
    """
    raw: list[tuple[str, bool]] = []
    for word in _WORD.findall(text):
        if not _CJK_CHAR.search(word):
            raw.append((word.lower(), False))
            continue
        for i, part in enumerate(_SPLIT_CJK.split(word)):
            if not part:
                continue
            if i % 2:
                if len(part) == 1:
                    raw.append((part, True))
                else:
                    raw.extend((part[j : j + 2], False) for j in range(len(part) - 1))
            else:
                raw.append((part.lower(), False))
    kept = [t for t in raw if t[0] not in EN_STOPWORDS and t[0] not in ZH_STOPWORDS]
    if not kept:
        kept = raw
    seen: set[tuple[str, bool]] = set()
    out: list[tuple[str, bool]] = []
    for t in kept:
        if t in seen:
            continue
        seen.add(t)
        out.append(t)
        if len(out) >= max_terms:
            break
    return out


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _term(term: tuple[str, bool]) -> str:
    return _quote(term[0]) + ("*" if term[1] else "")


def fts_query_from_terms(terms: Iterable[tuple[str, bool]]) -> str | None:
    parts = [_term(term) for term in terms]
    return " OR ".join(parts) if parts else None


def common_terms_match(terms: Sequence[tuple[str, bool]], postings: Sequence[int], budget: int) -> str | None:
    """The MATCH expression for `terms` when `postings[i]` chunks hold term i, so that ranking reads at
    most about `budget` postings (FTS5 computes bm25 for every matching chunk, ~1 µs each).

    Under the budget: every term, OR-ed (as :func:`fts_query`). Over it, only the rarest terms that fit:
    the common ones become stopwords for this index. Their idf is small (a term in 10 % of chunks: 2.2,
    against 6.9 for one in 0.1 %), and keeping them for scoring alone (``(rare) AND (all)``) is no
    cheaper: bm25 reads each phrase's whole doclist for its idf (30 against 15 ms for a query matching
    13k chunks at 100k memories). If even the rarest term is over the budget, every term is required
    (``a AND b``); the caller falls back to the rarest term when that matches nothing
    (:func:`rarest_term_match`).
    """
    if not terms:
        return None
    if sum(postings) <= budget:
        return fts_query_from_terms(terms)
    rare: list[tuple[str, bool]] = []
    total = 0
    for i in sorted(range(len(terms)), key=lambda i: postings[i]):
        if total + postings[i] > budget:
            break
        rare.append(terms[i])
        total += postings[i]
    if not rare:
        return " AND ".join(_term(term) for term in terms)
    return fts_query_from_terms(rare)


def rarest_term_match(terms: Sequence[tuple[str, bool]], postings: Sequence[int]) -> str | None:
    """The rarest term alone: the fallback when requiring every term found nothing."""
    if not terms:
        return None
    return _term(terms[min(range(len(terms)), key=lambda i: postings[i])])


def fts_query(text: str, max_terms: int = MAX_QUERY_TERMS) -> str | None:
    """A safe FTS5 MATCH expression for arbitrary user text, or None when it has nothing searchable.

    Every term is a double-quoted string (FTS5 syntax characters inside are literal), terms are OR-ed so
    bm25 ranks documents by how many (and how rare) query terms they hold. Use with a table created with
    ``tokenize = '{FTS_TOKENIZE}'`` whose columns hold :func:`fts_document` text.
    """
    if not text:
        return None
    return fts_query_from_terms(query_terms(text, max_terms))
