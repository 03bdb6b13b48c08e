"""`VectorMemo`: the vectors of texts a process embedded lately, kept by text (bounded, least recently used out).

A long-lived process embeds the same texts again and again: one `remember` through the daemon read the sentence
three times (capture's kind model, the supersede search's query, the conflict check's search) and embedded the
bodies of the memories it compared with, which the next `remember` compares with again (docs/benchmarks.md,
"Waits"). A model's vector for a text never changes while the process runs, so a vector read before is the same
answer at no cost. Thread-safe (one lock, the embedding inside it): the MCP server embeds on its worker thread."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where an array is made (embedding/base.py)
    import numpy as np

REMEMBERED = 4096  # texts kept: ~3.5 KB each at 896 dimensions (float32), ~14 MB at most


class VectorMemo:
    """`vectors(texts, embed)`: one row per text, embedding with `embed` only the texts not kept yet."""

    def __init__(self, size: int = REMEMBERED) -> None:
        self._size = size
        self._kept: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, texts: Sequence[str], embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        import numpy as np

        # One lock around the embedding too: two threads asking for the same new text embed it once, and a
        # row is never evicted between being found and being read.
        with self._lock:
            new = list(dict.fromkeys(text for text in texts if text not in self._kept))
            if new:
                self._kept.update(zip(new, np.asarray(embed(new), dtype=np.float32), strict=True))
            rows = []
            for text in texts:
                self._kept.move_to_end(text)
                rows.append(self._kept[text])
            self._trim()
        return np.vstack(rows) if rows else np.zeros((0, 0), dtype=np.float32)  # vstack copies

    def vector(self, text: str, embed: Callable[[str], np.ndarray]) -> np.ndarray:
        """One text's vector, `embed(text)` when it is not kept (a model's own query path)."""
        import numpy as np

        with self._lock:
            if text not in self._kept:
                self._kept[text] = np.asarray(embed(text), dtype=np.float32)
            self._kept.move_to_end(text)
            row: np.ndarray = self._kept[text].copy()
            self._trim()
        return row  # the caller may change its copy in place; the kept one stays as the model gave it

    def _trim(self) -> None:
        while len(self._kept) > self._size:
            self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)
