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
        # The session start shows the episodes of the last sessions in this vault (docs/design.md "Episodes"):
        # a few lines each, a small share so they never crowd out memories.
        "episodes": 2,
        "episode_ratio": 0.1,
    },
    "session": {
        "max_tokens": 128_000,
        "warning_ratio": 0.7,
        "critical_ratio": 0.85,
        "trim_target_ratio": 0.5,
        "protected_rounds": 3,
        # A running session with no turn for this long was left by a client that died (no SessionEnd): the
        # next session start or maintenance run ends it, so it is distilled and gets its episode.
        "idle_timeout_minutes": 240,
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
        # alone kept precision at .15 at every threshold; the cue gate doubled it. 4: a handful to review — on
        # the replay's projects a fourth kept more statements at the same precision (docs/design.md, "Capture
        # from a conversation"), and the median session still asks for one decision or none.
        "distill_confidence": 0.2,
        "distill_max": 4,
        # A rule is a sentence (issue 38): a capture longer than this many characters (CJK characters count
        # one each) is refused — a pasted document became one core line that no context could fit. A long
        # note goes in with `aimate mem add --file`. docs/design.md, "Capture".
        "max_chars": 2000,
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
        # Promotion means lasting use (docs/lifecycle.md "Uses"): this many explicit reads (get/show, an MCP
        # get; never an appearance in a context or a search) on at least promote_min_days different days. A
        # task is never promoted.
        "promote_threshold": 5,
        "promote_min_days": 3,
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
        # provider `endpoint` (embedding/endpoint_provider.py): the server, its vectors' size (0: the model's
        # own) and the name of the environment variable holding its key (never the key itself)
        "base_url": None,
        "dimensions": 0,
        "api_key_env": None,
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
        # When a daemon leaves on its own (watch/leaving.py; docs/agents.md, "When the daemon leaves"): an
        # autostarted one after this many minutes without a request (0: never); any daemon whose home folder
        # was deleted, looked for every leave_check_seconds.
        "idle_exit_minutes": 120.0,
        "leave_check_seconds": 30.0,
    },
    "maintenance": {
        "enabled": True,
        "interval_minutes": 60,
        "duplicate_threshold": 0.92,
        # Paraphrases and translations (lifecycle/dedupe.py): the USE cosine at which two memories say one thing,
        # the bar capture calls a restatement (system/capture.py RESTATEMENT, measured on real restatements by
        # scripts/research/restatement_threshold.py; supersede pairs: highest "different" .68). Pairs that
        # disagree are never merged.
        "paraphrase_threshold": 0.7,
    },
    "git": {
        "auto_commit": True,
        "remote": None,
        "author": None,
    },
    # The daemon's sync of the global vault with `git.remote` (docs/agents.md, "Sync that runs itself"), in
    # seconds: a full sync every `interval`; one `debounce` after the vault last changed; and every `poll` one
    # `git ls-remote` (no objects), syncing when another device pushed (0: no polling).
    "sync": {
        "interval": 300,
        "debounce": 2.0,
        "poll": 15.0,
    },
    # The daemon's watch of the assistants' own memories (watch/learned.py; docs/agents.md, "The assistants'
    # own memories"): opt-in; when on, new or changed entries become pending captures, looked for every poll s.
    "learned": {
        "watch": False,
        "poll": 60.0,
    },
    "privacy": {
        "sensitive_keywords": [],
        "exclude_paths": [],
    },
    # Assistant integration (docs/agents.md): the hooks' session-start context, the AGENTS.md block.
    "hooks": {
        # tokens (text/estimate.py `prompt_tokens`) of all a session start hands the client — preface, memories,
        # the notice: issue 39's goal, 1,500. The estimate errs high against a BPE tokenizer on the replay's
        # session starts (docs/benchmarks.md, "What a session start costs"), so the client's count is lower.
        # Core gets all of it before notes; a core memory it leaves out is named (integrations/hooks.py).
        "context_budget": 1500,
        # What a prompt's own "remember: …" becomes (docs/agents.md, "Consent"): pending (the person accepts it
        # in `aimate mem review`) or active (written and committed at once, for a person who chose that).
        "capture_status": "pending",
    },
    "agents_md": {
        "auto": False,  # the daemon rewrites the block when a core memory changes
    },
    # The command line's views (docs/agents.md, "list"): how many memories `list` prints at a terminal before
    # it says how many more there are (`-n N` or `--all` for more; `--json` is never cut). At 10,000 memories
    # the whole table took 7.7–15 s to draw where the daemon's own work was 1.1–1.45 s (docs/benchmarks.md).
    "cli": {
        "list_page": 100,
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
    "embedding.provider": ("auto", "fastembed", "use", "endpoint"),  # embedding/__init__.py PROVIDERS
}

