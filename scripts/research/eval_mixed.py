"""Recall in a vault written in both languages (issue 36): MADial-Bench's memories, the even ids in Chinese and
the odd ones in English, asked from both languages' conversations — what a bilingual person's vault looks like,
where a memory of the other script competes with memories of the query's own script (the one-script
`madial-zh2en` / `madial-en2zh` splits cannot show that).

    AIMATE_EVAL_VECTORS=/tmp/vec .venv/bin/python scripts/research/eval_mixed.py

Prints R@10 per conversation language, over all gold memories and split by the gold memory's language (same
or other script than the question). The two languages' files are translations with the same ids, so the
vectors of every text are the ones the one-language runs cached.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCH = Path(os.environ.get("BENCH", HERE.parents[1].parent / "shared" / "bench"))
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(HERE.parent))

import eval_plugin  # noqa: E402
import eval_retrieval as ev  # noqa: E402

K = 10


def mixed_corpus(data: Path) -> tuple[ev.Corpus, dict[str, str]]:
    """Both languages' queries over one vault per user; the language of each memory id."""
    zh, en = ev.load_madial(data, "zh"), ev.load_madial(data, "en", "en")
    language = {}
    vaults: dict[str, list[ev.Doc]] = {}
    english = {(vault, doc.id): doc for vault, docs in en.vaults.items() for doc in docs}
    for vault, docs in zh.vaults.items():
        mixed = []
        for doc in docs:
            chinese = int(doc.id) % 2 == 0 or (vault, doc.id) not in english
            mixed.append(doc if chinese else english[(vault, doc.id)])
            language[doc.id] = "zh" if chinese else "en"
        vaults[vault] = mixed
    queries = [*zh.queries, *en.queries]
    return ev.Corpus("madial-mixed", vaults, {}, queries, zh.parse_id, "memory"), language


def main() -> None:
    corpus, language = mixed_corpus(BENCH / "data" / "madial_bench")
    vaults = eval_plugin.BenchVaults(corpus)
    recall: dict[tuple[str, str], list[float]] = {}
    for query in corpus.queries:
        asked_in = query.qid.split("-")[1]
        found = {doc_id for doc_id, _ in vaults.search(query.vault, query.text, K)}
        for side in ("all", "same", "other"):
            gold = [g for g in query.gold_turns if side == "all" or (language[g] == asked_in) == (side == "same")]
            if gold:
                recall.setdefault((asked_in, side), []).append(len(found & set(gold)) / len(gold))
    print(f"R@{K} in mixed vaults (n = questions with gold of that kind)")
    for (asked_in, side), values in sorted(recall.items()):
        print(f"{asked_in} talk, {side:5s} gold: {sum(values) / len(values):.3f}  (n={len(values)})")


if __name__ == "__main__":
    main()
