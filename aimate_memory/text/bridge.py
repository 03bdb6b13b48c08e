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

A query's word and its translations are alternatives of one term: a memory holds the term when it holds any
of them (retrieval/hybrid.py), so three translations of "event" do not make the query three times longer.

Each table is loaded once per process, on first use (the daemon and the MCP server pay it once), and kept
packed (`PackedLexicon`): as a dict of 95,000 keys and their words it held 16.8 MB of Python objects for as long
as the process lived — in the daemon, from its first cross-language search or `remember` on (docs/benchmarks.md,
"The daemon's memory, fifth round"). Reading and packing them from the shipped text costs ~0.2 s of CPU, paid by
every process without a daemon that searches or remembers (a fifth of a cold `context`): the packed form is kept
in the home's model cache (`keep_packed_in`) and read back in a few milliseconds (docs/design.md §12, "What a
cold search, `context` and `remember` load").
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import logging
import os
import re
import sys
from array import array
from functools import cache
from pathlib import Path

from aimate_memory.text.scripts import CJK_RUN, WORD, is_cjk
from aimate_memory.text.stopwords import DATA, EN_STOPWORDS

LONGEST_HEADWORD = 4
# Software senses CC-CEDICT lacks or lists after others (密钥 "key" but not "secret", 日志 "journal" first,
# "log" → 登出): hand-written for this project (text/data/LEXICON.md), read before the dictionary's own.
SOFTWARE = "zh_en_software.tsv"
# Well-known software names with what they are ("fastapi" → web framework python api): neither model knows
# FastAPI is a web framework, so "web framework choice" never met "我们决定用 FastAPI 而不是 Flask" (issue 36).
# Hand-written for this project (text/data/LEXICON.md); names that are everyday English words are left out.
NAMES = "software_names.tsv"


# A key's first characters that choose its bucket: a Han headword's first character (~4,500 buckets of ~16
# headwords), an English word's first two letters (~340 buckets of ~70 words).
BUCKET_HEAD = {"zh_en.tsv.gz": 1, "en_zh.tsv.gz": 2}
MARK = "\x00"  # never in the lexicon (checked when it is packed) nor in a run of Han characters or a word
# The packed form kept on disk (`PackedLexicon.to_bytes`): its parts as one text cut by these, never in the lexicon.
PART, ITEM = "\x02", "\x01"
# 1: the first kept form. Part of the file's name with the sources' digest: another form or lexicon is never read.
KEPT_FORM = 1

log = logging.getLogger(__name__)
# The folder packed tables are kept in between processes, and whether it is the lexicon's own, made when first
# written (`keep_packed_in`); empty: packed in each process.
_kept_in: list[tuple[Path, bool]] = []


