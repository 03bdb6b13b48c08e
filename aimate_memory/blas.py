"""How many threads numpy's BLAS may use, per block of work.

Searches run BLAS single-threaded; batch embedding uses every core. OpenBLAS worker threads keep
spinning for a while after each call, and on a 2-core machine they take a core from the search that
follows: at 10k memories hybrid search measured p50 39 / p95 75 ms with numpy's default of 2 threads,
23 / 36 ms with 1 (`OPENBLAS_NUM_THREADS=1`; the calls are a 1,000 × 896 mat-vec and a query through the
multilingual encoder, which gain nothing from a second thread). Batches do: the multilingual encoder
embeds 270 chunks/s on 2 threads, 196 on 1.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

_controller: Any = None


def one_thread_unless_set() -> None:
    """Start OpenBLAS with one thread in a process of ours, unless the person set its variable. OpenBLAS starts
    a worker thread per core when numpy loads, and a fresh worker spins before it sleeps; nothing here runs BLAS
    on more than one thread (searches and each embedding batch run on one, `blas_threads`; batches go side by
    side on the cores instead), so the second thread only burned CPU: a cold keyword `search` took 0.26 s of
    CPU, 0.18 s with one (wall the same on an idle machine; on a busy one that CPU is another process's), and
    the tests' forked commands 20–85 ms each (docs/design.md, "What a cold command loads"). Call it before numpy
    loads; children (a daemon it starts, a re-embedding worker) inherit it."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


@contextlib.contextmanager
def blas_threads(limit: int | None) -> Iterator[None]:
    """BLAS calls inside use at most `limit` threads (None: the library's default, all cores)."""
    global _controller
    if limit is None:
        yield
        return
    if _controller is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # the limit is an optimization; without threadpoolctl, numpy's default
            yield
            return
        _controller = ThreadpoolController()  # ~1 ms: scans the loaded libraries once
    with _controller.limit(limits=limit, user_api="blas"):
        yield
