"""Measure conflict detection on the labelled pairs of tests/data/conflict_pairs.jsonl.

    .venv/bin/python scripts/conflict_eval.py [--split dev|heldout|all] [--errors]

Each pair is (a: an active memory, b: a new one, label conflict | compatible | unrelated, lang en | zh | mixed,
split dev | heldout | fresh | weeks). The dev and heldout pairs were written by hand before any rule or threshold
existed; the heldout third (chosen by a hash of the text) was never looked at pair by pair while the table and
the thresholds were chosen — only its totals, once, at the end. Since the table was written by the same hand
as those pairs, the `fresh` split was written after the table was frozen, on subjects it has no slot for
(time zones, auth, CSS, state management…): it measures what the cosine and the polarity rule catch alone.
The `weeks` split holds the kinds the replay of weeks of real sessions showed (issue 39), in new words and
both languages: changes of mind (a folder of one kind of file moved, one database each against one for all,
a "don't" turning a rule around) and false alarms (the length of a name against a commit subject's, near
requests where one says "don't" about something else, a negation inside a condition). It was written after
the rules for those kinds: a regression check of kinds, not a held-out measure.
A positive is a pair labelled conflict; the detector is `capture.conflict.find_conflicts` with the real
multilingual USE cosines capture uses (the reader of `system/reading.py`).

Prints precision / recall / F1 per split and per language at the configured thresholds
(`capture.conflict_subject_threshold`, `capture.conflict_threshold`), then the threshold curve: precision and
recall of each split as each threshold moves with the other fixed. `--errors` lists the dev split's misses and
false alarms (never another split's).

`--cost N` times the check itself: a temporary vault with N active core memories and decisions (every text of
the pairs, then variations of them), the real default embedder, and `remember` of each dev pair's second text
(kept beside with `keep_both`, so the vault does not change): the median and p95 of the `conflicts` lap of
capture's perf breakdown, cold (the first call of the process) and warm.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from aimate_memory.capture.conflict import ActiveMemory, Thresholds, find_conflicts
from aimate_memory.config.defaults import DEFAULTS
from aimate_memory.embedding import create_embedder

SPLITS = ("dev", "heldout", "fresh", "weeks")
PAIRS = Path(__file__).resolve().parents[1] / "tests" / "data" / "conflict_pairs.jsonl"


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    label: str
    lang: str
    split: str
    cosine: float = 0.0


@dataclass(frozen=True)
class Score:
    n: int
    true_positive: int
    predicted: int
    positive: int

    @property
    def precision(self) -> float:
        return self.true_positive / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.true_positive / self.positive if self.positive else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def line(self, name: str) -> str:
        return (
            f"{name:<16} n={self.n:<4} conflicts={self.positive:<3} flagged={self.predicted:<3} "
            f"P={self.precision:.2f}  R={self.recall:.2f}  F1={self.f1:.2f}"
        )


def load(path: Path = PAIRS) -> list[Pair]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Pair(row["a"], row["b"], row["label"], row["lang"], row["split"]) for row in rows]


def use_cosines(first: Sequence[str], second: Sequence[str], cache_dir: str | None) -> np.ndarray:
    """The USE cosine of each text of `first` with the text of `second` at its place (the space capture reads
    both languages in); also scripts/crosslang_eval.py's."""
    with tempfile.TemporaryDirectory() as scratch:
        embedder = create_embedder({"provider": "use", "cache_dir": cache_dir or scratch})
        assert embedder is not None
        return np.sum(embedder.embed(list(first)) * embedder.embed(list(second)), axis=1)


def with_cosines(pairs: Sequence[Pair], cache_dir: str | None) -> list[Pair]:
    """Each pair with the USE cosine between its texts."""
    cosines = use_cosines([pair.a for pair in pairs], [pair.b for pair in pairs], cache_dir)
    return [Pair(p.a, p.b, p.label, p.lang, p.split, float(c)) for p, c in zip(pairs, cosines, strict=True)]


def flagged(pair: Pair, thresholds: Thresholds) -> bool:
    return bool(find_conflicts(pair.b, [ActiveMemory("a", pair.a, pair.cosine)], thresholds))


def score(pairs: Iterable[Pair], thresholds: Thresholds) -> Score:
    pairs = list(pairs)
    predicted = [flagged(pair, thresholds) for pair in pairs]
    truth = [pair.label == "conflict" for pair in pairs]
    return Score(
        len(pairs),
        sum(p and t for p, t in zip(predicted, truth, strict=True)),
        sum(predicted),
        sum(truth),
    )


