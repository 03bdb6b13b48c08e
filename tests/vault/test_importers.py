"""The importers as pure functions: realistic samples of each tool's memory in, records out (no disk)."""

from __future__ import annotations

from aimate_memory.vault.importers import IMPORTERS, from_basic_memory, from_cline, memory_id

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
    result = from_basic_memory(files)
    assert result.problems == []
    by_title = {record.title: record for record in result.records}
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
    assert from_basic_memory(files).records == result.records  # the same notes give the same records


def test_a_basic_memory_note_without_frontmatter_or_with_broken_yaml() -> None:
    files = {
        "plain/meeting-notes.md": "# 周会纪要\n\n- [action] 下周发布 v2 #release\n",
        "broken.md": "---\ntitle: [unclosed\n---\nbody\n",
    }
    result = from_basic_memory(files)
    (record,) = result.records
    assert record.title == "周会纪要" and record.frontmatter["permalink"] == "plain/meeting-notes"
    assert "release" in record.frontmatter["tags"]
    assert [name for name, _ in result.problems] == ["broken.md"]


BANK = {
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
    result = from_cline(BANK, "aimate")
    by_title = {record.title: record.frontmatter for record in result.records}
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
    other = {record.id for record in from_cline(BANK, "billing").records}
    assert other.isdisjoint(record.id for record in result.records)


def test_every_importer_reports_a_file_it_cannot_use_and_keeps_the_rest() -> None:
    assert set(IMPORTERS) == {"claude", "basic-memory", "mcp-memory-json", "cline"}
    mcp = IMPORTERS["mcp-memory-json"].parse(
        {"a.jsonl": '{"type": "entity", "name": "张伟", "observations": ["喜欢 Tab"]}\n', "b.jsonl": "{oops\n"}, ""
    )
    assert [r.title for r in mcp.records] == ["张伟"] and mcp.problems[0][0] == "b.jsonl"
    assert "line 1" in mcp.problems[0][1]
    claude = IMPORTERS["claude"].parse({"CLAUDE.md": "## Style rules\n\nTabs, not spaces.\n"}, "")
    assert claude.records[0].frontmatter["type"] == "core" and claude.problems == []
