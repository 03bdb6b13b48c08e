"""Hand-made files are adopted: gaps filled from the folder, the first heading and the file's stat."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import PurePosixPath

from aimate_memory.vault.codec import content_hash, parse_document
from aimate_memory.vault.layout import Layer, Scope
from aimate_memory.vault.model import memory_from_document, provisional_id

MTIME = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def adopt(text: str, path: str = "short_term/tasks/todo.md"):
    rel = PurePosixPath(path)
    return memory_from_document(parse_document(text, rel), rel, Scope.PROJECT, MTIME)


def test_file_without_frontmatter_is_adopted() -> None:
    memory = adopt("# 明天修复登录 bug\n\n细节……\n")
    assert memory.layer is Layer.SHORT_TERM and memory.category == "task"
    assert memory.title == "明天修复登录 bug"
    assert memory.provisional_id and memory.id == provisional_id(
        Scope.PROJECT, PurePosixPath("short_term/tasks/todo.md")
    )
    assert memory.created_at == memory.updated_at == MTIME
    assert memory.importance == 3 and memory.status == "active"


def test_frontmatter_wins_and_a_disagreeing_folder_is_reported() -> None:
    memory = adopt("---\ntitle: Only a title\ntype: core\n---\nbody\n", "long_term/knowledge/x.md")
    assert memory.layer is Layer.CORE
    assert any("`aimate mem fix` moves it to core/" in problem for problem in memory.problems)


def test_half_frontmatter_takes_layer_and_category_from_the_folder() -> None:
    memory = adopt("---\ntitle: Only a title\n---\nbody\n", "long_term/decisions/x.md")
    assert memory.layer is Layer.LONG_TERM and memory.category == "decision" and not memory.problems


def test_declared_category_wins_over_its_folder() -> None:
    memory = adopt("---\ntitle: 缓存\ncategory: decision\n---\nbody\n", "long_term/knowledge/x.md")
    assert memory.category == "decision"
    assert any("long_term/decisions" in problem for problem in memory.problems)
    core = adopt("---\ntitle: Tabs\ncategory: preference\n---\n我习惯用 Tab\n", "core/20261124_preference_tabs.md")
    assert core.layer is Layer.CORE and core.category == "preference" and not core.problems


def test_title_falls_back_to_file_name() -> None:
    assert adopt("no heading here\n", "long_term/knowledge/redis_cache-notes.md").title == "redis cache notes"


def test_hand_edited_body_takes_file_mtime_as_updated_at() -> None:
    old_hash = content_hash("old body\n")
    text = f"---\nid: abc\nupdated_at: 2026-01-01T00:00:00+00:00\ncontent_hash: {old_hash}\n---\nnew body\n"
    memory = adopt(text)
    assert memory.hand_edited and memory.updated_at == MTIME


def test_bad_importance_is_reported_and_clamped() -> None:
    memory = adopt("---\nid: a\nimportance: 9\n---\nx\n")
    assert memory.importance == 5 and memory.problems


def test_a_heading_inside_a_comment_is_not_the_title() -> None:
    memory = adopt("<!--\n# Example / 示例\n-->\n# 真正的标题\n\nbody\n", "long_term/knowledge/x.md")
    assert memory.title == "真正的标题"
