"""Absolute relevance: the same yardstick for every query (pure functions, no disk)."""

import math

import numpy as np
import pytest

from aimate_memory.retrieval.fusion import Ranked
from aimate_memory.retrieval.relevance import (
    CALIBRATION,
    CROSS_SCRIPT,
    aligned,
    calibration_for,
    combine,
    cross_script_evidence,
    evidence,
    keyword_evidence,
    passes,
    term_weights,
    vector_evidence,
)


def test_vector_evidence_is_absolute_not_rescaled_per_query():
    latin = CALIBRATION["latin"]
    weak = np.array([latin.unrelated - 0.05, latin.unrelated + 0.01])
    # min-max would send the better of two weak candidates to 1.0; on a fixed scale both stay near 0
    assert vector_evidence(weak, "latin").max() < 0.05
    assert vector_evidence(np.array([latin.same + 0.1]), "latin").tolist() == [1.0]
    middle = (latin.unrelated + latin.same) / 2
    assert vector_evidence(np.array([middle]), "latin")[0] == pytest.approx(0.5)


def test_cjk_and_mixed_queries_use_the_universal_encoders_yardstick():
    assert calibration_for("cjk") is CALIBRATION["cjk"]
    assert calibration_for("mixed") is CALIBRATION["cjk"]
    assert calibration_for("latin") is CALIBRATION["latin"]


def test_term_weights_favour_rare_terms_and_never_vanish():
    weights = term_weights([0, 1, 50, 100], rows=100)
    assert weights[0] > weights[1] > weights[2] > weights[3] > 0
    assert term_weights([1], rows=2)[0] > 0.5  # a term in one of two chunks still counts (a small vault)


def test_keyword_evidence_is_the_idf_weighted_share_of_terms_held():
    # "quantum" is in no chunk (the rarest term), "cache" in 10 of 1000
    weights = term_weights([0, 10], rows=1000)
    matched = np.array([[False, True, False], [True, True, False]])  # chunks: only cache, both, neither
    share = keyword_evidence(matched, weights)
    assert share[0] == pytest.approx(weights[1] / weights.sum()) and share[0] < 0.5
    assert share[1:].tolist() == pytest.approx([1.0, 0.0])
    assert keyword_evidence(np.zeros((0, 0), dtype=bool), np.zeros(0)).tolist() == []


def test_relevance_combines_evidence_and_trusts_keywords_alone_without_vectors():
    assert combine(1.0, 0.5).tolist() == pytest.approx(0.8)
    assert combine(np.array([np.nan, 0.5]), np.array([0.5, np.nan])).tolist() == pytest.approx([0.2, 0.3])
    assert combine(0.9, 0.25, vectors_trusted=False).tolist() == pytest.approx(0.25)


def test_floor_keeps_the_last_of_a_list_when_it_is_relevant():
    relevance = np.array([0.9, 0.31, 0.29])
    assert passes(relevance, 0.3).tolist() == [True, True, False]
    assert passes(np.array([0.0]), 0.0).tolist() == [True]  # floor 0: every candidate


def test_evidence_is_aligned_to_ids_in_any_order():
    ids = np.array([30, 10, 20])
    assert np.isnan(aligned(ids, np.array([]), np.array([]))).all()
    out = aligned(ids, np.array([20, 30, 99]), np.array([0.2, 0.3, 0.9]))
    assert out[[0, 2]].tolist() == [0.3, 0.2] and np.isnan(out[1])
    cosines = Ranked.from_pairs([(10, CALIBRATION["latin"].same)])
    keyword = Ranked.from_pairs([(20, 0.5), (10, 1.0)])
    found = evidence(ids, cosines, keyword, "latin", vectors_trusted=True)
    assert found.relevance.tolist() == pytest.approx([0.0, 1.0, 0.2])
    assert evidence(ids, cosines, keyword, "latin", vectors_trusted=False).relevance.tolist() == pytest.approx(
        [0.0, 1.0, 0.5]
    )


def test_cross_script_cosines_are_read_on_uses_own_scale() -> None:
    scale = 1 / math.sqrt(1 - 0.8)  # the default pair's weighting, undone
    # An English query and a Chinese memory: a cosine of .173 is USE's .387 — evidence, not noise.
    assert cross_script_evidence(np.array([0.173]), scale)[0] > 0.3
    assert cross_script_evidence(np.array([CROSS_SCRIPT.unrelated / scale]), scale)[0] == 0.0
    ids = np.array([1, 2])
    vector = Ranked(ids, np.array([0.173, 0.173]), ids.copy())
    keyword = Ranked(np.array([], dtype=np.int64), np.array([]), np.array([], dtype=np.int64))
    found = evidence(ids, vector, keyword, "latin", True, np.array([True, False]), scale)
    assert found.vector[0] > found.vector[1]  # the same cosine says more across scripts
