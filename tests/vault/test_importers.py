"""The importers as pure functions: files' text in, records and problems out (no disk)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path, PurePosixPath

import pytest
from import_samples import BASIC_MEMORY, BASIC_MEMORY_GOOD, CLINE_BANK, CLINE_GOOD

from aimate_memory.vault.codec import parse_document
from aimate_memory.vault.importers import (
    IMPORTERS,
    NAMESPACE,
    Source,
    cline_project,
    from_basic_memory,
    from_claude,
    from_cline,
    from_mcp_memory_json,
    memory_id,
)

BANK = PurePosixPath("/home/li/code/taskflow/memory-bank")


def by_title(parsed) -> dict:
    return {entry.record.title: entry for entry in parsed.entries}


def test_basic_memory_notes_keep_title_tags_permalink_and_link_each_other() -> None:
    parsed = from_basic_memory(Source(BASIC_MEMORY))
    notes = by_title(parsed)
    assert len(parsed.entries) == BASIC_MEMORY_GOOD
    decision = notes["选用 PostgreSQL 作为主库"]
    meta = decision.record.frontmatter
    assert decision.source == "decisions/选用-postgresql.md"
    assert meta["id"] == str(uuid.uuid5(NAMESPACE, "basic-memory:decisions/xuan-yong-postgresql"))
    assert (meta["type"], meta["category"], meta["status"]) == ("long_term", "decision", "active")
    assert meta["permalink"] == "decisions/xuan-yong-postgresql"
    # basic-memory's own `status` must not become ours; its `created` does become created_at
    assert meta["basic_memory_status"] == "accepted" and meta["created_at"].startswith("2025-03-02T00:00:00")
    # frontmatter tags, the note's type, the observations' #tags — a checkbox is a task, its #todo too
    assert meta["tags"] == ["imported-basic-memory", "数据库", "architecture", "decision", "性能"]
    storage, cache = notes["Storage Architecture"], notes["缓存策略"]
    assert meta["related"] == [storage.record.id, cache.record.id]  # by title, and by a note's file name
    assert "- implements [[Storage Architecture]]" in decision.record.body  # the body as written


def test_basic_memory_tags_links_and_keys_of_an_english_note() -> None:
    storage = by_title(from_basic_memory(Source(BASIC_MEMORY)))["Storage Architecture"].record
    meta = storage.frontmatter
    # comma-separated tags; `#42` (a number) and tags inside code are text; `note` is the default type
    assert meta["tags"] == ["imported-basic-memory", "storage", "sqlite", "local-first", "database"]
    assert meta["category"] == "knowledge" and "created_at" not in meta
    assert meta["modified"] == "2024-01-15"  # kept as written, not updated_at (would archive it as idle)
    decision_id = str(uuid.uuid5(NAMESPACE, "basic-memory:decisions/xuan-yong-postgresql"))
    assert meta["related"] == [decision_id]  # a quoted relation type; Billing Service is not in the import
    assert "part_of [[Billing Service]]" in storage.body


def test_basic_memory_note_without_frontmatter_and_a_broken_one() -> None:
    parsed = from_basic_memory(Source(BASIC_MEMORY))
    cache = by_title(parsed)["缓存策略"].record
    assert cache.id == str(uuid.uuid5(NAMESPACE, "basic-memory:notes/缓存策略"))  # no permalink: from the path
    assert cache.frontmatter["permalink"] == "notes/缓存策略"  # the one basic-memory would make
    assert "redis" in cache.frontmatter["tags"]
    (problem,) = parsed.problems
    assert problem.source == "broken.md" and problem.line == 3 and "YAML" in problem.detail


def test_importing_the_same_input_gives_the_same_records_which_render_as_memory_files() -> None:
    for importer, source in (
        (from_basic_memory, Source(BASIC_MEMORY)),
        (from_cline, Source(CLINE_BANK, BANK)),
    ):
        first, second = importer(source), importer(source)
        assert [e.record.render() for e in first.entries] == [e.record.render() for e in second.entries]
        for entry in first.entries:
            doc = parse_document(entry.record.render(), Path(entry.source))
            assert doc.meta["id"] == entry.record.id and doc.body == entry.record.body
            json.dumps(entry.record.frontmatter, ensure_ascii=False)  # export-ready values


def test_cline_bank_durable_files_long_term_current_ones_short_term() -> None:
    parsed = from_cline(Source(CLINE_BANK, BANK))
    assert len(parsed.entries) == CLINE_GOOD and parsed.problems == []  # the blank file holds nothing
    placed = {e.source: (e.record.frontmatter["type"], e.record.frontmatter["category"]) for e in parsed.entries}
    assert placed == {
        "projectbrief.md": ("long_term", "project"),
        "productContext.md": ("long_term", "project"),
        "systemPatterns.md": ("long_term", "knowledge"),
        "techContext.md": ("long_term", "knowledge"),
        "activeContext.md": ("short_term", "context"),
        "progress.md": ("short_term", "task"),
        "components/auth.md": ("long_term", "knowledge"),
    }
    titles = {e.source: e.record.title for e in parsed.entries}
    assert titles["projectbrief.md"] == "Project brief (taskflow)"  # Cline's files by their name
    assert titles["progress.md"] == "Progress (taskflow)"
    assert titles["components/auth.md"] == "认证组件 / Auth component (taskflow)"  # another file: its heading
    brief = by_title(parsed)["Project brief (taskflow)"].record
    assert brief.frontmatter["importance"] == 4 and brief.body == CLINE_BANK["projectbrief.md"]
    assert brief.frontmatter["tags"] == ["imported-cline", "memory-bank", "taskflow"]


def test_cline_ids_belong_to_the_project() -> None:
    here = {e.source: e.record.id for e in from_cline(Source(CLINE_BANK, BANK)).entries}
    moved = PurePosixPath("/srv/checkout/taskflow/memory-bank")
    assert here == {e.source: e.record.id for e in from_cline(Source(CLINE_BANK, moved)).entries}
    other = PurePosixPath("/home/li/code/billing/memory-bank")
    assert not set(here.values()) & {e.record.id for e in from_cline(Source(CLINE_BANK, other)).entries}
    assert cline_project(PurePosixPath("/home/li/code/taskflow/docs")) == "docs"  # a bank under another name


def test_mcp_memory_json_reports_a_bad_line_and_reads_the_rest() -> None:
    lines = [
        json.dumps({"type": "entity", "name": "张伟", "entityType": "person", "observations": ["喜欢用 Tab 缩进"]}),
        "{broken",
        json.dumps({"type": "entity", "name": "billing", "entityType": "project", "observations": ["Uses Go"]}),
        json.dumps({"type": "relation", "from": "张伟", "to": "billing", "relationType": "maintains"}),
    ]
    parsed = from_mcp_memory_json(Source({"memory.json": "\n".join(lines)}))
    assert [(p.source, p.line) for p in parsed.problems] == [("memory.json", 2)]
    assert [(e.record.title, e.line) for e in parsed.entries] == [("张伟", 1), ("billing", 3)]
    assert "maintains billing" in parsed.entries[0].record.body


def test_claude_sections_carry_their_line() -> None:
    text = "# CLAUDE.md\n\n## Code style / 代码风格\n\n- 注释写原因\n\n## Build\n\nRun the tests.\n"
    parsed = from_claude(Source({"CLAUDE.md": text}))
    assert [(e.record.title, e.line, e.record.frontmatter["type"]) for e in parsed.entries] == [
        ("Code style / 代码风格", 3, "core"),
        ("Build", 7, "long_term"),
    ]


def test_the_four_importers_and_what_they_read() -> None:
    assert list(IMPORTERS) == ["claude", "basic-memory", "mcp-memory-json", "cline"]
    assert [name for name, importer in IMPORTERS.items() if not importer.one_file] == ["basic-memory", "cline"]


# -- samples shaped like each tool's own documentation --------------------------------------------------

COFFEE = """---
title: Coffee Brewing Methods
type: note
permalink: coffee/coffee-brewing-methods
tags:
- coffee
- brewing
---

