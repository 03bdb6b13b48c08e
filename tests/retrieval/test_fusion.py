import pytest

from aimate_memory.retrieval.fusion import best_per_memory, combine, fuse, minmax, understands


def test_minmax():
    assert minmax([]) == {}
    assert minmax([("a", 3.0)]) == {"a": 1.0}
    assert minmax([("a", 3.0), ("b", 1.0), ("c", 2.0)]) == {"a": 1.0, "b": 0.0, "c": 0.5}
    assert minmax([("a", 1.0), ("a", 5.0), ("b", 3.0)]) == {"a": 1.0, "b": 0.0}


def test_combine_methods():
    assert combine("maxmin", 1.0, 0.5) == pytest.approx(1.15)
    assert combine("weighted", 1.0, 0.5) == pytest.approx(0.8)
    with pytest.raises(ValueError):
        combine("nope", 0, 0)


def test_understands():
    assert understands({"latin"}, "latin")
    assert not understands({"latin"}, "cjk")
    assert not understands({"latin"}, "mixed")
    assert understands({"latin", "cjk"}, "mixed")


def test_agreement_wins():
    vec = [("a", 0.9), ("b", 0.5), ("c", 0.1)]
    kw = [("b", 12.0), ("c", 3.0)]
    out = fuse(vec, kw, method="weighted")
    assert [f.id for f in out] == ["b", "a", "c"]
    assert out[0].vector == pytest.approx(0.5) and out[0].keyword == 1.0


def test_blind_embedder_cannot_decide_cjk_query():
    # MiniLM-like embedder: its vectors for a Chinese query are noise and must be ignored.
    vec = [("noise", 0.99), ("kw-hit", 0.10)]
    kw = [("kw-hit", 5.0)]
    out = fuse(vec, kw, query_script="cjk", vector_languages={"latin"})
    assert [f.id for f in out] == ["kw-hit"]
    assert out[0].vector is None


def test_blind_embedder_cannot_decide_cjk_docs():
    vec = [("zh-doc", 0.95), ("en-doc", 0.6), ("en-doc2", 0.2)]
    kw = [("en-doc2", 2.0)]
    scripts = {"zh-doc": "cjk", "en-doc": "latin", "en-doc2": "latin"}
    out = fuse(vec, kw, query_script="latin", vector_languages={"latin"}, doc_script=scripts)
    assert "zh-doc" not in [f.id for f in out]
    out2 = fuse(vec, kw, query_script="latin", vector_languages={"latin", "cjk"}, doc_script=scripts)
    assert out2[0].id == "zh-doc" or out2[0].score == next(f.score for f in out2 if f.id == "zh-doc")
    assert "zh-doc" in [f.id for f in out2]


def test_keyword_only_and_vector_only():
    assert [f.id for f in fuse([], [("a", 2.0), ("b", 1.0)])] == ["a", "b"]
    assert [f.id for f in fuse([("a", 0.2), ("b", 0.8)], [])] == ["b", "a"]
    assert fuse([], []) == []


def test_auto_method_is_weighted_for_every_script():
    vec = [("a", 1.0), ("b", 0.0)]
    kw = [("b", 1.0), ("a", 0.0)]
    latin = fuse(vec, kw, method="auto", query_script="latin")
    cjk = fuse(vec, kw, method="auto", query_script="cjk")
    assert latin[0].score == pytest.approx(combine("weighted", 1.0, 0.0))
    assert cjk[0].score == pytest.approx(combine("weighted", 1.0, 0.0))


def test_min_similarity_and_rrf():
    out = fuse([("a", 0.9), ("b", 0.05)], [], min_similarity=0.1)
    assert [f.id for f in out] == ["a"]
    rrf = fuse([("a", 0.9), ("b", 0.5)], [("b", 3.0), ("a", 1.0)], method="rrf")
    assert {f.id for f in rrf} == {"a", "b"}


def test_best_per_memory():
    ranked, best = best_per_memory([("m1", "c1", 0.2), ("m1", "c2", 0.7), ("m2", "c3", 0.5)])
    assert ranked == [("m1", 0.7), ("m2", 0.5)]
    assert best == {"m1": "c2", "m2": "c3"}
