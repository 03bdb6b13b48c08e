"""fastembed (ONNX Runtime) provider for a model the user names (`embedding.model`), downloaded on first use.

The bundled offline MiniLM does not come through here (minilm.py runs it). A named model is looked up in
fastembed's cache first; if it is missing we check that the model hub is reachable *before* asking fastembed
(which would otherwise retry for ~40 s offline), then let it download with a progress bar.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from aimate_memory.embedding.base import EmbedderUnavailable, embed_sorted, l2_normalize
from aimate_memory.embedding.minilm import default_cache_dir

_PROVIDER_VERSION = "1"
_HUB_HOST = "huggingface.co"
# Online models known to read Chinese (lower-cased substrings of the model name).
_CJK_MODEL_HINTS = ("multilingual", "-zh", "_zh", "bge-m3", "labse", "chinese", "jina-embeddings-v2-base-zh")

_SWITCH_BACK = (
    "set `embedding.model` back to null (the bundled offline MiniLM) with "
    "`aimate mem config set embedding.model null`, or use `embedding.provider: use`"
)


def hub_reachable(timeout: float = 2.0) -> bool:
    """Whether the model hub answers a TCP connect within ``timeout`` seconds (DNS included)."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip() not in ("", "0") or os.environ.get("AIMATE_OFFLINE"):
        return False
    host = _HUB_HOST
    endpoint = os.environ.get("HF_ENDPOINT", "")
    if endpoint:
        host = endpoint.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0] or host
    result: list[bool] = []

    def probe() -> None:
        try:
            with socket.create_connection((host, 443), timeout=timeout):
                result.append(True)
        except OSError:
            result.append(False)

    t = threading.Thread(target=probe, daemon=True)  # getaddrinfo ignores socket timeouts
    t.start()
    t.join(timeout + 0.5)
    return bool(result and result[0])


def _quiet_fastembed() -> None:
    try:
        from loguru import logger

        logger.disable("fastembed")
    except ImportError:  # pragma: no cover - loguru is a fastembed dependency
        pass


class FastEmbedEmbedder:
    """A fastembed text model named by the user (`embedding.model`)."""

    def __init__(
        self,
        model: str,
        cache_dir: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        batch_size: int = 4,  # see minilm.MiniLMEmbedder: small batches won for MiniLM
        connect_timeout: float = 2.0,
    ) -> None:
        self.model_name = model
        self.batch_size = batch_size
        cache = Path(cache_dir) if cache_dir else default_cache_dir()
        # Two ONNX sessions: queries run single-threaded (see minilm._session), batches on `threads`.
        self._model = self._load(model, cache, 1, connect_timeout)
        self._batch_model: Any = None
        self._batch_settings = (model, cache, threads, connect_timeout)
        self._batch_lock = threading.Lock()
        self.dimension = int(self._model.embedding_size)
        lower = model.lower()
        cjk = any(h in lower for h in _CJK_MODEL_HINTS)
        self.languages: frozenset[str] = frozenset({"latin", "cjk"} if cjk else {"latin"})
        self.identity = f"fastembed:{model}:{self.dimension}:v{_PROVIDER_VERSION}"

    @staticmethod
    def _load(model: str, cache: Path, threads: int | None, connect_timeout: float) -> Any:
        try:
            _quiet_fastembed()
            from fastembed import TextEmbedding
        except ImportError as e:
            raise EmbedderUnavailable(
                f"fastembed cannot be imported ({e})", "reinstall aimate-memory with its dependencies"
            ) from e
        supported = {d["model"].lower() for d in TextEmbedding.list_supported_models()}
        if model.lower() not in supported:
            raise EmbedderUnavailable(
                f"fastembed does not know the model {model!r}",
                "pick a name from `python -c 'from fastembed import TextEmbedding as T; "
                f"print(T.list_supported_models())'`, or {_SWITCH_BACK}",
            )
        try:  # already downloaded?
            return TextEmbedding(model, cache_dir=str(cache), threads=threads, local_files_only=True)
        except Exception:
            pass
        if not hub_reachable(connect_timeout):
            raise EmbedderUnavailable(
                f"embedding model {model!r} is not downloaded yet and the model hub ({_HUB_HOST}) is unreachable",
                f"connect to the internet once so it can download into {cache}, or {_SWITCH_BACK}",
            )
        try:
            return TextEmbedding(model, cache_dir=str(cache), threads=threads)
        except Exception as e:
            raise EmbedderUnavailable(
                f"downloading embedding model {model!r} failed: {e}", f"try again later, or {_SWITCH_BACK}"
            ) from e

    def _batch(self, texts: list[str]) -> np.ndarray:
        with self._batch_lock:
            if self._batch_model is None:
                self._batch_model = self._load(*self._batch_settings)
        return np.stack(list(self._batch_model.embed(texts, batch_size=len(texts))))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return embed_sorted(list(texts), self.dimension, self._batch, self.batch_size)

    def embed_query(self, text: str) -> np.ndarray:
        vec = next(iter(self._model.query_embed(text)))
        normalized: np.ndarray = l2_normalize(np.asarray(vec)[None, :])[0]
        return normalized
