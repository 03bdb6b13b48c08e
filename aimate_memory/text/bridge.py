"""A keyword bridge between Chinese and English: a query's words said in the other script, from a bilingual
lexicon shipped as data (text/data/zh_en.tsv.gz and en_zh.tsv.gz, derived from CC-CEDICT, CC BY-SA 4.0:
see text/data/LEXICON.md and scripts/build_lexicon.py).

Keyword search alone finds nothing across languages ("event broker" never matches "事件总线使用 Kafka"), and
the multilingual model alone misses a quarter of what it finds within one language (docs/benchmarks.md,
"Across languages (issue 36)"). The bridge gives the keyword half of a search a second query in the other
script:

- Chinese → English: each run of Han characters is read greedily, longest headword first (4 to 2
  characters), and each headword found gives its English gloss words (分页 → "paginate", 重试 → "retry").
- English → Chinese: each word gives the (at most three) most frequent headwords whose first gloss word it is
  ("event" → 事件 过后 事后). A word is also looked up without a plural "s".

Each table is loaded once per process, on first use (the daemon and the MCP server pay it once).
"""

from __future__ import annotations

import gzip
from functools import cache
from importlib import resources

from aimate_memory.text.scripts import CJK_RUN, WORD, is_cjk
from aimate_memory.text.stopwords import EN_STOPWORDS

LONGEST_HEADWORD = 4


@cache
def _table(name: str) -> dict[str, str]:
    """One of the lexicon's tables (text/data/*.tsv.gz): key → its words, space-separated."""
    raw = resources.files("aimate_memory.text").joinpath("data").joinpath(name).read_bytes()
    lines = gzip.decompress(raw).decode("utf-8").splitlines()
    return dict(line.split("\t", 1) for line in lines)


def english_words(text: str) -> list[str]:
    """The English gloss words of the Chinese headwords in `text`, in order, each once."""
    runs = CJK_RUN.findall(text)
    to_english = _table("zh_en.tsv.gz") if runs else {}  # an English query never loads this table
    out: dict[str, None] = {}
    for run in runs:
        start = 0
        while start < len(run) - 1:
            for size in range(min(LONGEST_HEADWORD, len(run) - start), 1, -1):
                words = to_english.get(run[start : start + size])
                if words is not None:
                    out.update(dict.fromkeys(words.split()))
                    start += size
                    break
            else:
                start += 1
    return list(out)


def chinese_words(text: str) -> list[str]:
    """Chinese headwords for the English words in `text`, in order, each once."""
    words = [word.lower() for word in WORD.findall(text) if not any(is_cjk(ch) for ch in word)]
    words = [word for word in words if word not in EN_STOPWORDS]
    to_chinese = _table("en_zh.tsv.gz") if words else {}  # nor a Chinese one this one
    out: dict[str, None] = {}
    for word in words:
        heads = to_chinese.get(word) or (to_chinese.get(word[:-1], "") if word.endswith("s") else "")
        out.update(dict.fromkeys(heads.split()))
    return list(out)


def other_script(text: str) -> str:
    """`text`'s words said in the other script (English for its Chinese, Chinese for its English), as text
    for the keyword query; empty when the lexicon knows none of them."""
    return " ".join([*english_words(text), *chinese_words(text)])
