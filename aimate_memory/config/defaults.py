"""Every configuration key, its default and so its type (seed 002 §配置 + docs/design.md §10)."""

from __future__ import annotations

from typing import Any

DEFAULTS: dict[str, dict[str, Any]] = {
    "storage": {
        "max_file_bytes": 1_048_576,  # larger files are reported, not indexed (docs/design.md §13)
    },
    # The context builder (docs/design.md, "Context builder"): core first and whole, up to core_max_tokens;
    # the ratios share out what core leaves (each against their sum), and unused shares flow to the others.
    "context": {
        "total_budget": 128_000,
        # A one-line core memory is 25 (en) / 31 (zh) tokens (docs/benchmarks.md, "Context rendering"), so 3000
        # hold 100-120 of them, half the 200 lines Claude Code loads of its own MEMORY.md, in ~8,600 characters:
        # the whole capped core passes through Claude Code's 10,000-character cap on a hook's output.
        "core_max_tokens": 3000,
        "session_ratio": 0.5,
        "short_term_ratio": 0.25,
        "long_term_ratio": 0.25,
        "recent_days": 7,
    },
    "session": {
        "max_tokens": 128_000,
        "warning_ratio": 0.7,
        "critical_ratio": 0.85,
        "trim_target_ratio": 0.5,
        "protected_rounds": 3,
    },
    "capture": {
        # Confidence routing (docs/design.md, "Capture"): an agent's capture at or above write_threshold is written
        # active, between the two thresholds pending (for review), below pending_threshold dropped.
        "write_threshold": 0.85,
        "pending_threshold": 0.6,
        # Cosine at or above which a capture supersedes an active memory of the same layer, scope and
        # category. scripts/research/supersede_threshold.py on 41 labelled zh/en pairs: the highest
        # "different" pair scored 0.679, so 0.70 (precision 1.0, recall .86, accuracy .93; the
        # accuracy-optimal 0.69 sits 0.01 above that pair).
        "supersede_threshold": 0.7,
        # Jaccard of keyword sets, the fallback when no model is loaded. Same pairs: highest "different"
        # pair 0.60 → 0.65 (precision 1.0, recall .23): without a model it supersedes only near-copies.
        "keyword_supersede_threshold": 0.65,
        # Conflicts (capture/conflict.py; docs/design.md, "Conflicts"): USE cosines at or above which a new core
        # memory or decision is on the same subject as an active one — `conflict_subject_threshold` when both
        # fill one slot of the table (indentation, cache…) with different values, `conflict_threshold` when only
        # the cosine says so and one of them is negated or says it changes something. Chosen on the 74-pair
        # development split of tests/data/conflict_pairs.jsonl by scripts/conflict_eval.py
        # (docs/benchmarks.md, "Conflicts"): F1 1.00 for the subject bar 0.00–0.20 (the lowest slot conflict,
        # "We chose Redis for sessions" / "会话缓存改用 Memcached", scores 0.22) → 0.15, a step under it; F1 1.00
        # for the polarity bar 0.30–0.45 (0.46 is the lowest polarity-only conflict) → 0.40, mid-plateau.
        # Then, read once: held out (31 pairs) P 1.00 R .91; fresh subjects without a slot (32) P 1.00 R .50.
        "conflict_subject_threshold": 0.15,
        "conflict_threshold": 0.4,
        # Whether capture reads a sentence with the multilingual USE model even when vector search is off
        # (embedding.enabled false) or uses another model: the kind model files sentences far better with it
        # (docs/design.md, "Capture"). false: the cue features alone decide.
        "embedding": True,
        # Session distillation (capture/distill.py): when a session ends, the person's own sentences filed as a
        # rule, preference, decision, knowledge or task with at least this confidence become pending captures,
        # at most distill_max per session (docs/design.md, "Capture"). 0 for distill_max turns it off. Only
        # sentences that say they hold beyond now are read at all (capture/rules.py, "What a session proposes"),
        # so the model's confidence is a weak second filter: on the replay's development projects, confidence
        # alone kept precision at .15 at every threshold; the cue gate doubled it. 3: a handful to review.
        "distill_confidence": 0.2,
        "distill_max": 3,
    },
    "summarizer": {
        # An OpenAI-compatible chat endpoint (…/v1/chat/completions); None = the offline extractive one.
        "endpoint": None,
        "model": None,
        # Name of the environment variable holding the endpoint's API key (never the key itself).
        "api_key_env": "AIMATE_SUMMARIZER_API_KEY",
        "timeout_seconds": 20.0,
        "max_chars": 1200,
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
        # Worker threads for embedding a vault (0: every core); a query always runs on one.
        "threads": 0,
    },
    "retrieval": {
        "decay": 0.95,
        # The relevance floor (0–1, retrieval/relevance.py): below it a memory is not a result, so an
        # unrelated query gets none. Chosen by scripts/eval_floor.py (docs/benchmarks.md, "Relevance floor").
        "min_relevance": 0.1,
        # Keyword candidate chunks. docs/design.md §7 suggests 5k; at 10k memories 1k cut keyword search from
        # p50 28 / p95 48 ms to 17 / 20 ms (hybrid 63 → 44 ms p50) with the same bench recall.
        "candidates": 1000,
        # Depth of the vector list (the nearest 200 get exact cosines, the rest estimates; hybrid.py).
        "vector_candidates": 1000,
    },
    # The background daemon (docs/agents.md, "Keeping it warm"): with `autostart`, the first command that
    # would have asked it (a search, a hook) starts it in the background, like gpg-agent, so the next answers warm.
    "daemon": {
        "autostart": False,
        # `aimate mem install claude|codex|kimi` sets up a warm daemon (a user service, else autostart;
        # docs/agents.md, "A warm daemon with the install"); false: installs leave the daemon alone.
        "with_assistants": True,
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
    # Assistant integration (docs/agents.md): the hooks' session-start context, the AGENTS.md block.
    "hooks": {
        # tokens; as much as the core cap, so the session-start hook can carry the whole capped core (what core
        # leaves goes to notes); the hook also keeps under Claude Code's 10,000 characters (integrations/hooks.py)
        "context_budget": 3000,
        # What a prompt's own "remember: …" becomes (docs/agents.md, "Consent"): pending (the person accepts it
        # in `aimate mem review`) or active (written and committed at once, for a person who chose that).
        "capture_status": "pending",
    },
    "agents_md": {
        "auto": False,  # the daemon rewrites the block when a core memory changes
    },
}

# Keys that once existed: a config file that still sets one loads (the value is not used) instead of failing
# every command; `config set` refuses them with this hint.
# Keys with a new name: the old one is still read (files, environment, `config get/set`) as the new one,
# and `Config.deprecations` says so. `min_similarity` floored relevance (0–1, retrieval/relevance.py), never
# a raw cosine similarity; the code had called it min_relevance all along (issue 28 §7).
RENAMED_KEYS = {
    "retrieval.min_similarity": "retrieval.min_relevance",
}

RETIRED_KEYS = {
    "context.core_ratio": "core is no longer a share: it comes first, up to context.core_max_tokens",
}

# Keys that take one of a few words.
CHOICES: dict[str, tuple[str, ...]] = {
    "hooks.capture_status": ("pending", "active"),
}

# Keys whose default is None take a string (or null).
NULLABLE_STRING_KEYS = {
    "embedding.model",
    "embedding.cache_dir",
    "git.remote",
    "git.author",
    "summarizer.endpoint",
    "summarizer.model",
}