# Keys whose default is None take a string (or null).
NULLABLE_STRING_KEYS = {
    "embedding.model",
    "embedding.cache_dir",
    "embedding.base_url",
    "embedding.api_key_env",
    "git.remote",
    "git.author",
    "summarizer.endpoint",
    "summarizer.model",
}

# Who may set each key (docs/reliability.md, "Trust model: the person's config and a project's config"). A
# repository's `.aimate/config.yaml` is written by whoever wrote the repository: it may tune how the memories
# are retrieved, rendered and aged, but nothing that reaches outside the vault (paths, endpoints, key names,
# remotes), runs in the background (daemon, maintenance), or lowers the person's protection (hooks, what a
# capture becomes, the embedding model and its cache). Privacy lists from a project only add to the person's.
# Every key is listed here (tests/config checks the table covers DEFAULTS and the docs' table matches it).
PROJECT = "project"  # the person's config, then the project's over it
PERSON = "person"  # the person's config (and environment) only; a project's value is ignored, with a warning
ADDS = "adds"  # a list: the project's entries are added to the person's, never replace them
# A bar that guards what happens without the person: an agent's capture written active at or above
# capture.write_threshold, an active memory superseded at or above the supersede thresholds. A project may
# make them stricter (higher), never looser; a lower value is ignored, with the warning.
RAISES = "raises"

KEY_SCOPES: dict[str, str] = {
    "storage.max_file_bytes": PERSON,
    **{f"context.{key}": PROJECT for key in DEFAULTS["context"]},
    **{f"session.{key}": PROJECT for key in DEFAULTS["session"]},
    **{f"capture.{key}": PROJECT for key in DEFAULTS["capture"]},
    **dict.fromkeys(
        ("capture.write_threshold", "capture.supersede_threshold", "capture.keyword_supersede_threshold"), RAISES
    ),
    **{f"summarizer.{key}": PERSON for key in DEFAULTS["summarizer"]},
    **{f"short_term.{key}": PROJECT for key in DEFAULTS["short_term"]},
    **{f"long_term.{key}": PROJECT for key in DEFAULTS["long_term"]},
    **{f"embedding.{key}": PERSON for key in DEFAULTS["embedding"]},
    **{f"retrieval.{key}": PROJECT for key in DEFAULTS["retrieval"]},
    **{f"daemon.{key}": PERSON for key in DEFAULTS["daemon"]},
    **{f"maintenance.{key}": PERSON for key in DEFAULTS["maintenance"]},
    **{f"git.{key}": PERSON for key in DEFAULTS["git"]},
    **{f"sync.{key}": PERSON for key in DEFAULTS["sync"]},
    **{f"learned.{key}": PERSON for key in DEFAULTS["learned"]},
    **{f"privacy.{key}": ADDS for key in DEFAULTS["privacy"]},
    **{f"hooks.{key}": PERSON for key in DEFAULTS["hooks"]},
    **{f"agents_md.{key}": PERSON for key in DEFAULTS["agents_md"]},
    **{f"cli.{key}": PERSON for key in DEFAULTS["cli"]},
}

# The keys a context's budget may be read from by name (the daemon's `budget_setting`, the hooks'), and the
# largest budget any face takes (tokens): a million is above every model's window today; more only makes the
# context builder read and render the whole vault for nothing.
BUDGET_KEYS = ("hooks.context_budget", "context.total_budget")
MAX_CONTEXT_BUDGET = 1_000_000
