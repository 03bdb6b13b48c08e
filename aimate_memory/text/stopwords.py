"""Stopwords, as data (`text/data/stopwords_*.txt`, one a line, `#` comments): the words a keyword query
drops (index/textproc.py) and lexical comparisons ignore (capture/supersede.py)."""

from __future__ import annotations

from importlib import resources
from typing import Final


def _load(name: str) -> frozenset[str]:
    text = resources.files("aimate_memory.text").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


EN_STOPWORDS: Final = _load("stopwords_en.txt")
ZH_STOPWORDS: Final = _load("stopwords_zh.txt")
