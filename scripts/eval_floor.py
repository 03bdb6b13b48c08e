"""Choosing the relevance floor (``retrieval.min_relevance``) by measurement, and comparing two rankings.

    .venv/bin/python scripts/eval_floor.py --bench ../shared/bench            # floor sweep, every dataset
    .venv/bin/python scripts/eval_floor.py --bench ../shared/bench --bootstrap BASE.jsonl NEW.jsonl \
        --dataset locomo                                                       # paired bootstrap of R@k/MRR
    .venv/bin/python scripts/eval_floor.py --bench ../shared/bench --bootstrap BASE.jsonl NEW.jsonl \
        --dataset madial-en --halves                               # + each half of the questions, by category

Sweep: every question is searched (floor 0, top 10) twice with the real system (scripts/eval_plugin.py):
in its own vault (*related*: recall@10 of the gold memories that clear the floor) and in another
conversation's / user's vault (*unrelated*: does anything clear the floor?). Each floor keeps the hits
whose relevance reaches it, so one pass serves the whole sweep. LoCoMo conversation i is asked against
conversation i+1; MADial user A against user B. The bench data is read at run time only.

Bootstrap: two run files as written by eval_retrieval.py ``--dump-run``; per-query R@5, R@10 and MRR,
resampled 2,000 times; prints the mean difference (new − base) and its 95 % interval. ``--halves`` also
prints both runs on each half of the questions (A: the even positions of the bench's list, B: the odd), by
category (LoCoMo) or number of relevant memories (MADial): a variant chosen on half A is reported on half B,
which is the closest the dev split comes to data nothing was chosen on (docs/benchmarks.md, "Same-language
recall, second round").
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from eval_plugin import BenchVaults  # noqa: E402

DATASETS = ("locomo", "madial-zh", "madial-en")
# Cross-language: MADial's two languages are one benchmark translated (same memory ids), so Chinese
# dialogues can be asked against the English memories and the other way round.
CROSS_DATASETS = ("madial-zh-en", "madial-en-zh")
FLOORS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
K = 10
NO_FLOOR = {"AIMATE_RETRIEVAL__MIN_SIMILARITY": "0"}


@dataclass
class Asked:
    """One question's top-K in a vault, best first: (doc id, its `--explain` factors); and its gold ids."""

    hits: list[tuple[str, dict[str, float]]]
    gold: list[str]

    def relevant(self, floor: float) -> set[str]:
        return {doc for doc, factors in self.hits if factors["relevance"] >= floor}


def load_bench(bench: Path, dataset: str):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(bench))
    module = importlib.import_module("eval_retrieval")
    if dataset == "locomo":
        return module, module.load_locomo(bench / "data" / "locomo_dev.json")
    parts = dataset.split("-")
    memories = module.load_madial(bench / "data" / "madial_bench", parts[-1])
    if len(parts) == 2:
        return module, memories
    questions = module.load_madial(bench / "data" / "madial_bench", parts[1])
    corpus = module.Corpus(dataset, memories.vaults, {}, questions.queries, memories.parse_id, "memory")
    return module, corpus


def other_vault(vault_ids: list[str], vault_id: str) -> str:
    """The vault an unrelated question is asked against: the next one, round the list."""
    return vault_ids[(vault_ids.index(vault_id) + 1) % len(vault_ids)]


def ask_all(corpus, parse_id: Callable[[str], tuple[str | None, str | None]]) -> tuple[list[Asked], list[Asked]]:  # type: ignore[no-untyped-def]
    vaults = BenchVaults(corpus, env=NO_FLOOR)
    vault_ids = sorted(corpus.vaults)
    related, unrelated = [], []
    for query in corpus.queries:
        if not query.gold_turns or not query.text.strip():
            continue
        for target, out in ((query.vault, related), (other_vault(vault_ids, query.vault), unrelated)):
            hits = vaults.search(target, query.text, K)
            ranked = [(parse_id(doc_id)[0] or doc_id, _factors(hit, hits)) for doc_id, hit in hits]
            out.append(Asked(ranked, query.gold_turns))
    return related, unrelated


def _factors(hit, hits) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """A hit's factors; a neighbour shown as context (no factors of its own) clears a floor with the
    anchor it is shown next to, as the search shows it."""
    if hit.context_of is None:
        return hit.factors
    anchor = next(other for _, other in hits if other.memory.id == hit.context_of)
    return {**hit.factors, "relevance": anchor.factors["relevance"]}


def recall_at(asked: list[Asked], floor: float) -> float:
    total = 0.0
    for item in asked:
        total += len(item.relevant(floor) & set(item.gold)) / len(item.gold)
    return total / len(asked)


def answered_share(asked: list[Asked], floor: float) -> float:
    return sum(bool(item.relevant(floor)) for item in asked) / len(asked)


