"""A text's words, the way the keyword index and the lexical comparisons (capture's supersede check,
dedupe) see them: lower-cased letter/digit runs, and CJK runs — which have no spaces to split on — as
overlapping character bigrams plus the run's last character (index/textproc.py says why for FTS5)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from aimate_memory.text.scripts import CJK_CHAR, CJK_RANGES, WORD

_SPLIT_CJK: Final = re.compile(f"([{CJK_RANGES}]+)")


def _cjk_tokens(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    toks = [run[i : i + 2] for i in range(len(run) - 1)]
    toks.append(run[-1])
    return toks


def word_parts(text: str) -> Iterator[tuple[str, bool]]:
    """`(part, is_cjk_run)` in order: each lower-cased word, and each CJK run (a word like "Redis缓存" gives
    "redis" and "缓存")."""
    for word in WORD.findall(text):
        if not CJK_CHAR.search(word):
            yield word.lower(), False
            continue
        for i, part in enumerate(_SPLIT_CJK.split(word)):
            if part:
                # odd parts are the captured CJK runs
                yield (part, True) if i % 2 else (part.lower(), False)


def tokens(text: str) -> list[str]:
    """Index-time tokens, in order: lower-cased words; CJK runs as bigrams + last-character unigram."""
    out: list[str] = []
    for part, is_cjk_run in word_parts(text):
        if is_cjk_run:
            out.extend(_cjk_tokens(part))
        else:
            out.append(part)
    return out
