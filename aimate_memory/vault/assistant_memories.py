"""What the assistants learn by themselves, read from their own memory folders (pure: files' text in, entries
out; the disk is read at the edge, `system/transfer.py`). Each entry becomes a **pending** capture for the
person to review (docs/agents.md, "The assistants' own memories"); nothing here writes to, moves or switches
off the client's memory.

- `claude-auto-memory` — Claude Code's auto memory, `~/.claude/projects/<project>/memory/` (the project is
  its git root with every character other than a letter or digit made `-`). `MEMORY.md` is an index,
  one line per memory, `- [Title](file.md) — hook`; each memory is a topic file with frontmatter `name`,
  `description`, `type: user | feedback | project | reference` and the fact as its body (Claude Code's
  memory instructions, "Each memory is one file holding one fact"; its `memdir` scan reads the `.md` files
  beside `MEMORY.md`). An index line whose file is absent, and a plain bullet written into `MEMORY.md`
  itself (older auto memory), are entries too. `type` picks the kind: user → preference, feedback → rule,
  project → project, reference → knowledge.
- `codex-memories` — Codex's memories, `$CODEX_HOME/memories/` (opt-in). Its `MEMORY.md` is the
  consolidated handbook: blocks `# Task Group: …` with `scope:` and `applies_to: cwd=…`, task sections, then
  `## User preferences`, `## Reusable knowledge` and `## Failures and how to do differently`, whose bullets
  are the durable entries (openai/codex `codex-rs/memories/write/templates/memories/consolidation.md`).
  Their task references (`[Task 1]`) are dropped. `memory_summary.md` (a digest of MEMORY.md),
  `raw_memories.md` (a temporary merge), `rollout_summaries/` (evidence) and `skills/` are not read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from aimate_memory.vault.layout import find_project_root

INDEX_FILE = "MEMORY.md"
CLAUDE_KINDS = {"user": "preference", "feedback": "rule", "project": "project", "reference": "knowledge"}
CODEX_SECTIONS = {
    "user preferences": "preference",
    "reusable knowledge": "knowledge",
    "failures and how to do differently": "knowledge",
}
_FRONTMATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n?", re.DOTALL)
_FIELD = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*?)\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.+?)\s*$")
_INDEX_LINK = re.compile(r"^\[([^\]]+)\]\(([^)]+)\)\s*(?:[—–:-]+\s*(.*))?$")
_TASK_REFS = re.compile(r"(?:\s*\[Task \d+\])+\s*$")
_HEADING = re.compile(r"^(#{1,3})\s+(.+?)\s*$")
_APPLIES_TO = re.compile(r"^applies_to:\s*cwd=([^;]+)")


@dataclass(frozen=True)
class Learned:
    """One thing an assistant noted: the text to capture, its kind (None: decided from the text), and where
    it was read (`file:line`, recorded on the capture)."""

    text: str
    kind: str | None
    origin: str
    project: str | None = None  # the working folder the client tied it to, when it says (Codex's `cwd=`)


def from_claude_auto_memory(files: Mapping[str, str]) -> list[Learned]:
    learned: list[Learned] = []
    topics = {PurePosixPath(name).name: name for name in files if PurePosixPath(name).name != INDEX_FILE}
    for name in sorted(topics.values()):
        entry = _claude_topic(name, files[name])
        if entry is not None:
            learned.append(entry)
    index = next((name for name in files if PurePosixPath(name).name == INDEX_FILE), None)
    if index is not None:
        learned += _claude_index(index, files[index], set(topics))
    return learned


def _claude_topic(name: str, text: str) -> Learned | None:
    fields, body, line = _frontmatter(text)
    fact = _one_paragraph(body) or fields.get("description", "")
    if not fact:
        return None
    title = fields.get("name", "")
    if title and title.lower() not in fact.lower():
        fact = f"{title}: {fact}"
    return Learned(fact, CLAUDE_KINDS.get(fields.get("type", "").lower()), f"{name}:{line}")


def _claude_index(name: str, text: str, topics: set[str]) -> list[Learned]:
    learned = []
    for number, line in enumerate(text.splitlines(), start=1):
        bullet = _BULLET.match(line)
        if bullet is None:
            continue
        item = bullet.group(1)
        link = _INDEX_LINK.match(item)
        if link is not None:
            title, target, hook = link.groups()
            if PurePosixPath(target).name in topics:
                continue  # the topic file is the entry
            item = f"{title}: {hook}" if hook else title
        learned.append(Learned(item.strip(), None, f"{name}:{number}"))
    return learned


def from_codex_memories(files: Mapping[str, str]) -> list[Learned]:
    index = next((name for name in sorted(files) if name == INDEX_FILE), None)
    if index is None:
        return []
    learned = []
    kind: str | None = None
    project: str | None = None
    for number, line in enumerate(files[index].splitlines(), start=1):
        heading = _HEADING.match(line)
        if heading is not None:
            level, title = len(heading.group(1)), heading.group(2).strip().lower()
            if level == 1:
                project = None
            kind = CODEX_SECTIONS.get(title) if level == 2 else (kind if level == 3 else None)
            continue
        applies = _APPLIES_TO.match(line.strip())
        if applies is not None:
            project = applies.group(1).strip() or None
            continue
        bullet = _BULLET.match(line)
        if kind is not None and bullet is not None:
            text = _TASK_REFS.sub("", bullet.group(1)).strip()
            if text:
                learned.append(Learned(text, kind, f"{index}:{number}", project))
    return learned


def _frontmatter(text: str) -> tuple[dict[str, str], str, int]:
    """The simple `key: value` frontmatter the clients write, the body, and the body's first line number."""
    match = _FRONTMATTER.match(text)
    if match is None:
        return {}, text, 1
    fields = {}
    for line in match.group(1).splitlines():
        found = _FIELD.match(line)
        if found is not None:
            fields[found.group(1).lower()] = found.group(2).strip().strip("\"'")
    return fields, text[match.end() :], text.count("\n", 0, match.end()) + 1


def _one_paragraph(body: str) -> str:
    """The body as one line (the fact and its *Why:*), headings and blank lines dropped."""
    lines = [line.strip() for line in body.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return " ".join(lines)


def claude_project_folder(claude_home: Path, project: Path) -> Path:
    """Where Claude Code keeps a project's auto memory: its path with every non-alphanumeric character `-`."""
    return claude_home / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project)) / "memory"


def default_learned_folder(kind: str, home: Path, cwd: Path) -> Path:
    """The client's own folder: Claude Code's auto memory of the project around `cwd` (its git root, as Claude
    Code keys it), or Codex's memories under `$CODEX_HOME`."""
    if kind == "codex-memories":
        return Path(os.environ.get("CODEX_HOME") or home / ".codex") / "memories"
    project = find_git_root(cwd) or find_project_root(cwd) or cwd
    return claude_project_folder(home / ".claude", project.resolve())


def find_git_root(start: Path) -> Path | None:
    for folder in (start.resolve(), *start.resolve().parents):
        if (folder / ".git").exists():
            return folder
    return None


@dataclass(frozen=True)
class LearnedImporter:
    parse: Callable[[Mapping[str, str]], list[Learned]]
    expects: str


LEARNED_IMPORTERS: dict[str, LearnedImporter] = {
    "claude-auto-memory": LearnedImporter(
        from_claude_auto_memory, "Claude Code's auto-memory folder, ~/.claude/projects/<project>/memory"
    ),
    "codex-memories": LearnedImporter(from_codex_memories, "Codex's memories folder, ~/.codex/memories"),
}
