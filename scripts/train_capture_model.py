#!/usr/bin/env python3
"""Train the capture kind model from the exemplars and write its weights into the package.

    .venv/bin/python scripts/train_capture_model.py            # writes aimate_memory/capture/data/kind_model.npz
    .venv/bin/python scripts/train_capture_model.py --check    # exit 1 when the shipped weights differ

Reads `aimate_memory/capture/data/exemplars.jsonl` (sentences written for this, labelled with a kind),
embeds them with the multilingual USE model (offline, from its package), and fits two multinomial logistic
regressions (capture/model.py `fit`, deterministic): USE vector + cue features, and cue features alone.
The hyperparameters were chosen on the capture benchmark's development split (docs/benchmarks.md, "Capture").
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from aimate_memory.capture.model import (
    EMBEDDER,
    KINDS,
    PLACES,
    cue_features,
    exemplars_path,
    fit,
    load_models,
    model_path,
)
from aimate_memory.vault.layout import Layer

L2 = 1e-3
STEPS = 3000
CUE_SCALE = 0.5
CUES_ONLY_L2 = 1e-3
# Log-odds added to rule and preference: losing a rule from core costs more than promoting a fact to it
# (0.25 moved gold core kept in core .785 -> .873 and long-term .842 -> .763 on the dev split).
CORE_PRIOR = 0.25


def load_exemplars(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def embed(texts: list[str]) -> np.ndarray:
    from aimate_memory.embedding.use_provider import UseEmbedder

    cache = Path(tempfile.gettempdir()) / "aimate-train-models"
    return UseEmbedder(threads=1, cache_dir=cache).embed(texts)


def train(
    exemplars: list[dict], vectors: np.ndarray, l2: float = L2, steps: int = STEPS, cue_scale: float = CUE_SCALE
) -> dict[str, np.ndarray]:
    labels = np.asarray([KINDS.index(item["kind"]) for item in exemplars])
    cues = np.stack([cue_features(item["text"]) for item in exemplars])
    embedded_w, embedded_b = fit(np.hstack([vectors, cues * cue_scale]), labels, l2, steps)
    cues_w, cues_b = fit(cues, labels, CUES_ONLY_L2, steps)
    return {
        "embedded_w": embedded_w,
        "embedded_b": embedded_b,
        "embedding_dim": np.asarray(vectors.shape[1]),
        "cue_scale": np.asarray(cue_scale, dtype=np.float32),
        "cues_w": cues_w,
        "cues_b": cues_b,
        "embedder": np.asarray(EMBEDDER),
        "prior": np.asarray(
            [CORE_PRIOR if PLACES.get(kind, (None,))[0] is Layer.CORE else 0.0 for kind in KINDS], dtype=np.float32
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the shipped weights instead of writing")
    args = parser.parse_args()
    exemplars = load_exemplars(exemplars_path())
    arrays = train(exemplars, embed([item["text"] for item in exemplars]))
    if args.check:
        shipped = load_models()
        if shipped is None:
            print("no shipped weights", file=sys.stderr)
            return 1
        gap = max(
            float(np.abs(shipped.embedded.weights - arrays["embedded_w"]).max()),
            float(np.abs(shipped.cues_only.weights - arrays["cues_w"]).max()),
        )
        print(f"largest weight difference: {gap:.2e} (float16 rounding is < 5e-3)")
        return 0 if gap < 5e-3 else 1
    # float16 halves the file; the probabilities move by < 1e-3 (tests/capture/test_kind_model.py).
    small = {
        key: value.astype(np.float16) if value.dtype == np.float32 and value.ndim == 2 else value
        for key, value in arrays.items()
    }
    np.savez_compressed(model_path(), **small)
    print(f"wrote {model_path()} ({model_path().stat().st_size} bytes) from {len(exemplars)} exemplars")
    return 0


if __name__ == "__main__":
    sys.exit(main())
