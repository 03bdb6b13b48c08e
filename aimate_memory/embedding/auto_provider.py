"""The default embedder: MiniLM for Latin-script text, multilingual USE for everything, in ONE space.

Each vector is the concatenation ``[√w·minilm(text), √(1-w)·use(text)]`` (384 + 512 = 896-d, unit
length). MiniLM cannot read Chinese (every CJK character is [UNK]), so for text that is not Latin script
(:func:`aimate_memory.text.scripts.script_of` ≠ "latin") its half is zero and the USE half has full
weight: ``[0, use(text)]``. Cosine similarity then works out to

- Latin query · Latin doc:  ``w·cos_minilm + (1-w)·cos_use``  (an ensemble of both models)
- anything involving CJK:   ``√(1-w)·cos_use`` or ``cos_use``  (only the model that reads it decides)

so a single sqlite-vec table and a single KNN query serve both languages, and the MiniLM vectors never
decide results for Chinese text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from aimate_memory.embedding.base import Batch, Embedder, embed_batches, release_memory

DEFAULT_LATIN_WEIGHT = 0.8  # LoCoMo/MADial-en flat for 0.7–1.0; < 1 keeps English↔Chinese matching via USE
_VERSION = "1"


def _batches(model: Embedder, texts: list[str], rows: Sequence[int], columns: slice) -> list[Batch]:
    """`model`'s own batches when it plans them (the bundled models), else its whole `embed` as one batch."""
    if not texts:
        return []
    plan = getattr(model, "batches", None)
    if plan is not None:
        planned: list[Batch] = plan(texts, rows, columns)
        return planned
    return [Batch(list(rows), texts, model.embed, columns)]


def _is_latin(text: str) -> bool:
    from aimate_memory.text.scripts import script_of

    return script_of(text) == "latin"


class AutoEmbedder:
    def __init__(
        self,
        latin: Embedder,
        universal: Embedder,
        latin_weight: float = DEFAULT_LATIN_WEIGHT,
        threads: int | None = None,
    ) -> None:
        if not 0.0 <= latin_weight <= 1.0:
            raise ValueError("latin_weight must be within [0, 1]")
        self.latin = latin
        self.universal = universal
        self.latin_weight = latin_weight
        self.threads = threads
        self._a = math.sqrt(latin_weight)
        self._b = math.sqrt(1.0 - latin_weight)
        self.dimension = latin.dimension + universal.dimension
        self.languages: frozenset[str] = frozenset(latin.languages | universal.languages)
        self.identity = f"auto:{latin.identity}+{universal.identity}:w{latin_weight:g}:{self.dimension}:v{_VERSION}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Both models' batches in one pool (base.embed_batches): a worker that finishes its MiniLM batch takes
        the next batch of either model, so neither model waits for the other."""
        texts = list(texts)
        dl = self.latin.dimension
        latin_rows = [i for i, t in enumerate(texts) if _is_latin(t)] if self._a > 0 else []
        batches = [
            *_batches(self.universal, texts, range(len(texts)), slice(dl, None)),
            *_batches(self.latin, [texts[i] for i in latin_rows], latin_rows, slice(0, dl)),
        ]
        out = embed_batches(batches, len(texts), self.dimension, self.threads)
        out[latin_rows, :dl] *= self._a
        out[latin_rows, dl:] *= self._b
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """`embed([text])[0]` through each model's query path, on one thread."""
        dl = self.latin.dimension
        out = np.zeros(self.dimension, dtype=np.float32)
        out[dl:] = self.universal.embed_query(text)
        if self._a > 0 and _is_latin(text):
            out[:dl] = self._a * self.latin.embed_query(text)
            out[dl:] *= self._b
        return out

    def release_memory(self, lookups: bool = False) -> None:
        release_memory(self.latin, lookups)
        release_memory(self.universal, lookups)
