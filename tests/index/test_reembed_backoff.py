"""A re-embedding worker that fails (the endpoint went away mid-way) is not started again by every sync: the
next start waits a backoff that doubles per failure, and a build that succeeds clears it (index/reembed.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.index.reembed import RETRY_AFTER, RETRY_AT_MOST, Reembed
from aimate_memory.index.refresh_report import Progress, RefreshReport
from aimate_memory.index.store import IndexStore
from aimate_memory.system import MemorySystem
from aimate_memory.system import reembed as reembed_worker


def _reembed(tmp_path: Path, launched: list[int]) -> Reembed:
    store = IndexStore(tmp_path / "index.db", LazyEmbedder({"enabled": False}))
    return Reembed(store, lambda: launched.append(1))


def _failing(_path: Path, _progress: Progress) -> RefreshReport:
    raise ConnectionError("the embeddings endpoint closed the connection")


def _building(path: Path, _progress: Progress) -> RefreshReport:
    path.write_bytes(b"")
    return RefreshReport()


def test_a_failed_worker_is_retried_after_a_doubling_backoff(tmp_path: Path) -> None:
    launched: list[int] = []
    reembed = _reembed(tmp_path, launched)
    reembed.start()
    assert launched == [1] and reembed.retry_in() == 0.0
    with pytest.raises(ConnectionError):
        reembed.work(lambda: True, _failing, lambda _built: True)
    said = reembed.start()
    assert launched == [1], "a sync right after the failure starts no worker"
    assert "the last attempt failed" in said and "keyword search" in said
    assert 0 < reembed.retry_in() <= RETRY_AFTER
    assert reembed.failed_path.stat().st_mode & 0o777 == 0o600
    assert reembed.retry_in(now=time.time() + RETRY_AFTER + 1) == 0.0  # a minute on, it may try again
    with pytest.raises(ConnectionError):
        reembed.work(lambda: True, _failing, lambda _built: True)
    assert RETRY_AFTER < reembed.retry_in() <= 2 * RETRY_AFTER  # twice as long after the second
    for _ in range(20):
        reembed.record_failure()
    assert reembed.retry_in() <= RETRY_AT_MOST


def test_a_build_that_succeeds_clears_the_backoff(tmp_path: Path) -> None:
    launched: list[int] = []
    reembed = _reembed(tmp_path, launched)
    reembed.record_failure()
    assert reembed.retry_in() > 0
    report = reembed.work(lambda: True, _building, lambda _built: True)
    assert report.rebuilt and reembed.retry_in() == 0.0 and not reembed.failed_path.exists()
    reembed.start()
    assert launched == [1]


def test_a_worker_whose_process_cannot_use_the_new_model_counts_as_failed(initialized: Path) -> None:
    home = initialized
    with MemorySystem.open(global_only=True) as system:
        system.refresh()
    # The starting process wanted a model this one does not get (its endpoint did not answer here).
    assert reembed_worker.main(["--home", str(home), "--scope", "global", "--fingerprint", "another model"]) == 1
    failed = list(home.rglob("*.reembed.failed"))
    assert len(failed) == 1 and '"failures": 1' in failed[0].read_text(encoding="utf-8")
