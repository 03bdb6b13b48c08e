"""The secret scanner against detect-secrets on the bench's corpora (no real secret in them: every finding is
a false positive) and on the issue-25 probes (docs/reliability.md "Security").

.venv/bin/python scripts/research/secret_scanners.py            # this scanner
/path/to/venv-with-detect-secrets/bin/python scripts/research/secret_scanners.py   # both
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
BENCH = HERE.parents[1].parent / "shared" / "bench"
RUNS = 3

from aimate_memory.git.secrets import scan_text  # noqa: E402

PROBES = [
    "the admin password is hunter2hunter2",
    "数据库密码是 hunter2hunter2",
    "口令：Sup3rS3cret!",
    "keys AKIA" + "IOSFODNN7EXAMPLE and ghp_" + "a" * 36,
    "password = hunter2hunter",
]


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def corpus_lines() -> list[str]:
    """Every non-blank line of LoCoMo dev, MADial (en, zh) and the capture dev set."""
    files = [BENCH / "data" / "locomo_dev.json", *sorted((BENCH / "data" / "madial_bench").glob("*.json"))]
    files.append(BENCH / "capture" / "dev.jsonl")
    lines: list[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            documents = [json.loads(text)]
        except ValueError:
            documents = [json.loads(row) for row in text.splitlines() if row.strip()]
        for string in _strings(documents):
            lines.extend(line for line in string.splitlines() if line.strip())
    return lines


def timed(action: Any) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(RUNS):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def ours(lines: list[str]) -> None:
    text = "\n".join(lines)
    seconds, found = timed(lambda: scan_text(text))
    print(f"aimate scanner: {len(found)} findings, median {seconds:.2f} s")
    print("  probes caught:", [bool(scan_text(probe)) for probe in PROBES])


def detect_secrets(lines: list[str]) -> None:
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.settings import default_settings, transient_settings
    except ImportError:
        print("detect-secrets: not installed in this interpreter (pip install detect-secrets in another venv)")
        return
    folder = tempfile.mkdtemp()
    Path(folder, "corpus.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    Path(folder, "probes.md").write_text("\n".join(PROBES) + "\n", encoding="utf-8")
    plugins = [c.__name__ for c in get_mapping_from_secret_type_to_class().values() if "Entropy" not in c.__name__]

    def scan(name: str) -> list[Any]:
        collection = SecretsCollection(root=folder)
        collection.scan_file(name)
        return [secret for path in collection.files for secret in collection[path]]

    for label, settings in (
        ("default plugins", default_settings),
        ("without entropy plugins", lambda: transient_settings({"plugins_used": [{"name": n} for n in plugins]})),
    ):
        with settings():
            seconds, found = timed(lambda: scan("corpus.md"))
            probes = {secret.line_number for secret in scan("probes.md")}
        print(f"detect-secrets, {label}: {len(found)} findings, median {seconds:.2f} s")
        print("  probes caught:", [number in probes for number in range(1, len(PROBES) + 1)])
    print("  by type:", Counter(secret.type for secret in found).most_common())


if __name__ == "__main__":
    corpus = corpus_lines()
    print(f"{len(corpus)} lines, {sum(map(len, corpus)):,} characters; load {os.getloadavg()[0]:.1f}")
    ours(corpus)
    detect_secrets(corpus)
