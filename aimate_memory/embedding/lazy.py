"""The embedder as a lazily loaded dependency: loading a model costs ~1 s, so it happens only when a
chunk must be embedded or a query vector is needed, once per process, and a failure degrades to
keyword search instead of stopping anything (docs/design.md §2.5)."""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aimate_memory.embedding.base import Embedder, EmbedderUnavailable, abandonable, release_memory
from aimate_memory.embedding.memo import VectorMemo
from aimate_memory.embedding.stored import FILE as STORED_FILE
from aimate_memory.embedding.stored import StoredVectors
from aimate_memory.text.bridge import keep_packed_in

log = logging.getLogger(__name__)

#: The bundled MiniLM's vectors change with the code, not with the config: this number in the index fingerprint
#: makes the next sync re-embed every chunk once. 2: it runs dynamically quantized (minilm_quantize.py).
BUNDLED_MINILM_REVISION = 2
# A home without a model cache keeps the bridge's packed lexicon here, under its state folder (`embedder_for`).
LEXICON_FOLDER = "lexicon"
MEMO_SIZE = 1024  # queries and documents each: ~3.5 MB at 896 dimensions (embedding/memo.py)


def uses_bundled_minilm(settings: dict[str, Any]) -> bool:
    provider = (settings.get("provider") or "auto").lower()
    return provider in ("auto", "fastembed") and not settings.get("model")


if TYPE_CHECKING:
    import numpy as np

    from aimate_memory.config import Config


def embedder_for(config: Config, state_dir: Path) -> LazyEmbedder:
    """The configured embedder, not loaded yet; models are cached under `state_dir` unless configured."""
    settings = config.section("embedding")
    settings["cache_dir"] = model_cache_dir(settings.get("cache_dir"), state_dir)
    # The bridge's packed lexicon is kept beside the models: a process without a daemon reads it instead of
    # packing it again (~0.2 s of a cold search's CPU; text/bridge.py). A home without a model cache
    # (keyword-only, an endpoint) keeps it in `state/lexicon`: each of its prompt hooks and searches packed it
    # again (0.2-0.3 s; docs/design.md, "The lexicon is packed once per home").
    cache = Path(settings["cache_dir"])
    own = not cache.is_dir()
    keep_packed_in(state_dir / LEXICON_FOLDER if own else cache, make=own)
    return LazyEmbedder(settings, stored=StoredVectors(state_dir / STORED_FILE))


def model_cache_dir(configured: str | None, state_dir: Path) -> str:
    """The model cache: the person's `embedding.cache_dir` when it is an absolute path, else `state/models`.
    A relative one would be read from wherever a command runs — inside a cloned repository, whose files are
    not the person's (docs/reliability.md, "Trust model")."""
    if configured and Path(configured).expanduser().is_absolute():
        return str(Path(configured).expanduser())
    return str(state_dir / "models")


