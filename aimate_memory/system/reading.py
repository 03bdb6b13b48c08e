"""`SentenceReader`: the multilingual USE model as capture reads sentences — the kind model's input
(capture/model.py) and the space conflicts are measured in (capture/conflict.py), where English and Chinese
sentences on one subject land close together."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from aimate_memory.capture.model import EMBEDDER as KIND_EMBEDDER
from aimate_memory.embedding.base import Embedder
from aimate_memory.embedding.memo import VectorMemo
from aimate_memory.system.store import Store

log = logging.getLogger(__name__)
REMEMBERED = 4096  # sentences whose vectors a long-lived process (daemon, MCP server) keeps


class SentenceReader:
    """Offers `vector` (one sentence) and `vectors` (several, unit rows), or None when USE cannot load."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._own: Embedder | None = None
        self._own_tried = False
        self._seen = VectorMemo(REMEMBERED)  # as documents (`embed`): what conflicts compare
        self._queries = VectorMemo(REMEMBERED)  # through the model's query path: what the kind model reads

    def reader(self) -> Embedder | None:
        """The USE half of the default embedder (or USE itself). When vector search is off or uses another
        model, capture still reads the sentence with USE (`capture.embedding`, default on): filing a sentence
        should not get worse because search is keyword-only (dev split: layer accuracy .87 with the vector,
        .74 from the cue features alone). None when USE cannot load."""
        if self._store.embedder.enabled:
            embedder = self._store.embedder.get()
            universal = getattr(embedder, "universal", embedder)
            if universal is not None and str(getattr(universal, "identity", "")).startswith(KIND_EMBEDDER):
                return universal  # the auto embedder's USE half, or USE itself
        if self._store.config.get("capture.embedding"):
            return self._own_reader()
        return None

    def _own_reader(self) -> Embedder | None:
        """USE on its own, loaded once per process (~0.15 s from the model cache, docs/design.md §11)."""
        if not self._own_tried:
            from aimate_memory.embedding import EmbedderUnavailable, create_embedder

            self._own_tried = True
            settings = {"provider": "use", "cache_dir": self._store.embedder.settings.get("cache_dir"), "threads": 1}
            try:
                self._own = create_embedder(settings)
            except EmbedderUnavailable as error:
                log.info("capture reads no vector: %s", error)
        return self._own

    def vector(self, text: str) -> np.ndarray | None:
        """One sentence's unit vector, kept with the others: `remember` reads its sentence for the kind model
        and then for the conflict check, which then costs no second reading."""
        reader = self.reader()
        return self._queries.vector(text, reader.embed_query) if reader is not None else None

    def vectors(self, texts: Sequence[str]) -> np.ndarray | None:
        """Unit rows, one per text; texts read before in this process are not read again."""
        reader = self.reader()
        return self._seen.vectors(texts, reader.embed) if reader is not None else None
