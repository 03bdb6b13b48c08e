"""What every embedding provider offers, and helpers they share. Imports numpy only."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

from aimate_memory.errors import AimateError

if TYPE_CHECKING:  # numpy (~0.1 s) is imported where an array is made: a cold `list` never needs it
    import numpy as np


class EmbedderUnavailable(AimateError):
    """The configured embedder cannot be loaded. Search falls back to keywords and shows ``hint``."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message, hint)


@runtime_checkable
class Embedder(Protocol):
    #: provider + model + dimension + version: stored in the index; a change rebuilds the vectors.
    identity: str
    dimension: int
    #: scripts whose text this embedder understands: a subset of {"latin", "cjk"}.
    languages: frozenset[str]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dimension) float32, rows L2-normalized, in the order given."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dimension,) float32, L2-normalized."""
        ...


def release_memory(embedder: object, lookups: bool = False) -> None:
    """Let a model give back what it can between bursts of work (USE: its mapped table's resident pages, and
    with `lookups` its tokenizer's dict: `UseEmbedder.release_memory`); a model without such (MiniLM, an
    endpoint) has nothing to give. Called by a long-lived process when it goes idle (watch/daemon.py)."""
    release = getattr(embedder, "release_memory", None)
    if callable(release):
        release(lookups)


def abandonable(embedder: object) -> bool:
    """Whether the embedder's work may be left unfinished when its process exits: a request to a server (the
    endpoint's `remote`) may; ONNX Runtime cut off mid-call at exit dies of std::terminate (embedding/lazy.py)."""
    return bool(getattr(embedder, "remote", False))


# The scripts a text of each kind needs its embedder to read ("mixed" holds Latin and CJK runs).
_SCRIPT_NEEDS = {"latin": frozenset({"latin"}), "cjk": frozenset({"cjk"}), "mixed": frozenset({"latin", "cjk"})}


def understands(languages: Iterable[str], script: str) -> bool:
    """Whether an embedder declaring ``languages`` can read text of ``script`` (latin/cjk/mixed)."""
    return _SCRIPT_NEEDS.get(script, frozenset({script})) <= frozenset(languages)


def l2_normalize(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as C-contiguous float32."""
    import numpy as np

    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(x / norms, dtype=np.float32)


# At most this many texts (over every batch) are embedded on the calling thread, however many workers
# (`embed_batches`): a pool's two threads cost a `remember` through the daemon more than they saved on 2 cores.
FEW_TEXTS = 12


class Batch(NamedTuple):
    """Texts one model embeds in one run, and where their vectors go: `rows` and `columns` of the output."""

    rows: list[int]
    texts: list[str]
    run: Callable[[list[str]], np.ndarray]  # one unit vector per text
    columns: slice = slice(None)
    #: a relative cost, to start the longest first (a pool then ends with short batches, nobody idle)
    cost: float = 0.0


def plan_batches(
    texts: Sequence[str],
    run: Callable[[list[str]], np.ndarray],
    batch_size: int,
    rows: Sequence[int] | None = None,
    columns: slice = slice(None),
    cost_per_char: float = 1.0,
) -> list[Batch]:
    """`texts` (output rows `rows`, default 0…n-1) in batches of similar length. ONNX models pad a batch to its
    longest text; sorting by length first doubled MiniLM's throughput here (docs/design.md §11)."""
    rows = list(range(len(texts))) if rows is None else list(rows)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    batches = []
    for start in range(0, len(order), batch_size):
        part = order[start : start + batch_size]
        chosen = [texts[i] for i in part]
        cost = cost_per_char * max(map(len, chosen)) * len(chosen)
        batches.append(Batch([rows[i] for i in part], chosen, run, columns, cost))
    return batches


def run_batches(batches: Sequence[Batch], out: np.ndarray, workers: int = 1) -> np.ndarray:
    """Fill `out` with every batch's vectors, on `workers` threads (each batch single-threaded inside).

    Two threads each running whole batches of either model beat every batch on two threads: MiniLM ran
    1.7x faster on two threads than on one and USE 1.4x, as small batches spend time in thread hand-offs,
    while two batches side by side run at 2x (the 2-core box, docs/benchmarks.md "Embedding throughput")."""

    def fill(batch: Batch) -> None:
        out[batch.rows, batch.columns] = batch.run(batch.texts)

    if workers <= 1 or len(batches) <= 1:
        for batch in batches:
            fill(batch)
        return out
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers, thread_name_prefix="aimate-embed") as pool:
        list(pool.map(fill, sorted(batches, key=lambda batch: -batch.cost)))
    return out


def worker_count(threads: int | None) -> int:
    """Threads for batch embedding: `threads` when set (the `embedding.threads` config), else every core
    this process may run on."""
    if threads:
        return max(1, int(threads))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def embed_batches(batches: Sequence[Batch], count: int, dimension: int, threads: int | None) -> np.ndarray:
    """Run `batches` into a (count, dimension) array: side by side on every core (`threads` when set), each
    batch's BLAS then on one thread; on one worker, BLAS on `threads` (None: all cores). A request's handful
    of texts (`FEW_TEXTS` or fewer: a capture and the memories it is compared with, a new memory's chunks) runs
    on the calling thread, each batch's BLAS still as the pool's would be: the same vectors, without starting a
    pool's threads and waiting for them to get a core (docs/design.md §12, "A remember's own wall")."""
    import numpy as np

    from aimate_memory.blas import blas_threads

    workers = worker_count(threads)
    out = np.zeros((count, dimension), dtype=np.float32)
    with blas_threads(1 if workers > 1 else threads):
        return run_batches(batches, out, workers if sum(len(batch.texts) for batch in batches) > FEW_TEXTS else 1)


def embed_sorted(
    texts: Sequence[str], dimension: int, batch_fn: Callable[[list[str]], np.ndarray], batch_size: int
) -> np.ndarray:
    """Embed ``texts`` in batches of similar length (`plan_batches`), one after the other, and return the rows
    in the original order, L2-normalized."""
    import numpy as np

    out = np.zeros((len(texts), dimension), dtype=np.float32)
    return l2_normalize(run_batches(plan_batches(texts, batch_fn, batch_size), out))
