import numpy as np
import pytest

from aimate_memory.retrieval.fusion import Ranked, best_per_memory, combine, fuse, minmax, rrf, understands

A, B, C = 1, 2, 3


def ranked(*pairs: tuple[int, float]) -> Ranked:
    return Ranked.from_pairs(pairs)


def test_minmax():
    assert minmax(np.array([])).tolist() == []
    assert minmax(np.array([3.0])).tolist() == [1.0]
    assert minmax(np.array([3.0, 1.0, 2.0])).tolist() == [1.0, 0.0, 0.5]
    assert minmax(np.array([2.0, 2.0])).tolist() == [1.0, 1.0]


def test_rrf_ranks_by_score():
    assert rrf(np.array([0.1, 0.9])).tolist() == pytest.approx([61 / 62, 1.0])


def test_combine_methods():
    assert combine("maxmin", 1.0, 0.5) == pytest.approx(1.15)
    assert combine("weighted", 1.0, 0.5) == pytest.approx(0.8)
    assert combine("weighted", np.array([1.0, 0.0]), np.array([0.5, 1.0])).tolist() == pytest.approx([0.8, 0.4])
    with pytest.raises(ValueError):
        combine("nope", 0, 0)


def test_understands():
    assert understands({"latin"}, "latin")
    assert not understands({"latin"}, "cjk")
    assert not understands({"latin"}, "mixed")
    assert understands({"latin", "cjk"}, "mixed")


def test_agreement_wins():
    out = fuse(ranked((A, 0.9), (B, 0.5), (C, 0.1)), ranked((B, 12.0), (C, 3.0)), method="weighted")
    assert out.ids.tolist() == [B, A, C]
    assert out.vector[0] == pytest.approx(0.5) and out.keyword[0] == 1.0
    assert np.isnan(out.keyword[1])  # A was no keyword candidate


def test_blind_embedder_cannot_decide_cjk_query():
    # MiniLM-like embedder: its vectors for a Chinese query are noise and must be ignored.
    noise, hit = 1, 2
    out = fuse(ranked((noise, 0.99), (hit, 0.10)), ranked((hit, 5.0)), query_script="cjk", vector_languages={"latin"})
    assert out.ids.tolist() == [hit]
    assert np.isnan(out.vector[0])


def test_keyword_only_and_vector_only():
    assert fuse(ranked(), ranked((A, 2.0), (B, 1.0))).ids.tolist() == [A, B]
    assert fuse(ranked((A, 0.2), (B, 0.8)), ranked()).ids.tolist() == [B, A]
    assert len(fuse(ranked(), ranked())) == 0


def test_one_list_methods_leave_out_the_other_list():
    vec, kw = ranked((A, 0.9), (B, 0.5)), ranked((B, 3.0), (C, 1.0))
    assert fuse(vec, kw, method="keyword").ids.tolist() == [B, C]
    assert fuse(vec, kw, method="vector").ids.tolist() == [A, B]


def test_ties_go_to_keyword_then_first_appearance():
    # B and C have the same fused score; B is the better keyword candidate.
    out = fuse(ranked((C, 1.0), (B, 0.0)), ranked((B, 1.0), (C, 0.0)), method="maxmin")
    assert out.ids.tolist() == [B, C]
    # Equal in everything: the keyword list's order decides.
    out = fuse(ranked(), ranked((C, 1.0), (A, 1.0)))
    assert out.ids.tolist() == [C, A]


def test_auto_method_is_weighted_for_every_script():
    vec, kw = ranked((A, 1.0), (B, 0.0)), ranked((B, 1.0), (A, 0.0))
    latin = fuse(vec, kw, method="auto", query_script="latin")
    cjk = fuse(vec, kw, method="auto", query_script="cjk")
    assert latin.scores[0] == pytest.approx(combine("weighted", 1.0, 0.0))
    assert cjk.scores[0] == pytest.approx(combine("weighted", 1.0, 0.0))


def test_normalized_lists_are_combined_as_they_are_and_rrf():
    out = fuse(ranked((A, 0.5), (B, 0.1)), ranked((B, 0.5)), normalized=True)
    assert out.ids.tolist() == [A, B]
    assert out.scores.tolist() == pytest.approx([0.3, 0.26])  # min-max would have sent B's vector to 0
    both = fuse(ranked((A, 0.9), (B, 0.5)), ranked((B, 3.0), (A, 1.0)), method="rrf")
    assert set(both.ids.tolist()) == {A, B}


def test_best_per_memory():
    memories = np.array([1, 1, 2, 3])
    chunks = np.array([10, 11, 20, 30])
    best = best_per_memory(memories, chunks, np.array([0.2, 0.7, 0.5, 0.5]))
    assert best.ids.tolist() == [1, 2, 3]  # 2 and 3 tie: hit order decides
    assert best.scores.tolist() == [0.7, 0.5, 0.5]
    assert best.chunks.tolist() == [11, 20, 30]
    assert len(best_per_memory(np.array([], dtype=np.int64), np.array([], dtype=np.int64), np.array([]))) == 0
