"""The daemon's glibc heaps (watch/process.py `limit_malloc_arenas`): with the limit, threads that allocate at
once share the heaps it allows; without it, glibc gives them heaps of their own. Read from glibc's own
`malloc_stats` report in a fresh process (the limit holds for the threads started after it)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from aimate_memory.watch.process import _glibc

THREADS_ALLOCATING = """
import ctypes, ctypes.util, sys, threading
from aimate_memory.watch.process import limit_malloc_arenas
if sys.argv[1] == "limited":
    assert limit_malloc_arenas(1)
barrier = threading.Barrier(6)
held = []
def work():
    barrier.wait()
    held.append([bytes(2048) for _ in range(2000)])  # beyond pymalloc's 512 bytes: glibc's malloc
    barrier.wait()
threads = [threading.Thread(target=work) for _ in range(6)]
for thread in threads: thread.start()
for thread in threads: thread.join()
ctypes.CDLL(ctypes.util.find_library("c")).malloc_stats()
"""


def _arenas(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", THREADS_ALLOCATING, mode], capture_output=True, text=True, timeout=60, check=True
    )
    return sum(line.startswith("Arena ") for line in done.stderr.splitlines())


@pytest.mark.skipif(_glibc("mallopt") is None, reason="glibc's allocator only")
def test_threads_share_the_heaps_the_limit_allows() -> None:
    assert _arenas("limited") == 1
    assert _arenas("default") > 1  # so the check can fail
