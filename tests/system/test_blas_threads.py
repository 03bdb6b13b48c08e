"""A process of ours starts numpy's OpenBLAS with one thread unless the person set its variable (aimate_memory/blas.py
`one_thread_unless_set`): a second worker only spun, 60-80 ms of CPU in every cold command that loads numpy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Runs the real entry in a fresh interpreter and, at its exit (after the command, before the process leaves),
# reports what OpenBLAS was started with and whether numpy had loaded at all.
_REPORT_AT_EXIT = """
import atexit, json, os, sys
def report():
    from threadpoolctl import threadpool_info
    blas = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    print(json.dumps({"numpy": "numpy" in sys.modules, "blas": blas,
                      "variable": os.environ.get("OPENBLAS_NUM_THREADS")}), file=sys.stderr)
atexit.register(report)
sys.argv = ["aimate", *sys.argv[1:]]
from aimate_memory.cli import main
main()
"""


def _entry(home: Path, query: str, **env: str) -> dict:
    base = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    result = subprocess.run(
        [sys.executable, "-c", _REPORT_AT_EXIT, "mem", "search", query],
        env={**base, "AIMATE_HOME": str(home), "AIMATE_NO_DAEMON": "1", **env},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return json.loads(result.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("query", ["session cache", "会话缓存"])
def test_a_cold_search_loads_numpy_with_one_blas_thread(initialized: Path, query: str) -> None:
    report = _entry(initialized, query)
    assert report["numpy"], "the search no longer loads numpy: this test proves nothing"
    assert report["variable"] == "1" and report["blas"] and set(report["blas"]) == {1}


def test_the_persons_own_setting_is_kept(initialized: Path) -> None:
    report = _entry(initialized, "session cache", OPENBLAS_NUM_THREADS="2")
    assert report["variable"] == "2" and set(report["blas"]) == {2}
