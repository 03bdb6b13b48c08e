"""Absolute relevance: the same yardstick for every query (pure functions, no disk)."""

import numpy as np
import pytest

from aimate_memory.retrieval.relevance import (
    CALIBRATION,
    bm25_idf,
    calibration_for,
    combine,
    ideal_bm25,
    keyword_evidence,
    passes,
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


def test_idf_follows_fts5_and_is_never_zero():
    idf = bm25_idf([0, 1, 50, 90], rows=100)
    assert idf[0] == pytest.approx(np.log(100.5 / 0.5))
    assert idf[0] > idf[1] > idf[2]  # rarer terms weigh more
    assert idf[3] == 1e-6  # in most chunks: counts for nothing, as in FTS5's bm25()
    assert bm25_idf([3], rows=0).tolist() == [1e-6]


def test_keyword_evidence_is_the_share_of_an_ideal_match():
    # "quantum" is in no chunk (the rarest term), "cache" in 10 of 1000: matching only "cache" is a small share
    ideal = ideal_bm25([0, 10], rows=1000)
    only_cache = bm25_idf([10], rows=1000)[0]
    assert keyword_evidence(np.array([only_cache]), ideal)[0] == pytest.approx(only_cache / ideal)
    assert keyword_evidence(np.array([only_cache]), ideal)[0] < 0.5
    assert keyword_evidence(np.array([3 * ideal, 0.0]), ideal).tolist() == [1.0, 0.0]  # capped at 1
    assert keyword_evidence(np.array([1.0]), 0.0).tolist() == [0.0]  # no terms: no evidence


def test_relevance_combines_evidence_and_trusts_keywords_alone_without_vectors():
    assert combine(1.0, 0.5).tolist() == pytest.approx(0.8)
    assert combine(np.array([np.nan, 0.5]), np.array([0.5, np.nan])).tolist() == pytest.approx([0.2, 0.3])
    assert combine(0.9, 0.25, vectors_trusted=False).tolist() == pytest.approx(0.25)


def test_floor_keeps_the_last_of_a_list_when_it_is_relevant():
    relevance = np.array([0.9, 0.31, 0.29])
    assert passes(relevance, 0.3).tolist() == [True, True, False]
    assert passes(np.array([0.0]), 0.0).tolist() == [True]  # floor 0: every candidate
