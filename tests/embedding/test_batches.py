"""Batch planning and running (embedding/base.py): pure, no model, no disk."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from aimate_memory.embedding.base import embed_batches, embed_sorted, plan_batches, run_batches, worker_count

TEXTS = ["a much longer text than the others", "short", "会话缓存", "medium length text", "x", "登录测试为什么失败"]


def fake_model(texts: list[str]) -> np.ndarray:
    """A deterministic 'model': each vector encodes its text's length and first character."""
    return np.array([[len(t), ord(t[0]) % 97, 1.0] for t in texts], dtype=np.float32)


def test_batches_hold_texts_of_similar_length_and_map_back_to_their_rows() -> None:
    batches = plan_batches(TEXTS, fake_model, 2, rows=[10, 11, 12, 13, 14, 15], columns=slice(3, 6))
    assert [len(b.texts) for b in batches] == [2, 2, 2]
    lengths = [[len(t) for t in b.texts] for b in batches]
    assert lengths == sorted(lengths) and all(a <= b for a, b in lengths)
    for batch in batches:
        assert batch.columns == slice(3, 6)
        assert [TEXTS[row - 10] for row in batch.rows] == batch.texts
    assert batches[-1].cost > batches[0].cost  # the longest texts cost the most


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_any_number_of_workers_fills_the_same_rows_and_columns(workers: int) -> None:
    texts_a, texts_b = TEXTS, TEXTS[:3]
    batches = [
        *plan_batches(texts_a, fake_model, 2, columns=slice(0, 3)),
        *plan_batches(texts_b, lambda t: fake_model(t) * 2, 1, rows=[5, 0, 2], columns=slice(3, 6)),
    ]
    out = run_batches(batches, np.zeros((6, 6), dtype=np.float32), workers)
    assert np.array_equal(out[:, :3], fake_model(texts_a))
    assert np.array_equal(out[[5, 0, 2], 3:], fake_model(texts_b) * 2)
    assert not out[[1, 3, 4], 3:].any()


def test_workers_run_side_by_side_longest_first() -> None:
    started: list[int] = []
    both_running = threading.Barrier(2, timeout=5)

    def model(texts: list[str]) -> np.ndarray:
        started.append(len(texts[0]))
        if len(started) <= 2:
            both_running.wait()  # the first two batches must be running at the same time
        return fake_model(texts)

    run_batches(plan_batches(TEXTS, model, 1), np.zeros((6, 3), dtype=np.float32), workers=2)
    assert sorted(started[:2], reverse=True) == sorted(map(len, TEXTS), reverse=True)[:2]


def test_a_failing_batch_fails_the_whole_run() -> None:
    def broken(texts: list[str]) -> np.ndarray:
        if "x" in texts:
            raise RuntimeError("model crashed")
        return fake_model(texts)

    with pytest.raises(RuntimeError, match="model crashed"):
        run_batches(plan_batches(TEXTS, broken, 1), np.zeros((6, 3), dtype=np.float32), workers=2)


def test_embedding_in_parallel_equals_one_after_the_other_and_rows_are_unit_length() -> None:
    sequential = embed_sorted(TEXTS, 3, fake_model, 2)
    assert np.allclose(np.linalg.norm(sequential, axis=1), 1.0)
    parallel = embed_batches(plan_batches(TEXTS, fake_model, 2), len(TEXTS), 3, threads=2)
    assert np.allclose(parallel / np.linalg.norm(parallel, axis=1, keepdims=True), sequential)
    assert embed_sorted([], 3, fake_model, 2).shape == (0, 3)


def test_worker_count_follows_the_threads_setting_else_the_cores() -> None:
    assert worker_count(3) == 3 and worker_count(1) == 1
    assert worker_count(None) >= 1


def test_the_threads_setting_is_validated_before_any_model_loads() -> None:
    from aimate_memory.embedding import EmbedderUnavailable, create_embedder

    with pytest.raises(EmbedderUnavailable) as error:
        create_embedder({"provider": "use", "threads": -2})
    assert "embedding.threads" in error.value.message and "config set embedding.threads 0" in error.value.hint


def test_a_handful_of_texts_is_embedded_on_the_calling_thread_with_the_same_vectors() -> None:
    threads: set[int] = set()

    def model(texts: list[str]) -> np.ndarray:
        threads.add(threading.get_ident())
        return fake_model(texts)

    few = embed_batches(plan_batches(TEXTS, model, 1), len(TEXTS), 3, threads=2)
    assert threads == {threading.get_ident()}  # a request's few texts: no pool
    many_texts = TEXTS * 3  # over FEW_TEXTS: side by side on the pool's threads
    threads.clear()
    many = embed_batches(plan_batches(many_texts, model, 1), len(many_texts), 3, threads=2)
    assert threading.get_ident() not in threads
    assert np.array_equal(few, fake_model(TEXTS)) and np.array_equal(many, fake_model(many_texts))
