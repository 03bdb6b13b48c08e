"""Many writers at once for a bounded time (docs/reliability.md, "Concurrent writers"): two CLIs adding,
setting and removing, a third running `maintain` (an automatic action) in a loop, the daemon watching, and a
person's editor saving over memory files (temp file + rename). Afterwards nothing is lost, every change of
the tool is committed, the person's edits are neither committed nor undone (they wait in `review`), and the
index equals the files."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aimate_memory.vault.codec import parse_document
from tests.conftest import thorough_or

AIMATE = Path(sys.executable).with_name("aimate")
# 8 s in a run of the suite (~3 CLIs and a daemon on 2 cores: every second of it is two cores' worth), 20 in a
# thorough pass (AIMATE_THOROUGH=1, tests/conftest.py), the length of the runs in docs/reliability.md.
SECONDS = float(thorough_or("AIMATE_WRITERS_SECONDS", "8", "20"))

pytestmark = pytest.mark.slow

# One CLI writer: adds (English and Chinese titles), sets importance on its own memories, removes some; logs
# what succeeded, and every failure with its stderr.
WRITER = r"""
import json, random, subprocess, sys, time
aimate, name, seconds, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
rng, log, mine, i, added = random.Random(name), [], [], 0, 0
def run(*args):
    return subprocess.run([aimate, "mem", *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
end = time.monotonic() + seconds
while time.monotonic() < end or (added < 3 and i < 30):  # a few adds each, however loaded the machine
    i += 1
    roll = rng.random()
    if roll < 0.5 or not mine:
        title = f"{name} 记忆 {i}" if i % 2 else f"{name} memory {i}"
        done = run("add", title, "--body", f"written by {name}, 第 {i} 条", "--json")
        if done.returncode == 0:
            mine.append(json.loads(done.stdout)["id"])
            log.append(["add", mine[-1], title])
            added += 1
    elif roll < 0.85:
        memory_id, value = rng.choice(mine), rng.randint(1, 5)
        done = run("set", memory_id, f"importance={value}")
        if done.returncode == 0:
            log.append(["set", memory_id, value])
    else:
        memory_id = mine.pop(rng.randrange(len(mine)))
        done = run("rm", memory_id)
        if done.returncode == 0:
            log.append(["rm", memory_id])
    if done.returncode != 0:
        log.append(["fail", done.args[2:], done.returncode, done.stderr[-400:]])
json.dump(log, open(out, "w"), ensure_ascii=False)
"""

MAINTAINER = r"""
import subprocess, sys, time
aimate, seconds = sys.argv[1], float(sys.argv[2])
end, failures = time.monotonic() + seconds, 0
while time.monotonic() < end:
    done = subprocess.run([aimate, "mem", "maintain"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode not in (0, 1) or "Traceback" in done.stderr:
        print(done.stderr[-400:], file=sys.stderr)
        failures += 1
    time.sleep(1.0)
sys.exit(1 if failures else 0)
"""


def _edit_like_an_editor(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.swp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def test_writers_daemon_and_an_editor_at_once_lose_nothing(
    cli, initialized: Path, home: Path, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    env = {**os.environ, "AIMATE_HOME": str(home), "AIMATE_EMBEDDING__ENABLED": "false"}
    # The vault as `init` leaves it, copied (`initialized`): this test is about the writers, not `init`.
    # The person's own memories, committed by the tool, which the editor will change by hand.
    edited: dict[str, Path] = {}
    for title in ("Editor notes", "编辑器笔记", "Deploy checklist"):
        added = cli("mem", "add", title, "--body", "first version / 第一版", "--json").json()
        edited[added["id"]] = home / "memory" / added["path"]
    assert cli("mem", "daemon", "start").code == 0
    try:
        logs = [tmp_path / f"{name}.json" for name in ("alpha", "beta")]
        writers = [
            subprocess.Popen(
                [sys.executable, "-c", WRITER, str(AIMATE), name, str(SECONDS), str(log)], env=env, cwd=workdir
            )
            for name, log in zip(("alpha", "beta"), logs, strict=True)
        ]
        maintainer = subprocess.Popen(
            [sys.executable, "-c", MAINTAINER, str(AIMATE), str(SECONDS)],
            env=env,
            cwd=workdir,  # not inside any project: the global vault
            stderr=subprocess.PIPE,
            text=True,
        )
        rng, last_edit = random.Random(7), {}
        end = time.monotonic() + SECONDS
        while time.monotonic() < end:
            memory_id = rng.choice(sorted(edited))
            path = edited[memory_id]
            text = path.read_text(encoding="utf-8")
            head, _, _ = text.rpartition("---\n")
            body = f"edited by hand at {time.monotonic():.3f} / 手工修改\n"
            _edit_like_an_editor(path, head + "---\n" + body)
            last_edit[memory_id] = body
            time.sleep(0.2)
        assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
        _, maintainer_err = maintainer.communicate(timeout=120)
        assert maintainer.returncode == 0, maintainer_err
    finally:
        cli("mem", "daemon", "stop")

    entries = [entry for log in logs for entry in json.loads(log.read_text(encoding="utf-8"))]
    failures = [entry for entry in entries if entry[0] == "fail"]
    assert not failures, failures[:3]
    assert cli("mem", "index").code == 0
    listed = {m["id"]: m for m in cli("mem", "list", "--status", "all", "--json").json()}
    # Nothing lost: every memory added is there; the last importance set stands; a removed one is archived.
    expected_importance: dict[str, int] = {}
    removed: set[str] = set()
    for entry in entries:
        if entry[0] == "add":
            assert entry[1] in listed, entry
        elif entry[0] == "set":
            expected_importance[entry[1]] = entry[2]
        elif entry[0] == "rm":
            removed.add(entry[1])
    assert len([e for e in entries if e[0] == "add"]) >= 5  # the writers really ran
    for memory_id, value in expected_importance.items():
        assert listed[memory_id]["importance"] == value, memory_id
    for memory_id in removed:
        assert listed[memory_id]["status"] == "archived", memory_id
    # The editor's last save is on disk, and nobody committed it: it waits in review.
    for memory_id, body in last_edit.items():
        assert parse_document(edited[memory_id].read_text(encoding="utf-8"), edited[memory_id]).body == body
    pending = {item["path"] for item in cli("mem", "review", "--json").json()}
    assert {path.relative_to(home / "memory").as_posix() for path in edited.values()} <= pending
    # Everything else the tool wrote is committed.
    status = subprocess.run(
        ["git", "-C", str(home / "memory"), "status", "--porcelain"], capture_output=True, text=True, check=True
    )
    dirty = {line[3:].strip('"') for line in status.stdout.splitlines()}
    assert dirty <= pending, dirty - pending
    fsck = subprocess.run(["git", "-C", str(home / "memory"), "fsck", "--no-progress"], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr
    assert cli("mem", "diagnose").code == 0
    counts = {kind: sum(1 for e in entries if e[0] == kind) for kind in ("add", "set", "rm")}
    print(f"writers for {SECONDS:.0f} s: {counts}, {len(last_edit)} files edited by hand, all kept")
