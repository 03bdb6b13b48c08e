"""Embeddings, offline (docs/design.md §11): the providers and the one function that builds them.

Importing this package is cheap: fastembed/onnxruntime and the USE weights are loaded only when
:func:`create_embedder` builds an embedder.

Providers (config ``embedding.provider``):

- ``auto`` (default): bundled MiniLM for Latin-script text + multilingual USE, one 896-d space
  (see :mod:`aimate_memory.embedding.auto_provider`). Offline.
- ``fastembed``: ``embedding.model`` null → the bundled MiniLM (384-d, English only, offline); any
  fastembed model name → downloaded on first use (fails at once, with a hint, when offline).
- ``use``: multilingual USE v3 only (512-d, offline, pure numpy).
- ``endpoint``: an OpenAI-compatible embeddings server the person runs or pays for (``base_url``, ``model``,
  ``dimensions``, ``api_key_env``; :mod:`aimate_memory.embedding.endpoint_provider`). When it does not
  answer, the lazy embedder falls back to ``auto`` with a warning (embedding/lazy.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aimate_memory.embedding.base import Embedder, EmbedderUnavailable, l2_normalize

__all__ = ["PROVIDERS", "Embedder", "EmbedderUnavailable", "create_embedder", "l2_normalize"]

PROVIDERS = ("auto", "fastembed", "use", "endpoint")  # config/defaults.py CHOICES lists the same


def create_embedder(settings: Mapping[str, Any] | None = None) -> Embedder | None:
    """Build the embedder the ``embedding`` config section asks for; None when ``enabled`` is false.

    Keys: ``enabled`` (bool, default true), ``provider`` ("auto" | "fastembed" | "use" | "endpoint"), ``model``
    (fastembed model name; None = bundled MiniLM), ``cache_dir`` (model files; default
    ``$AIMATE_HOME/state/models``), ``threads`` (batch workers; 0 or None: every core), ``latin_weight``
    (auto only).
    Raises :class:`EmbedderUnavailable` (message + hint) when it cannot be loaded.
    """
    s = dict(settings or {})
    if not s.get("enabled", True):
        return None
    provider = (s.get("provider") or "auto").lower()
    model = s.get("model") or None
    cache_dir = s.get("cache_dir") or None
    threads = int(s.get("threads") or 0) or None  # 0: every core
    if threads is not None and threads < 0:
        raise EmbedderUnavailable(
            f"embedding.threads must be 0 (every core) or a number of threads, got {threads}",
            "aimate mem config set embedding.threads 0",
        )
    if provider == "endpoint":
        from aimate_memory.embedding.endpoint_provider import EndpointEmbedder

        return EndpointEmbedder(
            s.get("base_url") or "", model or "", int(s.get("dimensions") or 0), s.get("api_key_env") or None
        )
    if provider == "use":
        from aimate_memory.embedding.use_provider import UseEmbedder

        return UseEmbedder(threads=threads, cache_dir=_use_cache(cache_dir))
    if provider == "fastembed":
        if not model:
            from aimate_memory.embedding.minilm import MiniLMEmbedder

            return MiniLMEmbedder(cache_dir=cache_dir, threads=threads)
        from aimate_memory.embedding.fastembed_provider import FastEmbedEmbedder

        return FastEmbedEmbedder(model, cache_dir=cache_dir, threads=threads)
    if provider == "auto":
        if model:  # a user-chosen fastembed model: if it reads Chinese it serves everything alone
            from aimate_memory.embedding.fastembed_provider import FastEmbedEmbedder

            emb = FastEmbedEmbedder(model, cache_dir=cache_dir, threads=threads)
            if "cjk" in emb.languages:
                return emb
            return _with_use(emb, s, threads, cache_dir)
        return _with_use(None, s, threads, cache_dir)
    raise EmbedderUnavailable(
        f"unknown embedding provider {provider!r}",
        f"set `embedding.provider` to one of: {', '.join(PROVIDERS)}",
    )


def _with_use(latin: Embedder | None, s: dict[str, Any], threads: int | None, cache_dir: str | None) -> Embedder:
    """The auto pair: `latin` (None: the bundled MiniLM, loaded here) with USE. The two load side by side: USE
    on a thread (its tokenizer unpickles under the GIL) while ONNX Runtime builds MiniLM's session without it."""
    from concurrent.futures import ThreadPoolExecutor

    from aimate_memory.embedding.auto_provider import DEFAULT_LATIN_WEIGHT, AutoEmbedder
    from aimate_memory.embedding.minilm import MiniLMEmbedder
    from aimate_memory.embedding.use_provider import UseEmbedder

    with ThreadPoolExecutor(1, thread_name_prefix="aimate-use-load") as pool:
        universal = pool.submit(UseEmbedder, threads=threads, cache_dir=_use_cache(cache_dir))
        if latin is None:
            latin = MiniLMEmbedder(cache_dir=cache_dir, threads=threads)
        weight = float(s.get("latin_weight", DEFAULT_LATIN_WEIGHT))
        return AutoEmbedder(latin, universal.result(), latin_weight=weight, threads=threads)


def _use_cache(cache_dir: str | None) -> Path:
    from aimate_memory.embedding.minilm import default_cache_dir

    return Path(cache_dir) if cache_dir else default_cache_dir()