class PackedLexicon:
    """key → its words, as `dict.get` answers, in a few strings instead of a `str` per key and per value
    (16.8 MB as two dicts, ~3 MB packed). The keys are grouped in buckets by their first characters, each
    bucket one string of the rest of its keys between marks ("\\0件\\0务\\0…"); all the words are one string,
    cut by `ends`. A lookup is a dict lookup and a `str.find` in a bucket of a few dozen characters; the
    key's place in its bucket (the marks before it) gives its words."""

    def __init__(self, table: dict[str, str], head: int) -> None:
        grouped: dict[str, list[str]] = {}
        for key in table:
            grouped.setdefault(key[:head], []).append(key)
        if any(MARK in key or MARK in words for key, words in table.items()):
            raise ValueError("the lexicon holds its own separator")
        self._head = head
        self._buckets: dict[str, tuple[str, int]] = {}  # first characters → (the rests, marked; first entry)
        ordered: list[str] = []
        for first, keys in grouped.items():
            self._buckets[first] = (MARK + MARK.join(key[head:] for key in keys) + MARK, len(ordered))
            ordered += keys
        self._words = "".join(table[key] for key in ordered)
        self._ends = array("I", itertools.accumulate(len(table[key]) for key in ordered))

    def to_bytes(self) -> bytes | None:
        """The packed form as bytes (`from_bytes` reads it back): the buckets' first characters, their rests and
        the words as one UTF-8 text, then the buckets' first entries and the words' ends as machine-order
        unsigned ints; None when the lexicon holds one of the text's separators (it is then packed in each
        process). No format that runs code when read (docs/reliability.md, "Trust model")."""
        firsts = list(self._buckets)
        rests = [self._buckets[first][0] for first in firsts]
        if PART in self._words or any(ITEM in part or PART in part for part in (*firsts, *rests)):
            return None
        text = PART.join((ITEM.join(firsts), ITEM.join(rests), self._words)).encode("utf-8")
        starts = array("I", (self._buckets[first][1] for first in firsts)).tobytes()
        ends = self._ends.tobytes()
        header = f"{self._head} {len(text)} {len(starts)} {len(ends)}\n".encode("ascii")
        return header + text + starts + ends

    @classmethod
    def from_bytes(cls, data: bytes) -> PackedLexicon:
        """What `to_bytes` wrote; ValueError when `data` is not such a form (damaged, cut short, forged)."""
        line, _, body = data.partition(b"\n")
        head, text_size, starts_size, ends_size = (int(field) for field in line.split())
        if len(body) != text_size + starts_size + ends_size or head < 1:
            raise ValueError("a packed lexicon of another size")
        firsts, rests, words = body[:text_size].decode("utf-8").split(PART)
        starts, ends = array("I"), array("I")
        starts.frombytes(body[text_size : text_size + starts_size])
        ends.frombytes(body[text_size + starts_size :])
        buckets = dict(zip(firsts.split(ITEM), zip(rests.split(ITEM), starts, strict=True), strict=True))
        # Each bucket's first entry is the count of the keys before it, and every key has its words: a lookup
        # can then never reach past the ends, whatever the file says.
        counts = [rest.count(MARK) - 1 for rest, _ in buckets.values()]
        if list(starts) != [0, *itertools.accumulate(counts)][: len(counts)] or len(buckets) != len(starts):
            raise ValueError("a packed lexicon whose buckets do not follow each other")
        if len(ends) != sum(counts) or (ends and ends[-1] != len(words)):
            raise ValueError("a packed lexicon whose words do not match its keys")
        packed = cls.__new__(cls)
        packed._head, packed._buckets, packed._words, packed._ends = head, buckets, words, ends
        return packed

    def get(self, key: str, default: str = "") -> str:
        entry = self._entry(key)
        if entry < 0:
            return default
        return self._words[self._ends[entry - 1] if entry else 0 : self._ends[entry]]

    def __contains__(self, key: str) -> bool:
        return self._entry(key) >= 0

    def longest_key(self, text: str, start: int, longest: int) -> int:
        """The length of the longest key (of `longest` characters at most, more than the bucket's head) that
        `text` has at `start`; 0 when none. The same answer as asking `in` for each length, longest first, with
        one search of the bucket where no key is longer than the head by the next character (most starts)."""
        head = self._head
        rests = self._buckets.get(text[start : start + head], ("", 0))[0]
        if MARK + text[start + head : start + head + 1] not in rests:
            return 0
        for size in range(min(longest, len(text) - start), head, -1):
            if f"{MARK}{text[start + head : start + size]}{MARK}" in rests:
                return size
        return 0

    def _entry(self, key: str) -> int:
        """`key`'s place among all the keys (-1 when the lexicon does not have it)."""
        rests, first = self._buckets.get(key[: self._head], ("", 0))
        found = rests.find(f"{MARK}{key[self._head :]}{MARK}") if MARK not in key else -1
        return first + rests.count(MARK, 0, found) if found >= 0 else -1


def keep_packed_in(folder: Path | None, make: bool = False) -> None:
    """Keep the packed tables in `folder` between processes (the home's model cache, `state/models`: the
    person's own, never a repository's), and read them from there; None: pack them in each process. `make`:
    the folder is the lexicon's own (`state/lexicon` of a home without a model cache), made (0700) when a table
    is first kept in it — its parent is never made."""
    _kept_in[:] = [(folder, make)] if folder is not None else []


def pack_tables() -> None:
    """Both tables packed now, and kept where `keep_packed_in` says: what `init` does beside the models, so that
    a first search only searches (embedding/prepare.py)."""
    for name in BUCKET_HEAD:
        _table(name)


@cache
def _table(name: str) -> PackedLexicon:
    """One of the lexicon's tables (text/data/*.tsv.gz): key → its words, space-separated; with the
    software senses (`SOFTWARE`) first. Packed (`PackedLexicon`) once read; read packed from the model cache
    when a process kept it there (`keep_packed_in`)."""
    raw, software = _data(name), _data(SOFTWARE)
    kept = _kept_file(name, raw, software)
    if kept is not None:
        with contextlib.suppress(OSError, ValueError):
            return PackedLexicon.from_bytes(kept.read_bytes())
    packed = PackedLexicon(_read_table(name, raw, software), BUCKET_HEAD[name])
    if kept is not None:
        _keep(kept, packed)
    return packed


def _kept_file(name: str, raw: bytes, software: bytes) -> Path | None:
    """Where the packed form of these sources is kept: named by a digest of them, the kept form's version and
    this machine's int layout, so a lexicon or a form of another version is never read as this one."""
    if not _kept_in:
        return None
    digest = hashlib.sha256(f"{KEPT_FORM} {sys.byteorder} {array('I').itemsize} {name}".encode())
    digest.update(raw)
    digest.update(software)
    return _kept_in[0][0] / f"lexicon-{name.split('.')[0]}-{digest.hexdigest()[:16]}.packed"


