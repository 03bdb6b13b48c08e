"""Text for keyword search: what FTS5 stores and what a MATCH may say (words, scripts and stopwords come
from the bottom-layer `aimate_memory.text`).

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

from collections.abc import Iterable, Sequence

from aimate_memory.text.stopwords import EN_STOPWORDS, ZH_STOPWORDS
from aimate_memory.text.words import tokens, word_parts

#: The tokenizer the FTS5 table must be created with (``tokenize = '…'``): porter stems English words,
#: unicode61 splits on whitespace/punctuation (our CJK bigrams are already space-separated), and
#: ``remove_diacritics 2`` folds "café" to "cafe".
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2"
#: Bumped whenever index-time tokenization changes; part of the index identity (docs/design.md §6).
TOKENIZER_VERSION = "aimate-fts-1"

#: Query terms kept at most (a 10 kB query must not turn into a 5,000-term MATCH).
MAX_QUERY_TERMS = 256


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
    for part, is_cjk_run in word_parts(text):
        if not is_cjk_run:
            raw.append((part, False))
        elif len(part) == 1:
            raw.append((part, True))
        else:
            raw.extend((part[j : j + 2], False) for j in range(len(part) - 1))
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
