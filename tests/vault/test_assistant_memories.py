"""The assistants' own memories (Claude Code's auto memory, Codex's memories) as pending captures: the parsers
on fixtures in the clients' real layouts (docs/agents.md, "The assistants' own memories"), and
`aimate mem import --from …` as a subprocess: pending, shown by review, deduplicated, the client's files
untouched. Chinese and English."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from aimate_memory.vault.assistant_memories import (
    claude_project_folder,
    from_claude_auto_memory,
    from_codex_memories,
)

# Claude Code's auto memory: an index, one line per memory, and one topic file per fact (frontmatter name,
# description, type: user | feedback | project | reference).
CLAUDE_INDEX = """\
- [Testing preferences](feedback_testing.md) — real database in tests, not mocks
- [缓存选型](project_cache.md) — 会话缓存用 Redis
- [Bug tracker](reference_linear.md) — pipeline bugs are in Linear "INGEST"
"""
CLAUDE_TOPICS = {
    "feedback_testing.md": "---\nname: Testing preferences\ndescription: real database in tests, not mocks\n"
    "type: feedback\n---\n\nIntegration tests must hit a real database, not mocks.\n**Why:** a mocked test "
    "passed while the migration failed in production.\n",
    "project_cache.md": "---\nname: 缓存选型\ndescription: 会话缓存用 Redis\ntype: project\n---\n\n"
    "我们决定用 Redis 做会话缓存，因为延迟低并且支持过期。\n",
}
# Codex's memories: MEMORY.md, the consolidated handbook (codex-rs/memories/write/templates/memories/
# consolidation.md); the other files are digests, a temporary merge and evidence.
CODEX_MEMORY = """\
# Task Group: aimate repo / running the test suite

scope: how the tests of this repository are run and what breaks them
applies_to: cwd=/work/aimate; reuse_rule=safe for this checkout

## Task 1: run the MCP tests, passed

### rollout_summary_files

- rollout_summaries/2026-11-20-mcp.md (cwd=/work/aimate, updated_at=2026-11-20, thread_id=t1)

### keywords

- pytest, mcp, front

## User preferences

- when running tests, the user asked: "never run the whole suite on 2 cores" -> run only the touched packages [Task 1]
- 用户要求提交信息用英文写 [Task 1]

## Reusable knowledge

- tests import `tests.*`, so run pytest as `python -m pytest` from the repository root [Task 1]

## Failures and how to do differently

- a stale listing.py fails test_front -> regenerate it with `python -m aimate_memory.mcp.server` [Task 1]
"""


def test_claude_auto_memory_topic_files_are_the_entries_and_the_index_only_points_at_them() -> None:
    learned = from_claude_auto_memory({"MEMORY.md": CLAUDE_INDEX, **CLAUDE_TOPICS})
    assert [(item.kind, item.origin) for item in learned] == [
        ("rule", "feedback_testing.md:7"),
        ("project", "project_cache.md:7"),
        (None, "MEMORY.md:3"),  # its file is absent: the index line is the entry
    ]
    assert learned[0].text.startswith("Testing preferences: Integration tests must hit a real database")
    assert "**Why:** a mocked test passed" in learned[0].text
    assert learned[1].text == "缓存选型: 我们决定用 Redis 做会话缓存，因为延迟低并且支持过期。"
    assert learned[2].text == 'Bug tracker: pipeline bugs are in Linear "INGEST"'


def test_codex_memories_take_the_durable_sections_and_drop_task_references() -> None:
    learned = from_codex_memories({"MEMORY.md": CODEX_MEMORY, "memory_summary.md": "v1\n- ignored digest\n"})
    assert [(item.kind, item.project) for item in learned] == [
        ("preference", "/work/aimate"),
        ("preference", "/work/aimate"),
        ("knowledge", "/work/aimate"),
        ("knowledge", "/work/aimate"),
    ]
    assert learned[1].text == "用户要求提交信息用英文写"
    assert all("[Task" not in item.text and "pytest, mcp" not in item.text for item in learned)


def test_the_claude_project_folder_is_keyed_as_claude_code_keys_it(tmp_path: Path) -> None:
    folder = claude_project_folder(tmp_path / ".claude", Path("/home/me/my_proj.v2"))
    assert folder == tmp_path / ".claude" / "projects" / "-home-me-my-proj-v2" / "memory"


def digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_import_makes_pending_captures_the_person_reviews_once(cli, tmp_path: Path) -> None:
    home = tmp_path / "user"
    project = tmp_path / "proj"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    claude = claude_project_folder(home / ".claude", project.resolve())
    claude.mkdir(parents=True)
    (claude / "MEMORY.md").write_text(CLAUDE_INDEX, encoding="utf-8")
    for name, text in CLAUDE_TOPICS.items():
        (claude / name).write_text(text, encoding="utf-8")
    codex = home / ".codex" / "memories"
    codex.mkdir(parents=True)
    (codex / "MEMORY.md").write_text(CODEX_MEMORY, encoding="utf-8")
    before = {**digest(claude), **{f"codex/{k}": v for k, v in digest(codex).items()}}
    env = {"HOME": str(home), "CODEX_HOME": ""}
    assert cli("mem", "init", cwd=project, env=env).code == 0
    # What the vault already says (the same words) is not captured again.
    known = cli("mem", "remember", 'Bug tracker: pipeline bugs are in Linear "INGEST"', cwd=project, env=env)
    assert known.code == 0, known.err

    dry = cli("mem", "import", "--from", "claude-auto-memory", "--dry-run", "--json", cwd=project, env=env)
    assert dry.code == 0 and {e["action"] for e in dry.json()["entries"]} == {"would capture"}
    baseline = len(cli("mem", "review", "--json", cwd=project, env=env).json())  # the `remember` above, if any

    done = cli("mem", "import", "--from", "claude-auto-memory", "--json", cwd=project, env=env)
    assert done.code == 0, done.err
    entries = done.json()["entries"]
    assert [e["action"] for e in entries] == ["pending", "pending", "exists"] and done.json()["from"] == str(claude)
    codex_done = cli("mem", "import", "--from", "codex-memories", cwd=project, env=env)
    assert codex_done.code == 0 and "4 pending" in codex_done.out and "aimate mem review" in codex_done.out

    review = cli("mem", "review", "--json", cwd=project, env=env).json()
    titles = " ".join(str(item.get("title")) for item in review)
    assert len(review) == baseline + 6 and "Redis" in titles and "提交信息" in titles
    shown = cli("mem", "show", entries[1]["id"], "--json", cwd=project, env=env).json()
    assert shown["status"] == "pending" and shown["source"] == "claude-auto-memory"
    vault = tmp_path / "aimate-home" / "memory" if shown["scope"] == "global" else project / ".aimate" / "memory"
    written = (vault / shown["path"]).read_text(encoding="utf-8")
    assert f"imported_from: {claude}/project_cache.md:7" in written  # where it was read

    again = cli("mem", "import", "--from", "claude-auto-memory", "--json", cwd=project, env=env)
    assert [e["action"] for e in again.json()["entries"]] == ["imported before"] * 3  # nothing twice
    assert len(cli("mem", "review", "--json", cwd=project, env=env).json()) == baseline + 6
    after = {**digest(claude), **{f"codex/{k}": v for k, v in digest(codex).items()}}
    assert after == before  # the clients' own memory is read, never written
    assert not (home / ".claude" / "settings.json").exists()  # auto memory left on: no setting was written
