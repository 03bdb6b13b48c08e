"""The configured supersede thresholds, checked with the real default embedder on the labelled pairs."""

from __future__ import annotations

import numpy as np
import pytest
from supersede_pairs import PAIRS

from aimate_memory.capture import decide, jaccard
from aimate_memory.config.defaults import DEFAULTS
from aimate_memory.embedding import create_embedder
from tests.conftest import linked_models

THRESHOLD = DEFAULTS["capture"]["supersede_threshold"]
KEYWORD_THRESHOLD = DEFAULTS["capture"]["keyword_supersede_threshold"]


def _accuracy_and_precision(scores: list[float], threshold: float) -> tuple[float, float]:
    predicted = [score >= threshold for score in scores]
    labels = [same for _, _, same in PAIRS]
    correct = sum(p == y for p, y in zip(predicted, labels, strict=True))
    hits = sum(p and y for p, y in zip(predicted, labels, strict=True))
    return correct / len(PAIRS), hits / max(1, sum(predicted))


def test_pairs_are_bilingual_and_balanced() -> None:
    assert len(PAIRS) >= 30
    assert sum(same for *_, same in PAIRS) >= 10 and sum(not same for *_, same in PAIRS) >= 10
    assert sum(1 for old, _, _ in PAIRS if any("\u4e00" <= ch <= "\u9fff" for ch in old)) >= 15


@pytest.mark.slow
def test_cosine_threshold_never_supersedes_a_different_memory(tmp_path, model_cache) -> None:
    cache = linked_models(model_cache, tmp_path / "models")
    embedder = create_embedder({"provider": "auto", "cache_dir": str(cache)})
    old = embedder.embed([pair[0] for pair in PAIRS])
    new = embedder.embed([pair[1] for pair in PAIRS])
    scores = [float(value) for value in np.sum(old * new, axis=1)]
    accuracy, precision = _accuracy_and_precision(scores, THRESHOLD)
    print(f"\nsupersede threshold {THRESHOLD}: accuracy {accuracy:.3f}, precision {precision:.3f}")
    assert precision == 1.0 and accuracy >= 0.9
    # The decision follows the scores: the same pairs through `decide`.
    actions = [
        decide(n, [("old", o, s)], THRESHOLD, KEYWORD_THRESHOLD).action
        for (o, n, _), s in zip(PAIRS, scores, strict=True)
    ]
    assert all(action == "new" for action, (*_, same) in zip(actions, PAIRS, strict=True) if not same)


def test_keyword_fallback_threshold_is_precise() -> None:
    _, precision = _accuracy_and_precision([jaccard(old, new) for old, new, _ in PAIRS], KEYWORD_THRESHOLD)
    assert precision == 1.0
