"""Stopwords, as data (`text/data/stopwords_*.txt`, one a line, `#` comments): the words a keyword query
drops (index/textproc.py) and lexical comparisons ignore (capture/supersede.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

# Read beside this module, not through `importlib.resources`: that imports tempfile, shutil and zipfile (~9 ms of
# every command's start) for a package that is always installed as files.
DATA = Path(__file__).parent / "data"


def _load(name: str) -> frozenset[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


EN_STOPWORDS: Final = _load("stopwords_en.txt")
ZH_STOPWORDS: Final = _load("stopwords_zh.txt")
