"""`VectorMemo` (embedding/memo.py): each text embedded once per process, rows in the order asked, bounded —
with the real USE model, English and Chinese."""

from __future__ import annotations

import numpy as np
import pytest

from aimate_memory.embedding.memo import VectorMemo


class Counting:
    """A real model's `embed`/`embed_query`, counting the texts it was asked to read."""

    def __init__(self, model) -> None:
        self.model = model
        self.read: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.read.extend(texts)
        return np.asarray(self.model.embed(texts))

    def embed_query(self, text: str) -> np.ndarray:
        self.read.append(text)
        return np.asarray(self.model.embed_query(text))


@pytest.fixture(scope="module")
def use_model():
    from aimate_memory.embedding import EmbedderUnavailable, create_embedder

    try:
        return create_embedder({"provider": "use", "threads": 1})
    except EmbedderUnavailable as exc:
        pytest.skip(f"USE is not available here: {exc.message}")


def test_each_text_is_read_once_and_rows_come_in_the_order_asked(use_model) -> None:
    model, memo = Counting(use_model), VectorMemo(size=3)
    texts = ["We decided to use Redis for sessions", "我们决定用 Redis 做会话缓存"]
    first = memo.vectors(texts, model.embed)
    assert model.read == texts
    again = memo.vectors([texts[1], texts[0], texts[1]], model.embed)
    assert model.read == texts  # nothing read again
    np.testing.assert_array_equal(again, first[[1, 0, 1]])
    np.testing.assert_allclose(first, np.asarray(use_model.embed(texts)), atol=1e-6)
    query = memo.vector("缓存用什么", model.embed_query)
    query[:] = 0  # a caller changing its copy in place does not change what is kept
    kept = memo.vector("缓存用什么", model.embed_query)
    np.testing.assert_allclose(kept, use_model.embed_query("缓存用什么"), atol=1e-6)
    assert model.read[-1] == "缓存用什么"
    assert len(model.read) == 3
    memo.vectors(["Deploy with Helm", "部署用 Helm"], model.embed)  # over the size: the oldest goes
    assert len(memo) == 3
    memo.vectors([texts[0]], model.embed)
    assert model.read[-1] == texts[0]  # it had gone, so it was read again
