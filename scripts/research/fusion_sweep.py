"""Compare fusion rules on the same candidate lists (one indexing pass per dataset, in-process).

    .venv/bin/python scripts/research/fusion_sweep.py [auto:1 auto:0.7 ...]
Prints R@5 / R@10 / MRR (all queries) per dataset × embedder × fusion method.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCH = Path(os.environ.get("BENCH", HERE.parents[1].parent / "shared" / "bench"))
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(HERE))

import eval_retrieval as ev  # noqa: E402
import hybrid_plugin as hp  # noqa: E402

from aimate_memory.retrieval import fusion  # noqa: E402

METHODS = ["keyword", "vector", "maxmin", "weighted", "rrf"]


def main() -> None:
    embeds = sys.argv[1:] or ["auto:1", "auto:0.7", "auto:0.5"]
    for ds in ("locomo", "madial-en", "madial-zh"):
        corpus = (
            ev.load_locomo(BENCH / "data" / "locomo_dev.json")
            if ds == "locomo"
            else ev.load_madial(BENCH / "data" / "madial_bench", ds.split("-")[1])
        )
        for spec in embeds:
            os.environ["AIM_EMBED"] = spec
            captured = {}

            def spy(vec, kw, captured=captured, **kwargs):
                captured["args"] = (vec, kw, kwargs)
                return fusion.fuse(fusion.Ranked.from_pairs([]), fusion.Ranked.from_pairs([]))

            real = hp.fuse
            hp.fuse = spy
            retrieve = hp.make(corpus)
            lists = {}
            for q in corpus.queries:
                retrieve(q.vault, q.text, 100)
                lists[q.qid] = (*captured["args"], q.vault)
            hp.fuse = real
            for m in METHODS:
                ranked = {}
                for qid, (vec, kw, kwargs, vault) in lists.items():
                    fused = fusion.fuse(vec, kw, **dict(kwargs, method=m))
                    ranked[qid] = [hp.doc_id_of(corpus, vault, n) for n in fused.ids[:100].tolist()]
                res = ev.evaluate(corpus, ranked, 100, ("turn",))["turn"]["by_category"]["ALL"]
                print(
                    f"{ds:10s} {spec:9s} {m:9s} R@5 {res['R@5']:.3f} R@10 {res['R@10']:.3f} MRR {res['MRR']:.3f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
