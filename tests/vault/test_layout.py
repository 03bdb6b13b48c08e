"""Pure layout decisions: layer and category from folders, Chinese-aware names, project roots."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path, PurePosixPath

import pytest

from aimate_memory.vault.layout import (
    Layer,
    archive_path_for,
    find_project_root,
    folder_for,
    location_of,
    memory_file_name,
    slugify,
    with_clash_suffix,
)


@pytest.mark.parametrize(
    ("path", "layer", "category", "archived"),
    [
        ("short_term/tasks/a.md", Layer.SHORT_TERM, "task", False),
        ("short_term/notes/a.md", Layer.SHORT_TERM, "note", False),
        ("long_term/decisions/a.md", Layer.LONG_TERM, "decision", False),
        ("long_term/recipes/a.md", Layer.LONG_TERM, "recipes", False),
        ("core/preferences.md", Layer.CORE, "preference", False),
        ("core/rules.md", Layer.CORE, "rule", False),
        ("sessions/2026-02/20260201_103000_ab12cd34.md", Layer.SESSION, "session", False),
        ("archive/short_term/tasks/a.md", Layer.SHORT_TERM, "task", True),
        ("misc/a.md", None, None, False),
    ],
)
def test_location_from_folders(path: str, layer: Layer | None, category: str | None, archived: bool) -> None:
    location = location_of(PurePosixPath(path))
    assert (location.layer, location.category, location.archived) == (layer, category, archived)


def test_slug_keeps_chinese_and_folds_the_rest() -> None:
    assert slugify("选用 Redis 做会话缓存！") == "选用-redis-做会话缓存"
    assert slugify("Fix: login/logout (v2)") == "fix-login-logout-v2"
    assert slugify("***") == ""
    assert len(slugify("长" * 100)) == 60


def test_file_name_and_clash_suffix() -> None:
    name = memory_file_name(datetime(2026, 2, 1, 10, 30), "decision", "选用 Redis")
    assert name == "20260201_decision_选用-redis.md"
    assert with_clash_suffix(name, 1) == name
    assert with_clash_suffix(name, 3) == "20260201_decision_选用-redis-3.md"
    assert memory_file_name(datetime(2026, 2, 1), "note", "!!!") == "20260201_note_untitled.md"


def test_folders_and_archive_mirror() -> None:
    assert folder_for(Layer.SHORT_TERM, "task") == PurePosixPath("short_term/tasks")
    assert folder_for(Layer.LONG_TERM, "架构") == PurePosixPath("long_term/架构")
    assert folder_for(Layer.CORE, "preference") == PurePosixPath("core")
    assert archive_path_for(PurePosixPath("short_term/tasks/a.md")) == PurePosixPath("archive/short_term/tasks/a.md")


def test_project_root_is_the_nearest_marker(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / "src" / "deep").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    assert find_project_root(project / "src" / "deep") == project.resolve()
    assert find_project_root(tmp_path) is None
