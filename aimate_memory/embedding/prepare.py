"""The model cache built ahead, at `aimate mem init` and `install`, not by the first search (issue 38: no
hidden first-run cost; docs/reliability.md, "Trust model"). A fresh home has none: MiniLM is rewritten into
its fast form (~4 s) and USE unpacked into its data-only copy (use_cache.py, ~2 s), 105 MB in
`state/models`. `missing_models` says which the settings will load and are not built yet (looking only at
files); `build_models` builds them, reporting each step to a progress callback, and packs the bridge's lexicon
beside them (~0.2 s; text/bridge.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

MINILM, USE = "MiniLM (English)", "USE (multilingual)"
PHASE = "preparing the embedding models"


def missing_models(settings: Mapping[str, Any], capture_reads_use: bool) -> list[str]:
    """The models the `embedding` settings (cache_dir resolved) will load whose cache is not built yet;
    `capture_reads_use`: capture loads USE even when search does not (`capture.embedding`)."""
    cache = Path(settings["cache_dir"])
    enabled = bool(settings.get("enabled", True))
    provider = str(settings.get("provider") or "auto").lower()
    missing = []
    if enabled and provider in ("auto", "fastembed") and not settings.get("model"):
        from aimate_memory.embedding.minilm import FAST_MODEL

        if not any(cache.glob(f"minilm-int8-*/{FAST_MODEL}")):
            missing.append(MINILM)
    if (enabled and provider in ("auto", "use")) or capture_reads_use:
        from aimate_memory.embedding.use_cache import MANIFEST, cache_folder

        if not (cache_folder(cache) / MANIFEST).is_file():
            missing.append(USE)
    return missing


def build_models(names: list[str], cache_dir: Path, progress: Callable[[str, int, int], None]) -> None:
    """Build each named model's cache in `cache_dir` (loading a model writes its cache)."""
    for done, name in enumerate(names):
        progress(PHASE, done, len(names))
        if name == MINILM:
            from aimate_memory.embedding.minilm import MiniLMEmbedder

            MiniLMEmbedder(cache_dir=cache_dir, threads=1)
        else:
            from aimate_memory.embedding.use_provider import UseEmbedder

            UseEmbedder(threads=1, cache_dir=cache_dir)
    # The bridge's lexicon is kept beside them (text/bridge.py): packed here, a first search only reads it.
    from aimate_memory.text.bridge import keep_packed_in, pack_tables

    keep_packed_in(cache_dir)
    pack_tables()
    progress(PHASE, len(names), len(names))
