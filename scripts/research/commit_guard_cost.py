"""What one commit through the secret guard costs: N new files in one commit, then one edited file 15 times.

PYTHONPATH=CODE .venv/bin/python scripts/research/commit_guard_cost.py 2000   (CODE: the checkout to measure)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aimate_memory.git.repo import VaultRepo

EDITS = 15


def main(count: int) -> None:
    root = Path(tempfile.mkdtemp()) / "vault"
    root.mkdir()
    for role in ("AUTHOR", "COMMITTER"):
        os.environ[f"GIT_{role}_NAME"], os.environ[f"GIT_{role}_EMAIL"] = "Bench", "bench@example.com"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    text = (Path(__file__).resolve().parents[2] / "docs" / "design.md").read_text(encoding="utf-8")
    names = [f"m{i:05d}.md" for i in range(count)]
    for i, name in enumerate(names):
        (root / name).write_text(f"# note {i}\n" + text[(i * 997) % 20000 :][:1200], encoding="utf-8")
    with VaultRepo(root, own_repo=True) as repo:
        start = time.perf_counter()
        repo.commit_paths(names, "bulk")
        bulk = time.perf_counter() - start
        one = []
        for k in range(EDITS):
            edited = root / names[1]
            edited.write_text(edited.read_text(encoding="utf-8") + f"edit {k}\n", encoding="utf-8")
            start = time.perf_counter()
            repo.commit_paths([names[1]], f"edit {k}")
            one.append(time.perf_counter() - start)
    p95 = sorted(one)[int(len(one) * 0.95) - 1]
    print(
        f"{count} files: bulk commit {bulk:.2f} s; one-file commit median {statistics.median(one) * 1000:.0f} ms,"
        f" p95 {p95 * 1000:.0f} ms; load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
