"""Snippets: the best chunk cut to a window around the query's matches, with the matches marked."""

from __future__ import annotations

import re

from aimate_memory.git.secrets import mask_text
from aimate_memory.index.textproc import query_terms

SNIPPET_CHARS = 240


def match_pattern(query: str) -> re.Pattern[str] | None:
    """One regex for all query terms, compiled once per query: a word starting with a Latin term's stem
    (`caching` for `cache`), or a CJK term found literally."""
    alternatives = []
    for term, _prefix in query_terms(query):
        if term.isascii():
            stem = term[: max(3, len(term) - 2)] if len(term) > 4 else term
            alternatives.append(rf"(?<![^\W_]){re.escape(stem)}[^\W_]*")
        else:
            alternatives.append(re.escape(term))
    return re.compile("|".join(alternatives), re.IGNORECASE) if alternatives else None


def find_matches(text: str, pattern: re.Pattern[str] | None) -> list[tuple[int, int]]:
    """Sorted, non-overlapping spans of `text` the pattern matches."""
    if pattern is None:
        return []
    merged: list[tuple[int, int]] = []
    for match in pattern.finditer(text):
        start, end = match.span()
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        elif end > start:
            merged.append((start, end))
    return merged


def make_snippet(
    text: str, pattern: re.Pattern[str] | None, width: int = SNIPPET_CHARS
) -> tuple[str, list[tuple[int, int]]]:
    """(snippet, highlight spans within it). The window starts a little before the first match. A value that
    looks like a secret (in a hand-made file; the tool refuses to write one) is masked, as in review's diffs."""
    text = mask_text(" ".join(text.split()))
    spans = find_matches(text, pattern)
    if len(text) <= width:
        return text, spans
    start = max(0, spans[0][0] - width // 4) if spans else 0
    end = min(len(text), start + width)
    start = max(0, end - width)
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    shift = len(prefix) - start
    inside = [(s + shift, e + shift) for s, e in spans if s >= start and e <= end]
    return prefix + text[start:end] + suffix, inside
