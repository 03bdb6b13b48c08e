"""Every configuration key, its default and so its type (seed 002 §配置 + DESIGN §10)."""

from __future__ import annotations

from typing import Any

DEFAULTS: dict[str, dict[str, Any]] = {
    "storage": {
        "max_file_bytes": 1_048_576,  # larger files are reported, not indexed (DESIGN §13)
    },
    "context": {
        "total_budget": 128_000,
        "core_ratio": 0.1,
        "session_ratio": 0.5,
        "short_term_ratio": 0.2,
        "long_term_ratio": 0.2,
        "recent_days": 7,
    },
    "session": {
        "max_tokens": 128_000,
        "warning_ratio": 0.7,
        "critical_ratio": 0.85,
        "trim_target_ratio": 0.5,
        "protected_rounds": 3,
    },
    "short_term": {
        "default_ttl_days": 14,
        "promote_threshold": 5,
    },
    "long_term": {
        "archive_after_days": 90,
        "archive_exempt_importance": 4,
    },
    "embedding": {
        "enabled": True,
        "provider": "auto",
        "model": None,
        "cache_dir": None,
    },
    "retrieval": {
        "decay": 0.95,
        # The relevance floor (0–1, retrieval/relevance.py): below it a memory is not a result, so an
        # unrelated query gets none. Chosen by scripts/eval_floor.py (docs/benchmarks.md, "Relevance floor").
        "min_similarity": 0.1,
        # Keyword candidate chunks. DESIGN §7 suggests 5k; at 10k memories 1k cut keyword search from
        # p50 28 / p95 48 ms to 17 / 20 ms (hybrid 63 → 44 ms p50) with the same bench recall.
        "candidates": 1000,
        # Depth of the vector list (the nearest 200 get exact cosines, the rest estimates; hybrid.py).
        "vector_candidates": 1000,
    },
    "maintenance": {
        "enabled": True,
        "interval_minutes": 60,
        "duplicate_threshold": 0.92,
    },
    "git": {
        "auto_commit": True,
        "remote": None,
        "author": None,
    },
    "privacy": {
        "sensitive_keywords": [],
        "exclude_paths": [],
    },
}

# Keys whose default is None take a string (or null).
NULLABLE_STRING_KEYS = {"embedding.model", "embedding.cache_dir", "git.remote", "git.author"}
