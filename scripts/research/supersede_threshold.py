"""Measure the supersede thresholds on the labelled pairs of tests/capture/supersede_pairs.py.

    .venv/bin/python scripts/research/supersede_threshold.py [--provider auto]

Scores every (existing, new) pair with the real default embedder (cosine) and with the keyword fallback
(`capture.supersede.jaccard`), sweeps the thresholds, and prints accuracy / precision / recall per
threshold, overall and per language. The pick is precision-first: the first grid threshold at least
MARGIN above the highest-scoring "different" pair, because a false supersede hides a memory that was
still true while a missed one only leaves a near-duplicate. The accuracy-optimal threshold is printed
too; on a set this small it sits on a knife edge next to some different pair.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "capture"))

from supersede_pairs import PAIRS  # noqa: E402

from aimate_memory.capture.supersede import jaccard  # noqa: E402
from aimate_memory.embedding import create_embedder  # noqa: E402
from aimate_memory.text.scripts import scripts_in  # noqa: E402


@dataclass(frozen=True)
class Point:
    threshold: float
    accuracy: float
    precision: float
    recall: float


def evaluate(scores: Sequence[float], labels: Sequence[bool], threshold: float) -> Point:
    predicted = [score >= threshold for score in scores]
    hits = sum(p and y for p, y in zip(predicted, labels, strict=True))
    correct = sum(p == y for p, y in zip(predicted, labels, strict=True))
    positives = sum(predicted)
    return Point(
        threshold,
        correct / len(labels),
        hits / positives if positives else 1.0,
        hits / sum(labels) if any(labels) else 1.0,
    )


def sweep(scores: Sequence[float], labels: Sequence[bool], grid: Sequence[float]) -> list[Point]:
    return [evaluate(scores, labels, threshold) for threshold in grid]


MARGIN = 0.02


def best_accuracy(points: Sequence[Point]) -> Point:
    """Best accuracy; among equals the highest threshold (fewer wrong supersedes)."""
    return max(points, key=lambda point: (round(point.accuracy, 6), point.threshold))


def pick(points: Sequence[Point], scores: Sequence[float], labels: Sequence[bool]) -> Point:
    """The first threshold at least MARGIN above every pair labelled different."""
    bar = max(score for score, same in zip(scores, labels, strict=True) if not same) + MARGIN
    return next((point for point in points if point.threshold >= bar - 1e-9), points[-1])


def cosines(provider: str) -> list[float]:
    with tempfile.TemporaryDirectory() as cache:
        embedder = create_embedder({"provider": provider, "cache_dir": cache})
        assert embedder is not None
        old = embedder.embed([pair[0] for pair in PAIRS])
        new = embedder.embed([pair[1] for pair in PAIRS])
    return [float(value) for value in np.sum(old * new, axis=1)]


def report(name: str, scores: list[float], grid: Sequence[float]) -> Point:
    labels = [pair[2] for pair in PAIRS]
    zh = [i for i, pair in enumerate(PAIRS) if "cjk" in scripts_in(pair[0])]
    en = [i for i in range(len(PAIRS)) if i not in zh]
    print(
        f"\n{name}: same pairs mean {np.mean([s for s, y in zip(scores, labels, strict=True) if y]):.3f}, "
        f"different pairs mean {np.mean([s for s, y in zip(scores, labels, strict=True) if not y]):.3f}"
    )
    print(f"{'thr':>5} {'acc':>6} {'prec':>6} {'rec':>6} | {'acc en':>6} {'acc zh':>6}")
    for point in sweep(scores, labels, grid):
        en_point = evaluate([scores[i] for i in en], [labels[i] for i in en], point.threshold)
        zh_point = evaluate([scores[i] for i in zh], [labels[i] for i in zh], point.threshold)
        print(
            f"{point.threshold:5.2f} {point.accuracy:6.3f} {point.precision:6.3f} {point.recall:6.3f} | "
            f"{en_point.accuracy:6.3f} {zh_point.accuracy:6.3f}"
        )
    points = sweep(scores, labels, grid)
    for label, point in (("best accuracy", best_accuracy(points)), ("pick", pick(points, scores, labels))):
        print(
            f"{label} {name}: {point.threshold:.2f} (accuracy {point.accuracy:.3f}, "
            f"precision {point.precision:.3f}, recall {point.recall:.3f})"
        )
    return pick(points, scores, labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--provider", default="auto")
    args = parser.parse_args()
    print(f"{len(PAIRS)} pairs ({sum(p[2] for p in PAIRS)} same, {sum(not p[2] for p in PAIRS)} different)")
    scores = cosines(args.provider)
    keywords = [jaccard(old, new) for old, new, _ in PAIRS]
    for (old, new, label), score, overlap in zip(PAIRS, scores, keywords, strict=True):
        print(f"  cos {score:.3f} jac {overlap:.3f} {'same' if label else 'diff'}  {old} | {new}")
    report(f"cosine ({args.provider})", scores, [round(x, 2) for x in np.arange(0.40, 0.99, 0.01)])
    report("keyword jaccard", keywords, [round(x, 2) for x in np.arange(0.1, 0.9, 0.05)])


if __name__ == "__main__":
    main()