def report(pairs: Sequence[Pair], thresholds: Thresholds, splits: Sequence[str]) -> None:
    print(f"thresholds: subject (shared slot) {thresholds.subject:.2f}, polarity/change {thresholds.polarity:.2f}")
    for split in splits:
        part = [pair for pair in pairs if pair.split == split]
        print(score(part, thresholds).line(split))
        for lang in ("en", "zh", "mixed"):
            print("  " + score([p for p in part if p.lang == lang], thresholds).line(lang))


def curve(pairs: Sequence[Pair], thresholds: Thresholds, splits: Sequence[str]) -> None:
    def row(name: str, value: float, chosen: Thresholds) -> None:
        cells = "   ".join(
            f"{split}: P={s.precision:.2f} R={s.recall:.2f} F1={s.f1:.2f}"
            for split in splits
            for s in [score([p for p in pairs if p.split == split], chosen)]
        )
        print(f"  {name}={value:.2f}  {cells}")

    print(f"curve: polarity/change threshold (subject fixed at {thresholds.subject:.2f})")
    for value in np.arange(0.30, 0.96, 0.05):
        row("polarity", float(value), Thresholds(thresholds.subject, float(value)))
    print(f"curve: subject threshold (polarity fixed at {thresholds.polarity:.2f})")
    for value in np.arange(0.0, 0.51, 0.05):
        row("subject", float(value), Thresholds(float(value), thresholds.polarity))


def errors(pairs: Sequence[Pair], thresholds: Thresholds) -> None:
    print("dev errors:")
    for pair in pairs:
        if pair.split != "dev":
            continue
        found = find_conflicts(pair.b, [ActiveMemory("a", pair.a, pair.cosine)], thresholds)
        if bool(found) != (pair.label == "conflict"):
            why = found[0].reason if found else "-"
            print(f"  {pair.label:<10} cos={pair.cosine:.2f} {pair.a} | {pair.b}   [{why}]")


def cost(size: int, cache_dir: str | None) -> None:
    """Median and p95 of the conflict check over a vault of `size` core memories and decisions (module
    docstring): each dev pair's second text checked as a new memory, the model loaded; "uncached" with a fresh
    sentence cache per check (a CLI process), "cached" with the one a daemon or MCP server keeps."""
    import os
    import statistics
    import time

    from aimate_memory.system import MemorySystem
    from aimate_memory.system.conflicts import Conflicts
    from aimate_memory.system.reading import SentenceReader

    pairs = load()
    texts = list(dict.fromkeys(text for pair in pairs for text in (pair.a, pair.b)))
    corpus = [texts[n % len(texts)] + (f" (service {n // len(texts)})" if n >= len(texts) else "") for n in range(size)]
    queries = [pair.b for pair in pairs if pair.split == "dev"]
    with tempfile.TemporaryDirectory() as scratch:
        os.environ.update({"AIMATE_HOME": scratch, "AIMATE_NO_DAEMON": "1"})
        os.environ["AIMATE_EMBEDDING__CACHE_DIR"] = cache_dir or str(Path(scratch) / "models")
        work = Path(scratch) / "work"
        work.mkdir()
        with MemorySystem.open(cwd=work) as system:
            system.init()
            for n, text in enumerate(corpus):
                layer, category = ("core", "rule") if n % 2 else ("long_term", "decision")
                system.add(text, text, layer=layer, category=category)
            system.refresh()
            system.conflicts.check("warm-up: load the model", system.global_vault)
            timings: dict[str, list[float]] = {"uncached": [], "cached": []}
            for name in timings:
                for query in queries:
                    conflicts = (
                        Conflicts(system.store, system.retrieval, system.memories, SentenceReader(system.store))
                        if name == "uncached"
                        else system.conflicts
                    )
                    started = time.perf_counter()
                    conflicts.check(query, system.global_vault)
                    timings[name].append((time.perf_counter() - started) * 1000)
    for name, values in timings.items():
        values.sort()
        print(
            f"check at {size} core memories and decisions, {name}: median {statistics.median(values):.1f} ms, "
            f"p95 {values[round(0.95 * (len(values) - 1))]:.1f} ms ({len(values)} checks)"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    parser.add_argument("--errors", action="store_true", help="list the dev split's wrong answers")
    parser.add_argument("--cache-dir", help="model cache (default: a fresh temporary folder)")
    parser.add_argument("--cost", type=int, metavar="N", help="time the check over a vault of N memories instead")
    args = parser.parse_args(argv)
    if args.cost:
        cost(args.cost, args.cache_dir)
        return
    splits = SPLITS if args.split == "all" else (args.split,)
    pairs = with_cosines(load(), args.cache_dir)
    capture = DEFAULTS["capture"]
    chosen = Thresholds(float(capture["conflict_subject_threshold"]), float(capture["conflict_threshold"]))
    report(pairs, chosen, splits)
    curve(pairs, chosen, splits)
    if args.errors:
        errors(pairs, chosen)


if __name__ == "__main__":
    main()
