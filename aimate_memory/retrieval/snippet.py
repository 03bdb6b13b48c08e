"""Snippets: the best chunk cut to a window around the query's matches, with the matches marked."""

from __future__ import annotations

import re

from aimate_memory.index.textproc import query_terms

SNIPPET_CHARS = 240


def find_matches(text: str, query: str) -> list[tuple[int, int]]:
    """Character spans in `text` matching a query term: a word starting with a Latin term (so `cache`
    marks `caching`'s stem too), or a CJK term found literally. Sorted, non-overlapping."""
    spans: list[tuple[int, int]] = []
    for term, _prefix in query_terms(query):
        if term.isascii():
            stem = re.escape(term[: max(3, len(term) - 2)]) if len(term) > 4 else re.escape(term)
            pattern = re.compile(rf"(?<![^\W_]){stem}[^\W_]*", re.IGNORECASE)
        else:
            pattern = re.compile(re.escape(term), re.IGNORECASE)
        spans.extend(match.span() for match in pattern.finditer(text))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def make_snippet(text: str, query: str, width: int = SNIPPET_CHARS) -> tuple[str, list[tuple[int, int]]]:
    """(snippet, highlight spans within it). The window starts a little before the first match."""
    text = " ".join(text.split())
    spans = find_matches(text, query)
    if len(text) <= width:
        return text, spans
    start = max(0, spans[0][0] - width // 4) if spans else 0
    end = min(len(text), start + width)
    start = max(0, end - width)
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    window = prefix + text[start:end] + suffix
    shift = len(prefix) - start
    inside = [(s + shift, e + shift) for s, e in spans if s >= start and e <= end]
    return window, inside