# Coffee Brewing Methods

## Observations
- [method] Pour over provides more clarity and highlights subtle flavors #clarity
- [tip] Water temperature at 205°F extracts optimal compounds #temperature

## Relations
- relates_to [[Coffee Bean Origins]]
- requires [[Proper Grinding Technique]]
"""

ORIGINS = """---
title: Coffee Bean Origins
type: note
permalink: coffee/coffee-bean-origins
tags: [coffee, 产地]
---

# Coffee Bean Origins

- [fact] 云南咖啡豆酸度适中，带坚果香 #云南
- part_of [[Coffee Brewing Methods]]
"""

DECISION = """---
title: 选用 PostgreSQL 存储订单
type: decision
permalink: decisions/postgres-orders
---

我们决定用 PostgreSQL 16：事务可靠，JSONB 够用。
"""


def test_basic_memory_notes_keep_title_tags_permalink_and_link_relations() -> None:
    files = {
        "coffee/coffee-brewing-methods.md": COFFEE,
        "coffee/coffee-bean-origins.md": ORIGINS,
        "decisions/postgres-orders.md": DECISION,
    }
    result = from_basic_memory(Source(files))
    assert result.problems == []
    by_title = {entry.record.title: entry.record for entry in result.entries}
    brewing = by_title["Coffee Brewing Methods"]
    fm = brewing.frontmatter
    assert fm["permalink"] == "coffee/coffee-brewing-methods"
    assert fm["id"] == memory_id("basic-memory", "coffee/coffee-brewing-methods")
    assert fm["tags"] == ["imported-basic-memory", "coffee", "brewing", "clarity", "temperature"]
    assert fm["type"] == "long_term" and fm["category"] == "knowledge"
    # A relation to a note of the same import is a related id; one to a note not imported stays text only.
    assert fm["related"] == [by_title["Coffee Bean Origins"].id]
    assert "requires [[Proper Grinding Technique]]" in brewing.body
    origins = by_title["Coffee Bean Origins"].frontmatter
    assert origins["tags"] == ["imported-basic-memory", "coffee", "产地", "云南"]
    assert origins["related"] == [brewing.id]
    decision = by_title["选用 PostgreSQL 存储订单"].frontmatter
    assert decision["category"] == "decision" and "related" not in decision
    assert from_basic_memory(Source(files)).entries == result.entries  # the same notes give the same records


def test_a_basic_memory_note_without_frontmatter_or_with_broken_yaml() -> None:
    files = {
        "plain/meeting-notes.md": "# 周会纪要\n\n- [action] 下周发布 v2 #release\n",
        "broken.md": "---\ntitle: [unclosed\n---\nbody\n",
    }
    result = from_basic_memory(Source(files))
    (record,) = [entry.record for entry in result.entries]
    assert record.title == "周会纪要" and record.frontmatter["permalink"] == "plain/meeting-notes"
    assert "release" in record.frontmatter["tags"]
    assert [problem.source for problem in result.problems] == ["broken.md"]


AIMATE_BANK = {
    "projectbrief.md": "# Project Brief\n\nA CLI that keeps an AI assistant's memory in Markdown files.\n",
    "productContext.md": "# Product Context\n\n用户希望记忆可读、可改、可在 git 里审阅。\n",
    "activeContext.md": "# Active Context\n\nWorking on the importers; next: the reliability suite.\n",
    "progress.md": "# Progress\n\n## What works\n- export/import\n\n## 待办\n- 可靠性测试\n",
    "systemPatterns.md": "# System Patterns\n\nThin CLI over a facade; pure planners.\n",
    "techContext.md": "# Tech Context\n\nPython 3.11, SQLite FTS5, sqlite-vec.\n",
    "deployment.md": "# Deployment notes\n\nReleases go to PyPI from CI.\n",
    "empty.md": "   \n",
}


def test_cline_memory_bank_files_map_to_layers_by_what_they_hold() -> None:
    result = from_cline(Source(AIMATE_BANK, PurePosixPath("/home/li/aimate/memory-bank")))
    by_title = {entry.record.title: entry.record.frontmatter for entry in result.entries}
    assert set(by_title) == {
        "Project brief (aimate)",
        "Product context (aimate)",
        "Active context (aimate)",
        "Progress (aimate)",
        "System patterns (aimate)",
        "Tech context (aimate)",
        "Deployment notes (aimate)",
    }  # an empty file gives nothing
    assert (by_title["Active context (aimate)"]["type"], by_title["Active context (aimate)"]["category"]) == (
        "short_term",
        "context",
    )
    assert by_title["Progress (aimate)"]["type"] == "short_term"
    assert (by_title["Project brief (aimate)"]["type"], by_title["Project brief (aimate)"]["category"]) == (
        "long_term",
        "project",
    )
    assert by_title["Deployment notes (aimate)"]["category"] == "knowledge"
    # Two projects' banks never share an id.
    other = {e.record.id for e in from_cline(Source(AIMATE_BANK, PurePosixPath("/srv/billing"))).entries}
    assert other.isdisjoint(entry.record.id for entry in result.entries)


def test_every_importer_reports_a_file_it_cannot_use_and_keeps_the_rest() -> None:
    assert set(IMPORTERS) == {"claude", "basic-memory", "mcp-memory-json", "cline"}
    mcp = IMPORTERS["mcp-memory-json"].parse(
        Source({"a.jsonl": '{"type": "entity", "name": "张伟", "observations": ["喜欢 Tab"]}\n', "b.jsonl": "{oops\n"})
    )
    assert [e.record.title for e in mcp.entries] == ["张伟"] and mcp.problems[0].source == "b.jsonl"
    assert mcp.problems[0].line == 1
    claude = IMPORTERS["claude"].parse(Source({"CLAUDE.md": "## Style rules\n\nTabs, not spaces.\n"}))
    assert claude.entries[0].record.frontmatter["type"] == "core" and claude.problems == []


def test_claude_sections_of_two_projects_with_one_heading_are_two_memories() -> None:
    text = "# Notes\n\n## Build and test\n\nmake test\n\n## 构建与测试\n\n运行 pytest\n\n## Build and test\n\ntox\n"
    here = from_claude(Source({"CLAUDE.md": text}, PurePosixPath("/home/li/code/taskflow")))
    ids = [entry.record.id for entry in here.entries]
    assert len(ids) == len(set(ids)) == 3  # the repeated heading in one file too
    titles = [entry.record.frontmatter["title"] for entry in here.entries]
    assert titles == ["Build and test", "构建与测试", "Build and test"]
    moved = from_claude(Source({"CLAUDE.md": text}, PurePosixPath("/srv/checkout/taskflow")))
    assert [entry.record.id for entry in moved.entries] == ids  # a project moved keeps its ids: re-import is a no-op
    other = from_claude(Source({"CLAUDE.md": text}, PurePosixPath("/home/li/code/billing")))
    assert not {entry.record.id for entry in other.entries} & set(ids)


@pytest.mark.parametrize(
    ("text", "title", "body"),
    [
        (
            "# 任务流\n\n这是一个 Go 服务，保持简单。\n\n## 构建\n\n运行 make test。\n",
            "任务流",
            "这是一个 Go 服务，保持简单。",
        ),
        (
            "Keep answers short.\nPrefer Go.\n\n## Build\n\nRun make test.\n",
            "CLAUDE",
            "Keep answers short.\nPrefer Go.",
        ),
        ("# Rules\n\n<!-- only a comment -->\n\n## Build\n\nRun make test.\n", None, None),
    ],
)
def test_claude_text_before_the_first_section_is_kept(text: str, title: str | None, body: str | None) -> None:
    parsed = from_claude(Source({"CLAUDE.md": text}, PurePosixPath("/home/li/code/taskflow")))
    titles = [entry.record.title for entry in parsed.entries]
    if title is None:  # a title and a comment hold nothing to remember
        assert titles == ["Build"]
        return
    assert titles[0] == title and parsed.entries[0].record.body == body + "\n"  # was silently dropped
    assert titles[1] in ("构建", "Build") and parsed.entries[0].line in (1, 3)
    again = from_claude(Source({"CLAUDE.md": text}, PurePosixPath("/home/li/code/taskflow")))
    assert [e.record.id for e in again.entries] == [e.record.id for e in parsed.entries]  # stable ids
