#!/usr/bin/env python3
"""Anchor exactness on a real repository's history (issue 27, "Measured"; docs/anchors.md).

    .venv/bin/python scripts/anchor_exactness.py --repo /work/.mirror/pallets+click/repo \
        --old 884af5c20fdc95c9c7352df35c37273391464fb9 --new HEAD [--json out.json]

1. Clone the repository into a temp folder and check out `--old`.
2. Write ~50 project memories through the facade (`MemorySystem.add`, the clock set to the old commit's
   time), each citing one of the old commit's files — a path in English or Chinese, or an identifier only
   that file defines — sampled across what will happen to the file (unchanged, changed, renamed, deleted).
3. Check out `--new` (the replay) and ask `system.stale()` which memories are possibly stale.
4. Compare with the truth from git, computed here independently of the code under test: for each anchored
   file, its blob at `--old` against the blob at the same path at `--new` (same → fresh, differs → changed,
   absent → moved or deleted); moved when `git log --follow` from `--new` finds a file whose history passes
   through the old path (renames followed across every commit, the other way round from the tool's
   forward walk), else deleted.

Prints the counts: flagged vs truth (true/false positives, misses) and the agreement on `what`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from aimate_memory.clock import FixedClock  # noqa: E402
from aimate_memory.system import MemorySystem  # noqa: E402

EN = "The {what} is handled in {path}; read it before changing this area."
ZH = "{what}的处理在 {path} 里，改这块之前先看它。"
EN_SYMBOL = "{symbol}() in the code does the {what} work."
ZH_SYMBOL = "{what}由 {symbol}() 负责。"
PER_KIND = {"fresh": 14, "changed": 14, "moved": 12, "deleted": 12}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=repo, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def blobs_at(repo: Path, commit: str) -> dict[str, str]:
    out = git(repo, "ls-tree", "-r", commit)
    found = {}
    for line in out.splitlines():
        info, _, path = line.partition("\t")
        kind, blob = info.split()[1:3]
        if kind == "blob":
            found[path] = blob
    return found


def truth_of(
    repo: Path, path: str, old: dict[str, str], new: dict[str, str], new_commit: str
) -> tuple[str, str | None]:
    """(what, moved_to) from git, by a route of its own: `git log --follow` backwards from each file at
    `--new` that is not at its old path, looking for the old path in its history."""
    if new.get(path) == old[path]:
        return "fresh", None
    if path in new:
        return "changed", None
    moved_to = _followed_to(repo, path, old, new, new_commit)
    return ("moved", moved_to) if moved_to is not None else ("deleted", None)


_FOLLOWED: dict[str, list[str]] = {}


def _followed_to(repo: Path, path: str, old: dict[str, str], new: dict[str, str], new_commit: str) -> str | None:
    if not _FOLLOWED:
        for candidate in new:
            if candidate in old:
                continue  # a file at the same path is that path's own history
            names = git(repo, "log", "--follow", "--format=", "--name-only", new_commit, "--", candidate).split()
            _FOLLOWED[candidate] = names
    hits = [candidate for candidate, names in _FOLLOWED.items() if path in names]
    return hits[0] if hits else None


def unique_definitions(repo: Path, old: dict[str, str]) -> dict[str, str]:
    """file → one top-level `def`/`class` name that no other file of the old commit defines."""
    counts: Counter[str] = Counter()
    by_file: dict[str, list[str]] = {}
    for path in old:
        if not path.endswith(".py"):
            continue
        text = (repo / path).read_text(encoding="utf-8", errors="replace")
        names = re.findall(r"^(?:def|class) ([A-Za-z_][A-Za-z0-9_]{5,})", text, re.MULTILINE)
        by_file[path] = names
        counts.update(set(names))
    return {
        path: next(n for n in names if counts[n] == 1)
        for path, names in by_file.items()
        if any(counts[n] == 1 for n in names)
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", default="HEAD")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="anchor-exactness-"))
    os.environ.update(AIMATE_HOME=str(work / "home"), AIMATE_EMBEDDING__ENABLED="false", AIMATE_NO_DAEMON="1")
    repo = work / "repo"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(args.repo), str(repo)], check=True)
    old_commit = git(repo, "rev-parse", args.old).strip()
    new_commit = git(repo, "rev-parse", args.new).strip()
    git(repo, "checkout", "-q", old_commit)
    old, new = blobs_at(repo, old_commit), blobs_at(repo, new_commit)
    candidates = [p for p in old if (not p.startswith(".") and "/" in p) or p.endswith((".py", ".md", ".rst", ".txt"))]
    by_truth: dict[str, list[str]] = {}
    for path in candidates:
        by_truth.setdefault(truth_of(repo, path, old, new, new_commit)[0], []).append(path)
    symbols = unique_definitions(repo, old)
    chosen = []
    for kind, count in PER_KIND.items():
        pool = sorted(by_truth.get(kind, []))
        chosen += rng.sample(pool, min(count, len(pool)))

    old_time = datetime.fromtimestamp(int(git(repo, "log", "-1", "--format=%ct", old_commit)), timezone.utc)
    clock = FixedClock(old_time + timedelta(seconds=1))
    system = MemorySystem.open(cwd=repo, clock=clock)
    system.init(local=True)
    written: dict[str, str] = {}  # memory id → the file it was meant to cite
    extraction_misses = []
    for number, path in enumerate(chosen):
        what = Path(path).stem.replace("_", " ")
        chinese = number % 2 == 1
        symbol = symbols.get(path) if number % 3 == 2 else None
        if symbol:
            body = (ZH_SYMBOL if chinese else EN_SYMBOL).format(symbol=symbol, what=what)
        else:
            body = (ZH if chinese else EN).format(path=path, what=what)
        memory = system.add(f"About {what}", body, scope="project")
        written[memory.id] = path
        if path not in [anchor.path for anchor in memory.anchors]:
            extraction_misses.append((path, body, [a.path for a in memory.anchors]))
    system.close()

    git(repo, "checkout", "-q", new_commit)  # the replay: the memories' vault is untracked and stays
    system = MemorySystem.open(cwd=repo)
    system.refresh()
    flagged = {memory.id: stale for memory, stale in system.stale()}
    memories = {memory.id: memory for memory in system.list()}
    system.close()

    rows = []
    for memory_id, cited in written.items():
        memory = memories[memory_id]
        truths = {anchor.path: truth_of(repo, anchor.path, old, new, new_commit) for anchor in memory.anchors}
        stale_truth = [path for path, (what, _) in truths.items() if what != "fresh"]
        stale = flagged.get(memory_id)
        first_truth = truths.get(stale.path) if stale is not None else None
        rows.append(
            {
                "id": memory_id[:8],
                "cited": cited,
                "anchors": list(truths),
                "truth": {path: list(value) for path, value in truths.items()},
                "flagged": stale.to_dict() if stale is not None else None,
                "should_flag": bool(stale_truth),
                "what_agrees": first_truth is not None
                and (stale.what, stale.moved_to if stale.what == "moved" else None) == first_truth,
            }
        )
    tp = sum(1 for r in rows if r["flagged"] and r["should_flag"])
    fp = sum(1 for r in rows if r["flagged"] and not r["should_flag"])
    fn = sum(1 for r in rows if not r["flagged"] and r["should_flag"])
    tn = sum(1 for r in rows if not r["flagged"] and not r["should_flag"])
    kinds = Counter(
        (r["truth"][r["flagged"]["path"]][0], r["flagged"]["what"]) for r in rows if r["flagged"] is not None
    )
    report = {
        "repo": str(args.repo),
        "old": old_commit,
        "new": new_commit,
        "memories": len(rows),
        "cited_by_truth": dict(Counter(truth_of(repo, p, old, new, new_commit)[0] for p in chosen)),
        "extraction_misses": extraction_misses,
        "flagged": len(flagged),
        "true_positive": tp,
        "false_positive": fp,
        "missed": fn,
        "true_negative": tn,
        "what_agrees": sum(1 for r in rows if r["what_agrees"]),
        "truth_vs_flagged_what": {f"{t}->{f}": n for (t, f), n in sorted(kinds.items())},
        "disagreements": [
            r for r in rows if (r["flagged"] and not r["what_agrees"]) or bool(r["flagged"]) != r["should_flag"]
        ],
    }
    print(json.dumps({k: v for k, v in report.items() if k != "disagreements"}, indent=1, ensure_ascii=False))
    for row in report["disagreements"]:
        print("disagrees:", json.dumps(row, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps({**report, "rows": rows}, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
