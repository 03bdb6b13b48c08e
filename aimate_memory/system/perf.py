"""Perf metrics (`aimate mem perf`): every search, context build, capture, session append and sync logs
`{operation, layer, duration_ms, breakdown}` in the index's bounded metrics table (`PerfLog`, through the
`timed` decorator or a `Stopwatch` with laps); `PerfLog.summary()` sums them up.

The rows live in the current vault's index (the project's inside a project): it is disposable, and a
rebuild simply starts the log again. Sync rows are written by the index itself (`MemoryIndex.sync`)."""

from __future__ import annotations

import functools
import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar

if TYPE_CHECKING:
    from aimate_memory.index.health import MetricRow
    from aimate_memory.system.store import Store

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T", bound="Timed")

OPERATIONS = ("search", "context_build", "capture", "session_append", "sync")
CPU_SUFFIX = "_cpu"  # a lap's CPU ms in a breakdown: "classify_cpu" beside "classify" (`Stopwatch.lap`)


class Stopwatch:
    """Elapsed time of one operation and of its named parts (laps), in milliseconds; each lap's CPU of the
    thread that ran it too (`breakdown["<part>_cpu"]`): on a loaded machine the wall is mostly the wait for a
    core, the CPU what the part itself cost (docs/benchmarks.md, "Waits")."""

    def __init__(self) -> None:
        self.started = self._last = time.perf_counter()
        self._last_cpu = time.thread_time()
        self.breakdown: dict[str, Any] = {}

    def lap(self, part: str) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.breakdown[part] = round((now - self._last) * 1000, 3)
        self.breakdown[f"{part}{CPU_SUFFIX}"] = round((cpu - self._last_cpu) * 1000, 3)
        self._last, self._last_cpu = now, cpu

    @property
    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000


@dataclass(frozen=True)
class OperationStats:
    operation: str
    count: int
    p50_ms: float
    p95_ms: float
    max_ms: float
    slowest_breakdown: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "operation": self.operation,
            "count": self.count,
            "p50_ms": round(self.p50_ms, 3),
            "p95_ms": round(self.p95_ms, 3),
            "max_ms": round(self.max_ms, 3),
            "slowest_breakdown": self.slowest_breakdown,
        }


def percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list (a value that was measured, never interpolated)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[rank - 1]


def summarize_metrics(rows: Iterable[MetricRow]) -> list[OperationStats]:
    """Per operation: count, p50, p95, max and the slowest run's breakdown; known operations first."""
    by_operation: dict[str, list[MetricRow]] = defaultdict(list)
    for row in rows:
        by_operation[row.op].append(row)
    order = {name: position for position, name in enumerate(OPERATIONS)}
    stats = []
    for operation in sorted(by_operation, key=lambda name: (order.get(name, len(order)), name)):
        runs = by_operation[operation]
        durations = sorted(run.ms for run in runs)
        slowest = max(runs, key=lambda run: run.ms)
        breakdown = {**({"layer": slowest.layer} if slowest.layer else {}), **slowest.breakdown}
        stats.append(
            OperationStats(
                operation,
                len(runs),
                percentile(durations, 0.5),
                percentile(durations, 0.95),
                durations[-1],
                breakdown,
            )
        )
    return stats


class PerfLog:
    """The perf log of one facade. Offers `log` (one operation's timing, into the current vault's index),
    `summary` (what `aimate mem perf` prints), and `timed`'s hook."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def log(self, operation: str, watch: Stopwatch, layer: str = "") -> None:
        vaults = self._store.vaults
        if vaults:
            index = self._store.index_for(vaults[0])
            index.record_metric(operation, watch.elapsed_ms, layer=layer, breakdown=watch.breakdown)

    def summary(self) -> list[OperationStats]:
        """Timings of the last operations (up to 10k per vault index), per operation."""
        return summarize_metrics(row for index in self._store.indexes if index.exists for row in index.metrics())


class Timed(Protocol):
    """What `timed` needs of the object whose method it times."""

    @property
    def perf_log(self) -> PerfLog: ...


#: What a timed call adds to its perf row, from the call's result and arguments: (layer, breakdown).
Describe = Callable[..., tuple[str, dict[str, Any]]]


def timed(
    operation: str, describe: Describe
) -> Callable[[Callable[Concatenate[T, P], R]], Callable[Concatenate[T, P], R]]:
    """Log each call of the decorated method as `operation` in the perf log (`aimate mem perf`);
    `describe(result, *args, **kwargs)` names the layer and adds to the breakdown. A call that raises is
    not logged (a failed search is no timing of a search)."""

    def decorate(method: Callable[Concatenate[T, P], R]) -> Callable[Concatenate[T, P], R]:
        @functools.wraps(method)
        def run(self: T, /, *args: P.args, **kwargs: P.kwargs) -> R:
            watch = Stopwatch()
            result = method(self, *args, **kwargs)
            layer, breakdown = describe(result, *args, **kwargs)
            watch.breakdown.update(breakdown)
            self.perf_log.log(operation, watch, layer)
            return result

        return run

    return decorate
