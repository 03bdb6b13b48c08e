"""Measure the restatement bar (system/capture.py `RESTATEMENT`, `maintenance.paraphrase_threshold`) on real
restatements: the replay's hand labels, where a "restated" need is a later turn of the person's that says an
earlier statement again.

    .venv/bin/python scripts/research/restatement_threshold.py REPLAY_DATA_DIR

For every restated need: the USE cosine of the statement with the closest typed sentence of the restating turn
(`capture.heard.sentences`), as capture reads it. Against that, every pair of different labelled statements of
one project. Prints each restatement's cosine, the closest different pairs, and per bar how many restatements
it finds and how many different pairs it would take for one (the data is read where it lies, never copied).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import tempfile
from pathlib import Path

import numpy as np

BARS = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="the replay's data folder (one folder per project)")
    args = parser.parse_args()
    os.environ.setdefault("AIMATE_HOME", tempfile.mkdtemp())
    from aimate_memory.capture.heard import sentences
    from aimate_memory.system import MemorySystem

    reader = MemorySystem.open().capture._reader
    same: list[tuple[float, str, str]] = []
    different: list[tuple[float, str, str]] = []
    for project in sorted(path for path in args.data.iterdir() if (path / "labels.jsonl").exists()):
        labels = [json.loads(line) for line in (project / "labels.jsonl").read_text(encoding="utf-8").splitlines()]
        sessions = [json.loads(line) for line in (project / "sessions.jsonl").read_text(encoding="utf-8").splitlines()]
        said = {(s["session_id"], t["turn"]): t["text"] for s in sessions for t in s["turns"] if t["role"] == "user"}
        statements = {label["id"]: label["span"] for label in labels if label["kind"] == "statement"}
        for need in (label for label in labels if label["kind"] == "need" and label["type"] == "restated"):
            turn = said[(need["session_id"], need["turn"])]
            for statement in (statements[one] for one in need["needs"]):
                candidates = sentences(turn) or [turn[:300]]
                vectors = reader.vectors([statement, *candidates])
                assert vectors is not None, "USE did not load"
                cosines = [float(vectors[0] @ row) for row in vectors[1:]]
                best = int(np.argmax(cosines))
                same.append((cosines[best], statement, candidates[best]))
        spans = list(statements.values())
        vectors = reader.vectors(spans)
        assert vectors is not None, "USE did not load"
        for first, second in itertools.combinations(range(len(spans)), 2):
            different.append((float(vectors[first] @ vectors[second]), spans[first], spans[second]))
    for cosine, statement, again in sorted(same):
        print(f"{cosine:.2f}  {statement[:60]!r} ~ {again[:60]!r}")
    print("closest different statements:")
    for cosine, one, other in sorted(different, reverse=True)[:10]:
        print(f"{cosine:.2f}  {one[:60]!r} / {other[:60]!r}")
    for bar in BARS:
        found = sum(cosine >= bar for cosine, _, _ in same)
        taken = sum(cosine >= bar for cosine, _, _ in different)
        print(f"bar {bar:.2f}: restatements {found}/{len(same)}, different pairs over it {taken}/{len(different)}")


if __name__ == "__main__":
    main()
