"""Same-language recall variants (issue 36), each a throwaway patch of one retrieval function, measured in-process
on the same indexed vaults and reported on the whole dev split and on each half of its questions.

    BENCH=../shared/bench AIMATE_EVAL_VECTORS=/tmp/samelang/vec nice -n 5 \
        .venv/bin/python scripts/research/same_language.py \
        madial-en base nolabel len-ovl thread-max

Half A is the even positions of the bench's question list, half B the odd ones: a variant chosen on A is
reported on B, the closest the dev split comes to data nothing was chosen on. Each variant's rankings go to
`$SAME_LANGUAGE_RUNS/DATASET.VARIANT.jsonl` (default /tmp/same_language) for `scripts/eval_floor.py
--bootstrap … --halves`. The results are in docs/benchmarks.md, "Same-language recall, second round"; none
of these variants is the product's code.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BENCH = Path(os.environ.get("BENCH", HERE.parents[1].parent / "shared" / "bench"))
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(HERE.parent))

import eval_plugin  # noqa: E402
import eval_retrieval as ev  # noqa: E402

from aimate_memory.index.textproc import query_terms  # noqa: E402
from aimate_memory.retrieval import fusion, hybrid  # noqa: E402

Undo = Callable[[], None]
SPEAKER = re.compile(r"(?m)^[^\W\d_][\w .'-]{0,30}:\s*")  # "Bart: " at the start of a dialogue line
THREAD_WEIGHT = 0.2  # the weight neighbours' support uses (retrieval/neighbours.py SUPPORT)
THREAD_DEPTH = 50  # the candidates support reads (neighbours.SUPPORTED)


def _patch(owner: object, name: str, new: object) -> Undo:
    old = getattr(owner, name)
    setattr(owner, name, new)
    return lambda: setattr(owner, name, old)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def _lines(text: str) -> list[str]:
    return [line for line in (raw.strip() for raw in text.splitlines()) if line]


def _query_vector(make: Callable[[hybrid.HybridSearcher, str, np.ndarray], np.ndarray]) -> Undo:
    """The query vector replaced by `make(searcher, query, vector)`."""
    old = hybrid.HybridSearcher._query_vector

    def new(self: hybrid.HybridSearcher, query: str, indexes: list, warnings: list[str]) -> np.ndarray | None:
        vector = old(self, query, indexes, warnings)
        return None if vector is None else make(self, query, vector)

    return _patch(hybrid.HybridSearcher, "_query_vector", new)


def _line_mean(searcher: hybrid.HybridSearcher, query: str) -> np.ndarray:
    embedder = searcher.embedder.get()
    return _unit(np.stack([embedder.embed_query(line) for line in _lines(query)]).mean(axis=0))


def _without_speakers() -> Undo:
    old = hybrid.HybridSearcher._search

    def new(self: hybrid.HybridSearcher, query: str, k: int, where: object) -> object:
        return old(self, SPEAKER.sub("", query), k, where)

    return _patch(hybrid.HybridSearcher, "_search", new)


def _memory_length(kind: str) -> Undo:
    """The keyword list's evidence scaled by its memory's length in query terms (n_m) against the query's (n_q):
    `ovl` the overlap coefficient (÷ min(1, n_m / n_q)), `piv` BM25's pivot (b = 0.75 over the list's mean),
    `sqrt` √(mean / n_m)."""
    old = hybrid._keyword_evidence

    def new(indexes: list, bridged: object, keyword: fusion.Ranked) -> fusion.Ranked:
        ranked = old(indexes, bridged, keyword)
        if not len(ranked):
            return ranked
        texts = hybrid._by_key(indexes, ranked.chunks, hybrid.MemoryIndex.chunk_texts)
        lengths = [max(1, len(set(query_terms(texts.get(int(c), ""), 100_000)))) for c in ranked.chunks]
        n_m = np.asarray(lengths, dtype=np.float64)
        n_q = max(1, len(bridged.terms))
        factor = {
            "ovl": lambda: np.maximum(1.0, n_q / n_m),
            "piv": lambda: 1.0 / (0.25 + 0.75 * n_m / n_m.mean()),
            "sqrt": lambda: np.sqrt(n_m.mean() / n_m),
        }[kind]()
        return fusion.Ranked(ranked.ids, ranked.scores * factor, ranked.chunks)

    return _patch(hybrid, "_keyword_evidence", new)


def _threads_of(indexes: list, keys: list[int]) -> dict[int, str]:
    out: dict[int, str] = {}
    for position, index in enumerate(indexes):
        rowids = [key & hybrid.ROWID_MASK for key in keys if key >> hybrid.KEY_SHIFT == position]
        if rowids:
            marks = ",".join("?" * len(rowids))
            for rowid, thread in index.conn.execute(
                f"SELECT rowid, thread FROM memories WHERE rowid IN ({marks})", rowids
            ):
                if thread is not None:
                    out[(position << hybrid.KEY_SHIFT) | rowid] = thread
    return out


def _thread_support(best_other: bool) -> Undo:
    """After neighbours' support, each of the best candidates gains THREAD_WEIGHT × the best fused score in its
    thread (its conversation's session), or × the best of the others in it."""
    old = hybrid._supported

    def new(threads: object, fused: fusion.Fused) -> fusion.Fused:
        fused = old(threads, fused)
        top = fused.ids[:THREAD_DEPTH].tolist()
        thread_of = _threads_of(threads.indexes, top)
        members: dict[str, list[float]] = {}
        for position, key in enumerate(top):
            if key in thread_of:
                members.setdefault(thread_of[key], []).append(float(fused.scores[position]))
        scores = fused.scores.copy()
        for position, key in enumerate(top):
            if key in thread_of:
                others = sorted(members[thread_of[key]], reverse=True)
                if best_other:
                    others.remove(float(fused.scores[position]))
                scores[position] += THREAD_WEIGHT * (others[0] if others else 0.0)
        order = np.argsort(-scores, kind="stable")
        before = fused.support if fused.support is not None else np.zeros(len(fused))
        return fused.take(order, support=(before + scores - fused.scores)[order], scores=scores[order])

    return _patch(hybrid, "_supported", new)


def _max_normalized(scores: np.ndarray) -> np.ndarray:
    scores = np.asarray(scores, dtype=np.float64)
    top = scores.max() if len(scores) else 0.0
    return scores / top if top > 1e-12 else np.ones_like(scores)


VARIANTS: dict[str, Callable[[], Undo]] = {
    "base": lambda: lambda: None,
    "vector-only": lambda: _patch(hybrid, "fuse", functools.partial(fusion.fuse, method="vector")),
    "keyword-only": lambda: _patch(hybrid, "fuse", functools.partial(fusion.fuse, method="keyword")),
    "nolabel": _without_speakers,
    "nolabel-vector": lambda: _query_vector(lambda s, q, v: np.asarray(s.embedder.embed_query(SPEAKER.sub("", q)))),
    "linemean": lambda: _query_vector(lambda s, q, v: v if len(_lines(q)) < 2 else _line_mean(s, q)),
    "wholeline": lambda: _query_vector(lambda s, q, v: v if len(_lines(q)) < 2 else _unit(_unit(v) + _line_mean(s, q))),
    "maxnorm": lambda: _patch(fusion, "minmax", _max_normalized),
    "len-ovl": lambda: _memory_length("ovl"),
    "len-piv": lambda: _memory_length("piv"),
    "len-sqrt": lambda: _memory_length("sqrt"),
    "thread-max": lambda: _thread_support(best_other=False),
    "thread-other": lambda: _thread_support(best_other=True),
    "exact-all": lambda: _patch(hybrid, "EXACT_VECTOR_CANDIDATES", 1000),  # every vector candidate's exact cosine
}


def _corpus(dataset: str) -> object:
    if dataset == "locomo":
        sys.argv += ["--data", str(BENCH / "data" / "locomo_dev.json")]  # the plugin reads session dates from it
        import __main__

        __main__.l2v = ev.l2v
        return ev.load_locomo(BENCH / "data" / "locomo_dev.json")
    memories, _, questions = dataset.split("-")[1].partition("2")
    return ev.load_madial(BENCH / "data" / "madial_bench", memories, questions or None)


def _report(corpus: object, ranked: dict[str, list[str]]) -> list[str]:
    queries = corpus.queries
    lines = []
    for half, chosen in (("all", queries), ("A", queries[0::2]), ("B", queries[1::2])):
        rows: dict[str, list[dict[str, float]]] = {}
        for query in chosen:
            if query.gold_turns:
                turns, _ = ev.split_levels(corpus, ranked.get(query.qid, []))
                scored = ev._score(turns, query.gold_turns, 100)
                rows.setdefault("ALL", []).append(scored)
                rows.setdefault(query.category, []).append(scored)
        cells = [
            f"{name} n{len(r)} " + " / ".join(f"{sum(x[m] for x in r) / len(r):.3f}" for m in ("R@5", "R@10", "MRR"))
            for name, r in sorted(rows.items())
        ]
        lines.append(f"  {half}: " + "  ".join(cells))
    return lines


def main() -> None:
    dataset, names = sys.argv[1], sys.argv[2:] or ["base"]
    corpus = _corpus(dataset)
    retrieve = eval_plugin.make(corpus)
    out = Path(os.environ.get("SAME_LANGUAGE_RUNS", "/tmp/same_language"))
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        undo = VARIANTS[name]()
        try:
            ranked, seconds = ev.run_retriever(corpus, retrieve, 100)
        finally:
            undo()
        print(f"{dataset} {name} ({seconds:.0f} s), R@5 / R@10 / MRR")
        print("\n".join(_report(corpus, ranked)), flush=True)
        rows = (json.dumps({"qid": q.qid, "ranked": ranked.get(q.qid, [])}) for q in corpus.queries)
        (out / f"{dataset}.{name}.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