class LazyEmbedder:
    def __init__(
        self, settings: dict[str, Any], preloaded: Embedder | None = None, stored: StoredVectors | None = None
    ) -> None:
        self.settings = dict(settings)
        self._embedder = preloaded
        # The MCP server and the daemon warm the model on a thread while requests arrive: one load only.
        self._loading = threading.Lock()
        # The query start_loading embeds ahead, its vector, and whether that is done (set: nothing pending).
        self._ahead_for: str | None = None
        self._ahead: Any = None
        self._ahead_ready = threading.Event()
        self._ahead_ready.set()
        self.unavailable: EmbedderUnavailable | None = None
        # Texts embedded before in this process (the daemon's `remember` reads one sentence several times).
        self._queries = VectorMemo(MEMO_SIZE)
        self._documents = VectorMemo(MEMO_SIZE)
        # Documents embedded by any process before, on disk (embedding/stored.py): what a cold search re-embedded.
        self._stored = stored
        #: why this process uses the offline default instead of the configured endpoint (None: it does not)
        self.fallback: str | None = None
        if not self.settings.get("enabled", True):
            self.unavailable = EmbedderUnavailable(
                "vector search is off (embedding.enabled is false)",
                "aimate mem config set embedding.enabled true",
            )

    @property
    def fingerprint(self) -> str:
        """Which vectors the config asks for, known without loading anything: a change means a rebuild.
        `enabled` is not part of it: turning vectors off and on again keeps the ones already computed.
        An endpoint is the exception: whether it answers decides which model this process uses (it falls back
        to the offline default), so it is asked first — vectors of two models never meet in one index."""
        if self.enabled and self.settings.get("provider") == "endpoint":
            self.get()
        keys = ("provider", "model")
        chosen: dict[str, Any] = {key: self.settings.get(key) for key in keys}
        if self.settings.get("provider") == "endpoint":
            chosen["dimensions"] = self.settings.get("dimensions") or 0
        if uses_bundled_minilm(self.settings):
            chosen["minilm"] = BUNDLED_MINILM_REVISION
        return json.dumps(chosen, sort_keys=True)

    @property
    def enabled(self) -> bool:
        return bool(self.settings.get("enabled", True))

    @property
    def loaded(self) -> bool:
        return self._embedder is not None

    def get(self) -> Embedder | None:
        """The embedder, or None (with `unavailable` saying why and how to fix it)."""
        if self._embedder is not None or self.unavailable is not None:
            return self._embedder
        with self._loading:
            if self._embedder is None and self.unavailable is None:
                self._load()
        return self._embedder

    def start_loading(self, query: str | None = None) -> None:
        """For a process that searches once or twice and exits (a CLI search): load the model on a thread,
        and embed `query` there too, while the caller imports the facade,
        syncs and runs its keyword half; `get()` and `embed_query()` then wait for it. Called again with a
        query while an earlier call is still loading, that query is embedded as soon as the model is there.
        ONNX Runtime works without holding the GIL, which is what overlaps (docs/benchmarks.md, "Cold start")."""
        if self.unavailable is not None:
            return
        if self._embedder is not None and query is None:
            return
        if query is not None:
            self._ahead_for, self._ahead = query, None
            self._ahead_ready.clear()
        # Not a daemon thread: Python waits for it at exit. A process that ended while ONNX Runtime was still
        # building its session (a search that needed no vector) died of std::terminate, exit -6 (a test caught it).
        threading.Thread(target=self._load_ahead, args=(query,), name="aimate-model-load", daemon=False).start()

    def _load_ahead(self, query: str | None) -> None:
        embedder: Embedder | None = None
        with contextlib.suppress(Exception):  # loaded again by the caller, which then sees the error
            embedder = self.get()  # loads, or waits for the load another call started
        if query is None:
            return
        if embedder is not None and abandonable(embedder):
            # A request to a server: a search that never needs the vector (keywords while a re-embedding waits
            # on the same server) exits without waiting for its answer (docs/design.md, "A search never waits
            # on the endpoint it does not need").
            threading.Thread(target=self._embed_ahead, args=(embedder, query), name="aimate-query", daemon=True).start()
        else:
            self._embed_ahead(embedder, query)

    def _embed_ahead(self, embedder: Embedder | None, query: str) -> None:
        try:
            if embedder is not None:
                vector = embedder.embed_query(query)
                if self._ahead_for == query:
                    self._ahead = vector
        except Exception:  # embedded again by the caller, which then sees the error
            pass
        finally:
            self._ahead_ready.set()

    def embed_query(self, text: str) -> Any:
        """The loaded embedder's vector for `text` (the one embedded ahead by `start_loading`, if it is)."""
        if text == self._ahead_for:
            self._ahead_ready.wait()
        embedder = self.get()
        if embedder is None:
            raise self.unavailable or EmbedderUnavailable("no embedder", None)
        if self._ahead is not None and text == self._ahead_for:
            return self._ahead
        return self._queries.vector(text, embedder.embed_query)

    def embed_documents(self, texts: list[str]) -> Any:
        """The loaded embedder's unit rows for `texts` as documents (`Embedder.embed`), each text embedded once
        per process: for comparing a few texts (capture's supersede check), not for syncing an index, whose
        vectors are cached by chunk in the index itself."""
        embedder = self.get()
        if embedder is None:
            raise self.unavailable or EmbedderUnavailable("no embedder", None)
        return self._documents.vectors(texts, lambda new: self._stored_or_embedded(embedder, new))

    def _stored_or_embedded(self, embedder: Embedder, texts: list[str]) -> np.ndarray:
        """`embedder.embed(texts)`, each row read from the stored vectors when a process embedded it before; the
        rows embedded here are stored for the next one."""
        if self._stored is None:
            return embedder.embed(texts)
        import numpy as np

        namespace = f"{embedder.identity}|{self.settings.get('base_url') or ''}"
        # A row of another length (a damaged or forged file) is embedded again, never stacked.
        found = {
            text: row for text, row in self._stored.read(namespace, texts).items() if len(row) == embedder.dimension
        }
        missing = [text for text in texts if text not in found]
        if missing:
            fresh = dict(zip(missing, np.asarray(embedder.embed(missing), dtype=np.float32), strict=True))
            self._stored.write(namespace, fresh)
            found.update(fresh)
        return np.vstack([found[text] for text in texts])

    def release_memory(self, lookups: bool = False) -> None:
        """What the loaded model can give back between bursts of work (`base.release_memory`)."""
        if self._embedder is not None:
            release_memory(self._embedder, lookups)

    def _load(self) -> None:
        from aimate_memory.embedding import create_embedder

        try:
            self._embedder = create_embedder(self.settings)
        except EmbedderUnavailable as exc:
            if self.settings.get("provider") != "endpoint":
                self.unavailable = exc
                return
            self._fall_back(exc)
        except Exception as exc:  # a broken model file or runtime must not take search down with it
            self.unavailable = EmbedderUnavailable(
                f"the embedding model could not be loaded ({type(exc).__name__}: {exc})",
                "run `aimate mem diagnose`, or `aimate mem config set embedding.enabled false`",
            )

    def _fall_back(self, failed: EmbedderUnavailable) -> None:
        """The endpoint did not answer: the offline default serves this process, said in a warning (logged, and
        shown with every search: retrieval/hybrid.py) — never silently."""
        self.fallback = f"{failed.message}; using the offline model instead"
        log.warning("%s", self.fallback)
        self.settings = {**self.settings, "provider": "auto", "model": None}
        self._load()
