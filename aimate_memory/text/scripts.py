"""Which script a text is written in: what embedding routes on (a Latin model or a multilingual one) and what
the keyword side splits on (CJK runs become bigrams, text/words.py)."""

from __future__ import annotations

import re
from typing import Final, Literal

Script = Literal["latin", "cjk", "mixed"]

CJK_RANGES: Final = (
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
CJK_CHAR: Final = re.compile(f"[{CJK_RANGES}]")
CJK_RUN: Final = re.compile(f"[{CJK_RANGES}]+")
# A "word": a run of letters/digits (no underscore), as FTS5 unicode61 would see it.
WORD: Final = re.compile(r"[^\W_]+")


def is_cjk(ch: str) -> bool:
    """True for a Han, kana or Hangul character."""
    return CJK_CHAR.match(ch) is not None


def script_of(text: str) -> Script:
    """Which scripts the text is written in: ``"latin"``, ``"cjk"`` or ``"mixed"``.

    "latin" stands for every space-delimited script (what a Latin-script model can at least tokenize);
    text without any letters counts as "latin". A CJK character weighs half a word (a Chinese word is
    ~2 characters); the text is "mixed" unless one script holds at least 80 % of its words. Embedding
    routes on this: an English note quoting one Chinese name is still "latin" (a Latin model reads it
    well), a Chinese note naming one English product is "cjk". :func:`scripts_in` tells whether a
    script is present at all.
    """
    cjk = len(CJK_CHAR.findall(text))
    if cjk == 0:
        return "latin"
    latin = sum(1 for _ in WORD.finditer(CJK_RUN.sub(" ", text)))
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
    has_cjk = CJK_CHAR.search(text) is not None
    has_latin = WORD.search(CJK_RUN.sub(" ", text)) is not None if has_cjk else True
    out = set()
    if has_cjk:
        out.add("cjk")
    if has_latin:
        out.add("latin")
    return frozenset(out)