def sweep(bench: Path, datasets: list[str], dump: Path | None) -> list[str]:
    results = {}
    for dataset in datasets:
        _, corpus = load_bench(bench, dataset)
        results[dataset] = ask_all(corpus, corpus.parse_id)
    if dump:  # every hit's factors, to study the calibration without searching again
        rows = {d: [[item.__dict__ for item in side] for side in results[d]] for d in datasets}
        dump.write_text(json.dumps(rows), encoding="utf-8")
    header = "| floor | " + " | ".join(f"{d} R@10 | {d} unrelated answered" for d in datasets) + " |"
    lines = [header, "|" + "---|" * (1 + 2 * len(datasets))]
    for floor in FLOORS:
        cells = []
        for dataset in datasets:
            related, unrelated = results[dataset]
            cells += [f"{recall_at(related, floor):.3f}", f"{answered_share(unrelated, floor):.0%}"]
        lines.append(f"| {floor:.2f} | " + " | ".join(cells) + " |")
    return lines


def per_query(module, corpus, run: Path) -> dict[str, dict[str, float]]:  # type: ignore[no-untyped-def]
    ranked = {row["qid"]: row["ranked"] for row in map(json.loads, run.read_text(encoding="utf-8").splitlines())}
    out = {}
    for query in corpus.queries:
        if not query.gold_turns:
            continue
        turns, _ = module.split_levels(corpus, ranked.get(query.qid, []))
        out[query.qid] = module._score(turns, query.gold_turns, 100)
    return out


def bootstrap(bench: Path, dataset: str, base: Path, new: Path, rounds: int = 2000) -> list[str]:
    module, corpus = load_bench(bench, dataset)
    a, b = per_query(module, corpus, base), per_query(module, corpus, new)
    qids = sorted(a)
    rng = random.Random(7)
    lines = [f"{dataset}: {len(qids)} queries, {rounds} paired resamples"]
    for metric in ("R@5", "R@10", "MRR"):
        diffs = [b[q][metric] - a[q][metric] for q in qids]
        means = sorted(sum(rng.choice(diffs) for _ in qids) / len(qids) for _ in range(rounds))
        base_mean = sum(a[q][metric] for q in qids) / len(qids)
        new_mean = sum(b[q][metric] for q in qids) / len(qids)
        low, high = means[int(0.025 * rounds)], means[int(0.975 * rounds)]
        change = f"Δ {new_mean - base_mean:+.3f}  95% [{low:+.3f}, {high:+.3f}]"
        lines.append(f"  {metric}: {base_mean:.3f} → {new_mean:.3f}  {change}")
    return lines


def halves(bench: Path, dataset: str, base: Path, new: Path) -> list[str]:
    """R@5 / R@10 / MRR of both runs on each half of the questions (A even positions, B odd), by category."""
    module, corpus = load_bench(bench, dataset)
    a, b = per_query(module, corpus, base), per_query(module, corpus, new)
    lines = [f"{dataset}: base → new, R@5 / R@10 / MRR"]
    for half, parity in (("A", 0), ("B", 1)):
        rows: dict[str, list[str]] = {}
        for position, query in enumerate(corpus.queries):
            if position % 2 == parity and query.qid in a:
                rows.setdefault("ALL", []).append(query.qid)
                rows.setdefault(query.category, []).append(query.qid)
        for category, qids in sorted(rows.items()):
            figures = [
                " / ".join(f"{sum(run[q][m] for q in qids) / len(qids):.3f}" for m in ("R@5", "R@10", "MRR"))
                for run in (a, b)
            ]
            lines.append(f"  {half} {category} (n {len(qids)}): {figures[0]} → {figures[1]}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True, help="the bench folder (eval_retrieval.py, data/)")
    parser.add_argument(
        "--dataset", action="append", choices=DATASETS + CROSS_DATASETS, help="repeatable; default: all"
    )
    parser.add_argument("--dump", type=Path, help="write every hit's factors here (JSON)")
    parser.add_argument("--bootstrap", nargs=2, type=Path, metavar=("BASE", "NEW"), help="two --dump-run files")
    parser.add_argument("--halves", action="store_true", help="with --bootstrap: each half of the questions too")
    args = parser.parse_args()
    datasets = args.dataset or list(DATASETS + CROSS_DATASETS)
    if args.bootstrap:
        for dataset in datasets:
            print("\n".join(bootstrap(args.bench, dataset, *args.bootstrap)))
            if args.halves:
                print("\n".join(halves(args.bench, dataset, *args.bootstrap)))
        return
    print(f"relevance floor sweep, {date.today().isoformat()}, top {K}")
    print("\n".join(sweep(args.bench, datasets, args.dump)))


if __name__ == "__main__":
    main()
