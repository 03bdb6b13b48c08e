"""Retrieval-bench plugin that runs AIMate's real ranking pipeline on ../shared/bench.

    python3 ../shared/bench/eval_retrieval.py --dataset locomo --baselines none \
        --retriever scripts/research/hybrid_plugin.py:make

Pipeline per vault (each bench doc = one memory, title empty, body = the doc text):
chunk_memory → embed chunk.embed_text → FTS5 (sqlean, tokenize=textproc.FTS_TOKENIZE) over
fts_document(chunk.search_text) → per query: fts_query(question) → bm25 (all candidates) + cosine KNN
(numpy, exact) → best chunk per memory → fusion.fuse → ranking. The bench data is read at run time only.

Configuration (environment):
  AIM_EMBED    auto (default) | minilm | use | none | auto:<latin_weight>  (auto:1 = pure routing)
  AIM_FUSION   auto (default) | maxmin | weighted | rrf | keyword | vector
  AIM_TOKENIZE FTS5 tokenizer (default textproc.FTS_TOKENIZE)
  AIM_NOSTOP   1 = keep stopwords in queries
  AIM_CACHE    embedding cache dir (default /tmp/aimate-research-cache): raw vectors keyed by
               model + sha1(text), so configurations can be compared without re-embedding.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import sqlean as sqlite3  # noqa: E402

from aimate_memory.embedding.base import l2_normalize  # noqa: E402
from aimate_memory.index import textproc  # noqa: E402
from aimate_memory.index.chunking import chunk_memory  # noqa: E402
from aimate_memory.retrieval.fusion import best_per_memory, fuse, understands  # noqa: E402
from aimate_memory.text.scripts import script_of  # noqa: E402

CACHE = Path(os.environ.get("AIM_CACHE", "/tmp/aimate-research-cache"))


class Cached:
    """Wrap an embedder; persist its vectors per text (research only)."""

    def __init__(self, make_inner, name: str, identity: str, dimension: int, languages: frozenset[str]):
        self._make_inner = make_inner
        self._inner = None
        self.identity = identity
        self.dimension = dimension
        self.languages = languages
        self.path = CACHE / f"{name}.pkl"
        self.store: dict[str, np.ndarray] = pickle.loads(self.path.read_bytes()) if self.path.exists() else {}
        self.dirty = False
        self.seconds = 0.0
        self.count = 0

    def embed(self, texts):
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = sorted({(k, t) for k, t in zip(keys, texts, strict=True) if k not in self.store})
        if missing:
            t0 = time.perf_counter()
            if self._inner is None:
                self._inner = self._make_inner()
            vecs = self._inner.embed([t for _, t in missing])
            self.seconds += time.perf_counter() - t0
            self.count += len(missing)
            for (k, _), v in zip(missing, vecs, strict=True):
                self.store[k] = v
            self.dirty = True
        return np.stack([self.store[k] for k in keys]) if texts else np.zeros((0, self.dimension), np.float32)

    def embed_query(self, text):
        return self.embed([text])[0]

    def save(self):
        if self.dirty:
            CACHE.mkdir(parents=True, exist_ok=True)
            self.path.write_bytes(pickle.dumps(self.store))
            self.dirty = False


_MODELS: dict[str, Cached] = {}


def _model(name: str) -> Cached:
    if name not in _MODELS:
        if name == "minilm":
            from aimate_memory.embedding.minilm import MiniLMEmbedder

            _MODELS[name] = Cached(
                lambda: MiniLMEmbedder(cache_dir=CACHE / "models"),
                name,
                MiniLMEmbedder.identity,
                384,
                frozenset({"latin"}),
            )
        else:
            from aimate_memory.embedding.use_provider import UseEmbedder

            _MODELS[name] = Cached(UseEmbedder, name, "use", 512, frozenset({"latin", "cjk"}))
    return _MODELS[name]


def build_embedder(spec: str):
    if spec == "none":
        return None
    if spec in ("minilm", "use"):
        return _model(spec)
    if spec.startswith("auto"):
        from aimate_memory.embedding.auto_provider import DEFAULT_LATIN_WEIGHT, AutoEmbedder

        w = float(spec.split(":", 1)[1]) if ":" in spec else DEFAULT_LATIN_WEIGHT
        return AutoEmbedder(_model("minilm"), _model("use"), latin_weight=w)
    raise SystemExit(f"unknown AIM_EMBED {spec!r}")


def doc_id_of(corpus, vault: str, number: int) -> str:
    return corpus.vaults[vault][number].id


def make(corpus):
    spec = os.environ.get("AIM_EMBED", "auto")
    method = os.environ.get("AIM_FUSION", "auto")
    tokenize = os.environ.get("AIM_TOKENIZE", textproc.FTS_TOKENIZE)
    keep_stop = os.environ.get("AIM_NOSTOP") == "1"
    emb = build_embedder(spec)
    db = sqlite3.connect(":memory:")
    vaults = {}
    t0 = time.perf_counter()
    for vi, (vid, docs) in enumerate(corpus.vaults.items()):
        table = f"v{vi}"
        db.execute(
            f"CREATE VIRTUAL TABLE {table} USING fts5(chunk UNINDEXED, body, tokenize=?)".replace("?", f"'{tokenize}'")
        )
        rows, chunk_mem, embed_texts, scripts = [], [], [], {}
        for d in docs:
            for c in chunk_memory("", d.text):
                cid = len(chunk_mem)
                chunk_mem.append(d.id)
                rows.append((cid, textproc.fts_document(c.search_text)))
                embed_texts.append(c.embed_text)
            scripts[d.id] = script_of(d.text)
        db.executemany(f"INSERT INTO {table}(chunk, body) VALUES (?, ?)", rows)
        mat = emb.embed(embed_texts) if emb else None
        vaults[vid] = (table, chunk_mem, mat, scripts)
    db.commit()
    for m in _MODELS.values():
        m.save()
    print(
        f"[hybrid] embed={spec} fusion={method} tokenize={tokenize!r} indexed in "
        f"{time.perf_counter() - t0:.1f}s "
        + " ".join(f"{n}:{m.count / m.seconds:.0f}/s" for n, m in _MODELS.items() if m.seconds),
        file=sys.stderr,
    )

    def retrieve(vault: str, question: str, k: int):
        table, chunk_mem, mat, scripts = vaults[vault]
        terms = textproc.query_terms(question)
        if keep_stop:
            terms = textproc.query_terms(question.replace("'", " "), max_terms=textproc.MAX_QUERY_TERMS)
        q = textproc.fts_query_from_terms(terms)
        kw_hits = []
        if q:
            for cid, s in db.execute(
                f"SELECT chunk, bm25({table}) FROM {table} WHERE {table} MATCH ? ORDER BY bm25({table}) LIMIT 5000",
                (q,),
            ):
                kw_hits.append((cid, -s))
        vec_hits = []
        if mat is not None and len(mat):
            qv = emb.embed_query(question)
            sims = mat @ l2_normalize(qv[None, :])[0]
            top = np.argsort(-sims)[:5000]
            readable = emb.languages
            vec_hits = [(int(i), float(sims[i])) for i in top if understands(readable, scripts[chunk_mem[i]])]
        # fusion works on integer ids: a doc's number is its position in the vault (doc_id_of)
        number = {doc.id: n for n, doc in enumerate(corpus.vaults[vault])}

        def ranked(hits):
            chunks = np.asarray([cid for cid, _ in hits], dtype=np.int64)
            docs = np.asarray([number[chunk_mem[cid]] for cid, _ in hits], dtype=np.int64)
            return best_per_memory(docs, chunks, np.asarray([s for _, s in hits], dtype=np.float64))

        fused = fuse(
            ranked(vec_hits),
            ranked(kw_hits),
            method=method,
            query_script=script_of(question),
            vector_languages=emb.languages if emb else (),
        )
        return [doc_id_of(corpus, vault, n) for n in fused.ids[:k].tolist()]

    return retrieve
