"""Tokens per memory in the context, on a 50-memory vault of real sentences (docs/benchmarks.md,
"Context rendering").

The vault: 50 sentences of the capture development split (`../shared/bench/capture/dev.jsonl`; 25 English,
25 Chinese; rules and preferences as global core, decisions and facts as project long-term, tasks and
notes as project short-term, by their gold labels), each written as `remember` writes it (the title
shortened from the sentence by `capture.classify.title_of`, the body the sentence) or, with `--title-only`,
as `aimate mem add "SENTENCE"` writes it (the title, no body). The context is built with a budget that
holds everything, so each memory's block is measured whole.

Reported per language: memories placed, and tokens per memory block (the index's estimate, and with
`--llm-tokenizer PATH` a real LLM tokenizer's count of the same text, e.g. the `tokenizer.json` that the
anthropic SDK shipped up to 0.38: Claude's former tokenizer, the only LLM tokenizer available offline).
Only the public API is used (`MemorySystem.open/add/build_context`), so the same script measures an older
checkout: `PYTHONPATH=/tmp/old python scripts/research/context_tokens.py`.

    python scripts/research/context_tokens.py [--title-only] [--llm-tokenizer tokenizer.json] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

DEV = Path(__file__).resolve().parents[3] / "shared" / "bench" / "capture" / "dev.jsonl"
PER_LANGUAGE = 25
MAX_TITLE_CHARS = 60  # capture.classify.MAX_TITLE_CHARS when this was written; title_of is used if present


def sentences(path: Path) -> list[dict]:
    """25 per language, in file order, kept layers only (not `drop`), stratified by layer."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    chosen: list[dict] = []
    for lang in ("en", "zh"):
        by_layer = {layer: [r for r in rows if r["lang"] == lang and r["layer"] == layer] for layer in LAYERS}
        picked: list[dict] = []
        while len(picked) < PER_LANGUAGE:
            for layer in LAYERS:
                if by_layer[layer] and len(picked) < PER_LANGUAGE:
                    picked.append(by_layer[layer].pop(0))
        chosen.extend(picked)
    return chosen


LAYERS = ("core", "long_term", "short_term")


def title_of(text: str) -> str:
    try:
        from aimate_memory.capture.classify import title_of as capture_title
    except ImportError:  # an older checkout
        text = " ".join(text.split())
        return text if len(text) <= MAX_TITLE_CHARS else text[: MAX_TITLE_CHARS - 1] + "…"
    return capture_title(text)


def measure(title_only: bool) -> dict:
    from aimate_memory.system import MemorySystem

    rows = sentences(DEV)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ.update({"AIMATE_HOME": str(root / "home"), "AIMATE_EMBEDDING__ENABLED": "false"})
        project = root / "proj"
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        aimate = Path(sys.executable).with_name("aimate")
        for folder in (root, project):  # the global vault, then the project's
            subprocess.run([str(aimate), "mem", "init"], cwd=folder, check=True, capture_output=True)
        lang_of: dict[str, str] = {}
        with MemorySystem.open(cwd=project) as system:
            for row in rows:
                text = row["text"]
                title, body = (text, "") if title_only else (title_of(text), text)
                scope = "global" if row["layer"] == "core" else "project"
                memory = system.add(title, body, layer=row["layer"], category=row["category"], scope=scope)
                lang_of[memory.id] = row["lang"]
            system.refresh()
            context = system.build_context(budget=128_000)
        items = [placed for section in context.sections for placed in section.items]
        return {"context": context, "items": items, "lang_of": lang_of, "count": len(rows)}


def report(result: dict, tokenizer_path: str | None) -> dict:
    from aimate_memory.context import render as render_module

    llm = None
    if tokenizer_path:
        from tokenizers import Tokenizer

        llm = Tokenizer.from_file(tokenizer_path)
    out: dict = {"memories": result["count"], "placed": len(result["items"]), "languages": {}}
    for lang in ("en", "zh"):
        placed = [p for p in result["items"] if result["lang_of"].get(p.item.id) == lang]
        tokens = [p.tokens for p in placed]
        entry = {
            "placed": len(placed),
            "tokens_mean": round(statistics.mean(tokens), 1) if tokens else None,
            "tokens_median": statistics.median(tokens) if tokens else None,
        }
        if llm is not None and placed:
            blocks = [_block(render_module, p) for p in placed]
            counts = [len(llm.encode(block.strip()).ids) for block in blocks]
            entry["llm_tokens_mean"] = round(statistics.mean(counts), 1)
            entry["llm_per_estimated"] = round(sum(counts) / sum(tokens), 2)
            entry["chars_mean"] = round(statistics.mean(len(block.strip()) for block in blocks), 1)
        out["languages"][lang] = entry
    text = result["context"].text
    out["text_tokens"] = result["context"].total_tokens
    out["text_chars"] = len(text)
    if llm is not None:
        out["text_llm_tokens"] = len(llm.encode(text).ids)
    return out


def _block(render_module, placed) -> str:
    """The block as the running version renders it."""
    if render_module.render_item.__code__.co_varnames[0] == "item":
        return render_module.render_item(placed.item, placed.text)
    heading = render_module.item_heading(placed.item)  # the former layout: heading with id and path, body
    return render_module.render_item(heading, placed.text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--title-only", action="store_true", help="memories as `mem add TITLE` writes them")
    parser.add_argument("--llm-tokenizer", help="a tokenizers JSON file to count LLM tokens with")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = report(measure(args.title_only), args.llm_tokenizer)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
        return
    print(f"memories {result['memories']}, placed {result['placed']}, text {result['text_tokens']} tokens")
    for lang, entry in result["languages"].items():
        print(f"  {lang}: {json.dumps(entry, ensure_ascii=False)}")


if __name__ == "__main__":
    main()
