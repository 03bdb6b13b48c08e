#!/usr/bin/env python3
"""Compare capture classifiers on a labelled capture split (the format of the shared capture benchmark).

    .venv/bin/python scripts/research/capture_candidates.py ../shared/bench/capture/dev.jsonl

Every candidate is trained on the package's own exemplars only (capture/data/exemplars.jsonl); the split is
read, never trained on. Figures: lenient layer accuracy (gold or an `accept` alternative), per language,
drop precision/recall, gold core kept in core, long-term accuracy — overall and on two halves of the split's
repo groups (sha1 parity), so a choice made by looking at one half can be checked on the other.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from train_capture_model import embed, load_exemplars

from aimate_memory.capture.classify import classify
from aimate_memory.capture.model import KINDS, PLACES, cue_features, exemplars_path, fit, softmax

Predict = Callable[[np.ndarray, list[str]], list[str]]
CACHE = Path("/tmp/capture_candidates_vectors.npz")


def cached_embed(texts: list[str]) -> np.ndarray:
    """USE vectors, kept in /tmp between runs (embedding is most of a run's time on a loaded machine)."""
    known: dict[str, np.ndarray] = {}
    if CACHE.exists():
        with np.load(CACHE) as data:
            known = dict(zip(data["texts"].tolist(), data["vectors"], strict=True))
    missing = [text for text in dict.fromkeys(texts) if text not in known]
    if missing:
        known.update(zip(missing, embed(missing), strict=True))
        np.savez(CACHE, texts=np.asarray(list(known)), vectors=np.stack(list(known.values())))
    return np.stack([known[text] for text in texts])


def layer_of(kind: str) -> str:
    return "drop" if kind == "drop" else PLACES[kind][0].value


def golds(row: dict) -> set[str]:
    return {row["layer"], *(pair[0] for pair in row.get("accept", []))}


def score(rows: list[dict], kinds: list[str]) -> dict[str, float]:
    layers = [layer_of(kind) for kind in kinds]
    ok = [layer in golds(row) for row, layer in zip(rows, layers, strict=True)]
    out = {"layer": float(np.mean(ok))}
    for lang in ("en", "zh"):
        out[lang] = float(np.mean([o for o, row in zip(ok, rows, strict=True) if row["lang"] == lang]))
    pred_drop = [layer == "drop" for layer in layers]
    gold_drop = [row["layer"] == "drop" for row in rows]
    hits = sum(p and g for p, g in zip(pred_drop, gold_drop, strict=True))
    out["drop_p"] = hits / max(1, sum(pred_drop))
    out["drop_r"] = hits / max(1, sum(gold_drop))
    core = [layer == "core" for row, layer in zip(rows, layers, strict=True) if row["layer"] == "core"]
    out["core"] = float(np.mean(core))
    long_term = [o for o, row in zip(ok, rows, strict=True) if row["layer"] == "long_term"]
    out["long"] = float(np.mean(long_term))
    return out


def logistic(
    train_x: np.ndarray, labels: np.ndarray, l2: float, steps: int = 3000
) -> Callable[[np.ndarray], np.ndarray]:
    weights, bias = fit(train_x, labels, l2, steps)
    return lambda x: softmax(x @ weights + bias)


def main() -> None:
    rows = [json.loads(line) for line in Path(sys.argv[1]).read_text(encoding="utf-8").splitlines() if line]
    exemplars = load_exemplars(exemplars_path())
    labels = np.asarray([KINDS.index(item["kind"]) for item in exemplars])
    ex_vec = cached_embed([item["text"] for item in exemplars])
    dev_vec = cached_embed([row["text"] for row in rows])
    ex_cue = np.stack([cue_features(item["text"]) for item in exemplars])
    dev_cue = np.stack([cue_features(row["text"]) for row in rows])

    candidates: dict[str, list[str]] = {}
    table = [classify(row["text"], has_project=True, models=None) for row in rows]
    candidates["cue table (before)"] = [found.kind for found in table]
    sims = dev_vec @ ex_vec.T
    for k in (1, 5, 9):
        top = np.argsort(-sims, axis=1)[:, :k]
        votes = [np.bincount(labels[t], weights=sims[i, t], minlength=len(KINDS)) for i, t in enumerate(top)]
        candidates[f"nearest {k}"] = [KINDS[int(np.argmax(v))] for v in votes]
    centroids = np.stack([ex_vec[labels == k].mean(axis=0) for k in range(len(KINDS))])
    candidates["centroid"] = [KINDS[int(i)] for i in np.argmax(dev_vec @ centroids.T, axis=1)]
    for l2 in (1e-3,):
        predict = logistic(ex_vec, labels, l2)
        candidates[f"logistic USE l2={l2:g}"] = [KINDS[int(i)] for i in np.argmax(predict(dev_vec), axis=1)]
    core = np.asarray([kind in ("rule", "preference") for kind in KINDS], dtype=float)
    for scale in (0.5,):
        for l2 in (1e-3,):
            predict = logistic(np.hstack([ex_vec, ex_cue * scale]), labels, l2)
            probs = predict(np.hstack([dev_vec, dev_cue * scale]))
            for core_bias in (0.0, 0.25, 0.5):
                # A prior shift towards core: losing a rule from core costs more than a fact promoted to it.
                biased = np.log(probs) + core_bias * core
                name = f"logistic USE+cues s={scale:g} l2={l2:g} core+{core_bias:g}"
                candidates[name] = [KINDS[int(i)] for i in np.argmax(biased, axis=1)]
    shipped = [
        classify(row["text"], has_project=True, vector=vector) for row, vector in zip(rows, dev_vec, strict=True)
    ]
    candidates["shipped (embedding)"] = ["drop" if found.drop else found.kind for found in shipped]
    shipped = [classify(row["text"], has_project=True) for row in rows]
    candidates["shipped (cue features)"] = ["drop" if found.drop else found.kind for found in shipped]
    predict = logistic(ex_cue, labels, 1e-3)
    candidates["logistic cues only"] = [KINDS[int(i)] for i in np.argmax(predict(dev_cue), axis=1)]

    show = sys.argv[2] if len(sys.argv) > 2 else None
    half = [int(hashlib.sha1(row["repo_group"].encode()).hexdigest(), 16) % 2 for row in rows]
    header = f"{'candidate':38} {'part':4} " + " ".join(
        f"{m:>6}" for m in ("layer", "en", "zh", "drop_p", "drop_r", "core", "long")
    )
    print(header)
    for name, kinds in candidates.items():
        for part, keep in (("all", None), ("A", 0), ("B", 1)):
            sel = [i for i in range(len(rows)) if keep is None or half[i] == keep]
            figures = score([rows[i] for i in sel], [kinds[i] for i in sel])
            print(
                f"{name:38} {part:4} "
                + " ".join(f"{figures[m]:6.3f}" for m in ("layer", "en", "zh", "drop_p", "drop_r", "core", "long"))
            )
    if show:
        errors(rows, candidates[show], half)
        for part in (0, 1):
            table: dict[tuple[str, str], int] = {}
            for row, kind, p in zip(rows, candidates[show], half, strict=True):
                if p == part:
                    key = (row["layer"], layer_of(kind))
                    table[key] = table.get(key, 0) + 1
            print("ABpart"[part], "confusion (gold -> predicted):", sorted(table.items()))


def errors(rows: list[dict], kinds: list[str], half: list[int]) -> None:
    """Part A's layer errors (part B is kept unseen)."""
    for row, kind, part in zip(rows, kinds, half, strict=True):
        if part == 0 and layer_of(kind) not in golds(row):
            print(f"  {row['layer']}/{row['category']} -> {kind}: {row['text'][:100]}")


if __name__ == "__main__":
    main()
