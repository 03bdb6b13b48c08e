"""`scripts/bench.py` end to end on a tiny vault: every metric is there and is a positive number."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import linked_models

BENCH = Path(__file__).resolve().parents[2] / "scripts" / "bench.py"
EXPECTED = (
    "generate_s",
    "build_keyword_s",
    "files_per_s",
    "index_keyword_mb",
    "model_load_ms",
    "build_embed_s",
    "embedded_chunks",
    "embed_chunks_per_s",
    "resync_ms_p50",
    "resync_ms_max",
    "resync_fresh_ms_p50",
    "hybrid_ms_p50",
    "hybrid_ms_p95",
    "query_embed_ms_p50",
    "keyword_ms_p50",
    "keyword_ms_p95",
    "time_range_ms_p50",
    "time_range_ms_p95",
    "recall10_coarse100",
    "recall10_coarse200",
    "recall10_coarse400",
    "recall10_coarse800",
    "prefilter_ms_p95_coarse200",
    "index_mb",
    "index_mb_per_10k",
    "cli_search_cold_ms_p50",
)


@pytest.mark.slow
def test_bench_smoke(tmp_path: Path, model_cache: Path) -> None:
    out, markdown = tmp_path / "bench.json", tmp_path / "benchmarks.md"
    # The run's model cache, linked and named by `embedding.cache_dir` (bench starts from an empty home, so its
    # first model load built the cache again: ~5 s of CPU; the build is tested in tests/embedding).
    models = linked_models(model_cache, tmp_path / "models")
    # 60 memories and 5 warm MCP searches: every phase still runs, with 24 s of CPU against 31 s at 200 and
    # bench's default 40 (2026-11-28, load ~18; docs/reliability.md, "The suite's cost").
    sizes = ["--size", "60", "--queries", "10", "--cli-runs", "1", "--mcp-queries", "5"]
    args = [*sizes, "--json", str(out), "--markdown", str(markdown)]
    proc = subprocess.run(
        [sys.executable, str(BENCH), *args, "--keep", str(tmp_path / "home"), "--quiet"],
        env={**os.environ, "AIMATE_EMBEDDING__CACHE_DIR": str(models)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text("utf-8"))
    metrics = result["metrics"]
    for key in EXPECTED:
        assert key in metrics, key
        assert math.isfinite(metrics[key]) and metrics[key] > 0, (key, metrics[key])
    assert result["index"]["errors"] == 0
    assert result["hybrid_modes"] == ["hybrid"]
    assert result["vault"]["chinese"] > 0 and result["vault"]["english"] > 0
    text = markdown.read_text("utf-8")
    assert "<!-- bench:size=60 -->" in text and "| hybrid search" in text
