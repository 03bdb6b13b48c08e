"""A broken memory is never silent (issue 39): a file with bad YAML is named by every read that leaves it out
(CLI stderr, the session-start hook's systemMessage), `review` refuses to accept it until it parses, and
`review --accept-all` does not commit it. Chinese and English."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a dozen CLI subprocesses per case

BROKEN = "---\ntitle: [never closed\ntags: a\n---\n# {title}\n\n{title}\n"
CASES = [
    ("Redis for the session cache", "Redis", "core/20261128_rule_broken-english.md"),
    ("会话缓存选用 Redis", "Redis", "core/20261128_rule_坏掉的中文规则.md"),
]


def git_status(vault: Path) -> str:
    return subprocess.run(["git", "-C", str(vault), "status", "--porcelain"], capture_output=True, text=True).stdout


@pytest.mark.parametrize(("title", "query", "broken_path"), CASES)
def test_a_broken_file_is_named_by_every_read_and_never_accepted(
    cli, initialized, home: Path, title: str, query: str, broken_path: str
) -> None:
    assert cli("mem", "add", title, "--category", "decision").code == 0
    vault = home / "memory"
    (vault / broken_path).write_text(BROKEN.format(title=title + " (broken)"), encoding="utf-8")

    found = cli("mem", "search", query, "--json")
    assert [hit["title"] for hit in found.json()] == [title]  # left out …
    assert "1 memory file could not be read" in found.err and broken_path in found.err  # … and said so
    listed = cli("mem", "list", "--json")
    titles = [memory["title"] for memory in listed.json()]
    assert title in titles and title + " (broken)" not in titles and broken_path in listed.err
    start = {"session_id": "s1", "cwd": str(home), "hook_event_name": "SessionStart", "source": "startup"}
    hook = json.loads(cli("mem", "hook", "session-start", input=json.dumps(start)).out)
    assert broken_path in hook["systemMessage"]

    refused = cli("mem", "review", "--accept", broken_path)
    assert refused.code != 0
    assert f"{broken_path} does not parse as a memory" in refused.err and "line" in refused.err
    everything = cli("mem", "review", "--accept-all", "--json")
    assert everything.code == 0, everything.err
    assert broken_path in git_status(vault)  # not committed
    listing = cli("mem", "review")
    assert "broken file" in listing.out and "does not parse" in listing.out

    fixed = BROKEN.format(title=title + " (fixed)").replace("[never closed", "fixed")
    (vault / broken_path).write_text(fixed, encoding="utf-8")
    assert cli("mem", "review", "--accept", broken_path).code == 0
    assert broken_path not in git_status(vault)
    assert "could not be read" not in cli("mem", "search", query).err
