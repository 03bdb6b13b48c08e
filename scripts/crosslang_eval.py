"""Measure the restatement decision across languages on the labelled pairs of tests/data/crosslang_pairs.jsonl.

    .venv/bin/python scripts/crosslang_eval.py [--errors] [--cache-dir DIR]

Each pair is (a: a memory, b: a new text in the other language, label same | distinct, dir en-zh | zh-en):
`same` is the rule said again ("Always run ruff before committing" / "提交代码前一定要先运行 ruff"), `distinct` a
different rule on the same subject ("提交前先跑测试"). They were written by hand for issue 39, as developers say
such things, and none is taken from the replay's sessions. A positive is a pair labelled `same`. The `dev`
split (96 pairs) was written before the rules and the rules were then chosen on it; the `fresh` split (24
pairs) was written after capture/translation.py was frozen and scored once.

Prints precision / recall per direction for the decision before the lexicon (a USE cosine at or over the
restatement bar, system/capture.py `RESTATEMENT`) and after (capture/translation.py `says_again`), then the
curve of the word-agreement bar (dev). `--errors` lists the pairs the decision gets wrong. The constants of
capture/translation.py were chosen on this set: it is a development set, not a held-out measure.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from conflict_eval import use_cosines  # a script beside this one: the USE model, read the same way

from aimate_memory.capture import translation
from aimate_memory.system.capture import RESTATEMENT

PAIRS = Path(__file__).resolve().parents[1] / "tests" / "data" / "crosslang_pairs.jsonl"
DIRECTIONS = ("en-zh", "zh-en")
SPLITS = ("dev", "fresh")


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    label: str
    direction: str
    split: str = "dev"
    cosine: float = 0.0


def load(path: Path = PAIRS) -> list[Pair]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Pair(row["a"], row["b"], row["label"], row["dir"], row.get("split", "dev")) for row in rows]


def with_cosines(pairs: Sequence[Pair], cache_dir: str | None) -> list[Pair]:
    """Each pair with the USE cosine between its texts (the space capture compares sentences in)."""
    cosines = use_cosines([pair.a for pair in pairs], [pair.b for pair in pairs], cache_dir)
    return [Pair(p.a, p.b, p.label, p.direction, p.split, float(c)) for p, c in zip(pairs, cosines, strict=True)]


def before(pair: Pair) -> bool:
    return pair.cosine >= RESTATEMENT


def after(pair: Pair) -> bool:
    return translation.says_again(pair.b, pair.a, pair.cosine, RESTATEMENT)


def line(name: str, pairs: Sequence[Pair], decide: Callable[[Pair], bool]) -> str:
    said = [pair for pair in pairs if decide(pair)]
    right = sum(1 for pair in said if pair.label == "same")
    positives = sum(1 for pair in pairs if pair.label == "same")
    precision = right / len(said) if said else 1.0
    recall = right / positives if positives else 1.0
    return f"{name:28s} n={len(pairs):3d} same={positives:3d} said={len(said):3d}  P={precision:.2f}  R={recall:.2f}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--errors", action="store_true", help="list the pairs decided wrongly")
    parser.add_argument("--cache-dir", help="model cache (default: a fresh temporary folder)")
    args = parser.parse_args(argv)
    every = with_cosines(load(), args.cache_dir)
    for split in SPLITS:
        for direction in DIRECTIONS:
            part = [pair for pair in every if pair.direction == direction and pair.split == split]
            print(line(f"{split} {direction} before (cosine ≥ {RESTATEMENT:.2f})", part, before))
            print(line(f"{split} {direction} after (lexicon)", part, after))
    pairs = [pair for pair in every if pair.split == "dev"]
    print(f"curve on dev: word agreement bar (cosine floor {translation.CROSS_COSINE:.2f})")
    chosen = translation.AGREEMENT
    for bar in (0.3, 0.4, 0.5, 0.6, 0.7):
        translation.AGREEMENT = bar
        parts = {direction: [pair for pair in pairs if pair.direction == direction] for direction in DIRECTIONS}
        print("  " + "   ".join(line(f"{bar:.1f} {name}", part, after) for name, part in parts.items()))
    translation.AGREEMENT = chosen
    if args.errors:
        for pair in every:
            if after(pair) != (pair.label == "same"):
                verdict = translation.says_the_same(pair.b, pair.a, pair.cosine)
                print(f"{pair.split} {pair.label:8s} {pair.cosine:.2f} {pair.a} | {pair.b}: {verdict.reason}")


if __name__ == "__main__":
    main()
