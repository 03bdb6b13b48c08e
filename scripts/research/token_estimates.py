"""How close the two named token estimates (aimate_memory/text/estimate.py) come to real tokenizers, on real
English and Chinese text: MADial-Bench's memories and dialogues (the shared bench's data folder).

    python scripts/research/token_estimates.py MINILM_TOKENIZER_JSON [LLM_TOKENIZER_JSON] [BENCH_DATA_DIR]

MINILM_TOKENIZER_JSON: the model cache's `state/models/minilm-*/tokenizer.json`; LLM_TOKENIZER_JSON: any BPE
tokenizer.json of an assistant's model. Prints per language the median, p5 and p95 of estimate ÷ real count
and the share of texts the estimate does not under-count."""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer

from aimate_memory.text.estimate import embedding_tokens, prompt_tokens

DEFAULT_BENCH = Path("/work/shared/bench/data")


def strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from strings(value)


def load(path: Path) -> Any:
    raw = path.read_text(encoding="utf-8")
    try:
        return json.loads(raw)
    except json.JSONDecodeError:  # JSON Lines
        return [json.loads(line) for line in raw.splitlines() if line.strip()]


def tokenizer(path: str) -> Callable[[str], int]:
    loaded = Tokenizer.from_file(path)
    loaded.no_padding()
    loaded.no_truncation()
    return lambda text: len(loaded.encode(text, add_special_tokens=False).ids)


def report(name: str, estimate: Callable[[str], int], real: Callable[[str], int], texts: list[str]) -> str:
    ratios = sorted(estimate(text) / max(1, real(text)) for text in texts)
    p5, p95 = ratios[int(0.05 * (len(ratios) - 1))], ratios[int(0.95 * (len(ratios) - 1))]
    not_under = sum(ratio >= 1 for ratio in ratios) / len(ratios)
    return f"{name}: median {statistics.median(ratios):.2f} (p5 {p5:.2f}, p95 {p95:.2f}), not under {not_under:.0%}"


def main() -> None:
    minilm = tokenizer(sys.argv[1])
    llm = tokenizer(sys.argv[2]) if len(sys.argv) > 2 else None
    bench = Path(sys.argv[3]) if len(sys.argv) > 3 else DEFAULT_BENCH
    for language in ("en", "zh"):
        texts = [
            text
            for kind in ("memory", "dialogue")
            for text in strings(load(bench / "madial_bench" / f"MADial-Bench-{language}-{kind}.json"))
            if len(text) > 20
        ]
        print(f"{language}: {len(texts)} texts")
        print("  " + report("embedding_tokens / MiniLM", embedding_tokens, minilm, texts))
        if llm is not None:
            print("  " + report("prompt_tokens / LLM", prompt_tokens, llm, texts))


if __name__ == "__main__":
    main()
