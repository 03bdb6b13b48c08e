"""A stronger model when the person has one: an OpenAI-compatible embeddings endpoint (docs/design.md,
"Embeddings from an endpoint").

Config (`embedding.*`): `provider: endpoint`, `base_url` (e.g. ``http://127.0.0.1:11434/v1`` for a local
Ollama, TEI or vLLM serving bge-m3), `model`, `dimensions` (0: the model's own; else asked of the server and
checked), `api_key_env` (the name of the environment variable that holds the key — the key itself is never
in a config file; no variable: no `Authorization` header). The server gets ``POST {base_url}/embeddings``
with ``{"model", "input": [texts]}`` (and ``"dimensions"`` when set) and answers ``{"data": [{"index",
"embedding"}]}``. Only the standard library: nothing is imported for the default offline models.

The model is taken to read Chinese and English (bge-m3 and its peers are multilingual). The first request is
a probe at load: a server that does not answer makes :class:`EmbedderUnavailable`, and the lazy embedder
falls back to the offline default with a warning (embedding/lazy.py).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Sequence

import numpy as np

from aimate_memory.embedding.base import EmbedderUnavailable, l2_normalize

BATCH = 64  # texts a request
TIMEOUT_S = 30.0  # a request of documents (a sync, the re-embedding worker: 64 texts a batch)
# What a person waits on — the probe at load and a search's query — waits less: a search must not hang on a
# dead or stalled server (it answers by keywords and says why: retrieval/hybrid.py).
PROBE_TIMEOUT_S = 3.0
_VERSION = "1"


class EndpointEmbedder:
    languages: frozenset[str] = frozenset({"latin", "cjk"})
    remote = True  # plain HTTP, nothing native: a query embedded ahead may be abandoned at exit (base.abandonable)

    def __init__(
        self, base_url: str, model: str, dimensions: int = 0, api_key_env: str | None = None, probe: bool = True
    ) -> None:
        if not base_url or not model:
            raise EmbedderUnavailable(
                "the endpoint embedding provider needs embedding.base_url and embedding.model",
                "aimate mem config set embedding.base_url http://127.0.0.1:11434/v1",
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.requested = int(dimensions or 0)
        self._key = os.environ.get(api_key_env) if api_key_env else None
        self.dimension = self.requested
        if probe:
            self.dimension = len(self._request(["dimension probe"], PROBE_TIMEOUT_S)[0])
        self.identity = f"endpoint:{self.model}:{self.dimension}:v{_VERSION}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            out[start : start + BATCH] = self._request(texts[start : start + BATCH], TIMEOUT_S)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self._request([text], PROBE_TIMEOUT_S)[0]
        return vector

    def _request(self, texts: list[str], timeout: float) -> np.ndarray:
        """One call to the endpoint: unit vectors in the order of `texts`, or EmbedderUnavailable saying why."""
        body: dict[str, object] = {"model": self.model, "input": texts}
        if self.requested:
            body["dimensions"] = self.requested
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(
            f"{self.base_url}/embeddings", json.dumps(body).encode("utf-8"), headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                answer = json.loads(response.read().decode("utf-8"))
            rows = sorted(answer["data"], key=lambda row: int(row.get("index", 0)))
            vectors = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
        except (OSError, ValueError, KeyError, TypeError) as exc:  # URLError and timeouts are OSErrors
            raise EmbedderUnavailable(
                f"the embedding endpoint {self.base_url} did not answer ({type(exc).__name__}: {exc})",
                "check that the server runs, or `aimate mem config set embedding.provider auto`",
            ) from exc
        if vectors.ndim != 2 or len(vectors) != len(texts) or (self.dimension and vectors.shape[1] != self.dimension):
            raise EmbedderUnavailable(
                f"the embedding endpoint {self.base_url} answered {vectors.shape} vectors for {len(texts)} texts",
                "check embedding.model and embedding.dimensions",
            )
        return l2_normalize(vectors)