def _keep(path: Path, packed: PackedLexicon) -> None:
    """Write the packed form beside the models (0600, through a temporary file: a reader never sees half of
    one), removing this table's older forms. Into a model cache only when it exists (`init` builds it); a home
    without models (keyword-only, an endpoint) keeps it in a folder of its own (`keep_packed_in`'s `make`), not
    in a `state/models` made for it. A folder that is missing or cannot be written costs the next process the
    packing again, never an error."""
    data = packed.to_bytes()
    if data is None:
        return
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        if _kept_in and _kept_in[0][1]:
            path.parent.mkdir(mode=0o700, exist_ok=True)
        with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as out:
            out.write(data)
        os.replace(temporary, path)
        for older in path.parent.glob(f"{path.name.rsplit('-', 1)[0]}-*.packed"):
            if older != path:
                older.unlink(missing_ok=True)
    except OSError as error:
        log.debug("the packed lexicon was not kept in %s: %s", path.parent, error)
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


def _data(name: str) -> bytes:
    # Beside the module, as the stopwords are: `importlib.resources` would cost every command its imports.
    return (DATA / name).read_bytes()


def _read_table(name: str, raw: bytes | None = None, software_text: bytes | None = None) -> dict[str, str]:
    import gzip

    raw = _data(name) if raw is None else raw
    table = _pairs(gzip.decompress(raw).decode("utf-8"))
    software = _pairs((_data(SOFTWARE) if software_text is None else software_text).decode("utf-8"))
    if name == "en_zh.tsv.gz":  # each English word of a software sense says its headword first
        software = _reversed(software)
    for key, words in software.items():
        table[key] = " ".join(dict.fromkeys([*words.split(), *table.get(key, "").split()]))
    return table


@cache
def _names() -> dict[str, str]:
    return _pairs(_data(NAMES).decode("utf-8"))


def _pairs(text: str) -> dict[str, str]:
    # One tab a line: keys and values in one split of the text (a split a line: both tables 0.79 → 0.68 s).
    fields = text.rstrip("\n").replace("\t", "\n").split("\n")
    return dict(zip(fields[::2], fields[1::2], strict=True))


def _reversed(table: dict[str, str]) -> dict[str, str]:
    out: dict[str, list[str]] = {}
    for key, words in table.items():
        for word in words.split():
            out.setdefault(word, []).append(key)
    return {word: " ".join(keys) for word, keys in out.items()}


def headwords(run: str) -> list[tuple[int, str]]:
    """The lexicon's headwords in a run of Han characters, read greedily, longest first: (start, headword)."""
    to_english = _table("zh_en.tsv.gz")
    found: list[tuple[int, str]] = []
    if MARK in run:  # not a run of Han characters
        return found
    start = 0
    while start < len(run) - 1:
        size = to_english.longest_key(run, start, LONGEST_HEADWORD)  # two characters at least: the head is one
        if size:
            found.append((start, run[start : start + size]))
            start += size
        else:
            start += 1
    return found


def english_of(headword: str) -> list[str]:
    """A Chinese headword's English words (none when the lexicon does not have it)."""
    return _table("zh_en.tsv.gz").get(headword, "").split()


def chinese_of(word: str) -> list[str]:
    """An English word's Chinese headwords, the most frequent first (also without a plural "s")."""
    word = word.lower()
    if word in EN_STOPWORDS or any(is_cjk(ch) for ch in word):
        return []
    to_chinese = _table("en_zh.tsv.gz")
    heads = to_chinese.get(word) or (to_chinese.get(word[:-1], "") if word.endswith("s") else "")
    return heads.split()


def english_words(text: str) -> list[str]:
    """The English words of the Chinese headwords in `text`, in order, each once."""
    out: dict[str, None] = {}
    for run in CJK_RUN.findall(text):
        for _, head in headwords(run):
            out.update(dict.fromkeys(english_of(head)))
    return list(out)


def all_in_english(text: str) -> list[str]:
    """The words of a text in both scripts ("web 框架的选择") in English: its Latin words kept, then the English
    words of its Chinese headwords (`english_words`). Read as a Chinese question otherwise: its other script
    is English."""
    return list(dict.fromkeys([*WORD.findall(CJK_RUN.sub(" ", text)), *english_words(text)]))


def chinese_words(text: str) -> list[str]:
    """Chinese headwords for the English words in `text`, in order, each once."""
    out: dict[str, None] = {}
    for word in WORD.findall(text):
        out.update(dict.fromkeys(chinese_of(word)))
    return list(out)


def in_english(text: str) -> str:
    """`text` with each run of Han characters replaced by the English words of its headwords, the rest (names,
    code, Latin words) kept where it was: "日志统一用 structlog 输出 JSON" → "journal log unify … structlog export
    output JSON". What a model that reads English compares with an English question."""

    def said(run: re.Match[str]) -> str:
        words = dict.fromkeys(word for _, head in headwords(run.group()) for word in english_of(head))
        return f" {' '.join(words)} "

    return with_kinds(" ".join(CJK_RUN.sub(said, text).split()))


def with_kinds(text: str) -> str:
    """`text` followed by what the well-known software it names is (`NAMES`), each word once: "We use FastAPI"
    → "We use FastAPI web framework python api". `text` itself when it names none."""
    kinds = dict.fromkeys(kind for word in WORD.findall(text) for kind in _names().get(word.lower(), "").split())
    for word in WORD.findall(text.lower()):
        kinds.pop(word, None)  # said already
    return f"{text} {' '.join(kinds)}" if kinds else text
