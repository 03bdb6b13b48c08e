"""Embedding throughput and peak RSS per provider, on the bench's own docs (read at run time).

.venv/bin/python scripts/research/throughput.py fastembed|use|auto
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
BENCH = HERE.parents[1].parent / "shared" / "bench" / "data"

from aimate_memory.embedding import create_embedder  # noqa: E402


def texts() -> tuple[list[str], list[str]]:
    conv = json.loads((BENCH / "locomo_dev.json").read_text())
    en = []
    for c in conv:
        for key, turns in c["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                en.extend(f"{t['speaker']}: {t['text']}" for t in turns)
    zh = []
    for line in (BENCH / "madial_bench" / "MADial-Bench-zh-memory.json").read_text().splitlines():
        if line.strip():
            ((_, v),) = json.loads(line).items()
            zh.append(v["event"])
    return en[:1000], zh


def main() -> None:
    provider = sys.argv[1] if len(sys.argv) > 1 else "auto"
    t0 = time.perf_counter()
    e = create_embedder({"provider": provider, "cache_dir": "/tmp/aimate-research-cache/models"})
    load = time.perf_counter() - t0
    en, zh = texts()
    for name, batch in (("en", en), ("zh", zh)):
        t0 = time.perf_counter()
        e.embed(batch)
        dt = time.perf_counter() - t0
        print(f"{provider:9s} {name}: {len(batch)} texts in {dt:.2f}s = {len(batch) / dt:.0f} texts/s")
    t0 = time.perf_counter()
    for q in en[:50]:
        e.embed_query(q)
    print(
        f"{provider:9s} query: {(time.perf_counter() - t0) / 50 * 1000:.1f} ms; load {load:.2f}s; "
        f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )


if __name__ == "__main__":
    main()
