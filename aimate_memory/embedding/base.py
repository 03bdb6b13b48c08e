"""What every embedding provider offers, and helpers they share. Imports numpy only."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from aimate_memory.errors import AimateError


class EmbedderUnavailable(AimateError):
    """The configured embedder cannot be loaded. Search falls back to keywords and shows ``hint``."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message, hint)


@runtime_checkable
class Embedder(Protocol):
    #: provider + model + dimension + version: stored in the index; a change rebuilds the vectors.
    identity: str
    dimension: int
    #: scripts whose text this embedder understands: a subset of {"latin", "cjk"}.
    languages: frozenset[str]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dimension) float32, rows L2-normalized, in the order given."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dimension,) float32, L2-normalized."""
        ...


# The scripts a text of each kind needs its embedder to read ("mixed" holds Latin and CJK runs).
_SCRIPT_NEEDS = {"latin": frozenset({"latin"}), "cjk": frozenset({"cjk"}), "mixed": frozenset({"latin", "cjk"})}


def understands(languages: Iterable[str], script: str) -> bool:
    """Whether an embedder declaring ``languages`` can read text of ``script`` (latin/cjk/mixed)."""
    return _SCRIPT_NEEDS.get(script, frozenset({script})) <= frozenset(languages)


def l2_normalize(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as C-contiguous float32."""
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(x / norms, dtype=np.float32)


def embed_sorted(
    texts: Sequence[str], dimension: int, batch_fn: Callable[[list[str]], np.ndarray], batch_size: int
) -> np.ndarray:
    """Embed ``texts`` in batches of similar length, and return the rows in the original order.

    ONNX models pad each batch to its longest text; sorting by length first doubled MiniLM's throughput
    here (docs/design.md §11).
    """
    n = len(texts)
    out = np.zeros((n, dimension), dtype=np.float32)
    if n == 0:
        return out
    order = sorted(range(n), key=lambda i: len(texts[i]))
    for start in range(0, n, batch_size):
        idx = order[start : start + batch_size]
        out[idx] = batch_fn([texts[i] for i in idx])
    return l2_normalize(out)
