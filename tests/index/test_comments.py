"""HTML comments are notes to the editor, not memory content: never indexed, never an answer."""

from aimate_memory.index.chunking import chunk_memory
from aimate_memory.vault.markdown import strip_comments
from aimate_memory.vault.setup import template_dir


def test_comments_are_stripped_in_both_languages():
    body = "我们用 Redis。<!-- 示例：别当真 -->\n\nWe use Redis.<!-- example:\nignore me -->"
    assert strip_comments(body) == "我们用 Redis。\n\nWe use Redis."
    chunk = chunk_memory("Cache", body)[0]
    assert "示例" not in chunk.embed_text and "ignore" not in chunk.search_text


def test_comments_inside_code_fences_are_code():
    body = "```html\n<!-- keep -->\n```\n<!-- drop -->text"
    assert strip_comments(body) == "```html\n<!-- keep -->\n```\ntext"


def test_an_unclosed_comment_hides_the_rest():
    assert strip_comments("shown <!-- hidden\nstill hidden") == "shown "


def test_the_templates_placeholder_core_files_give_no_chunks():
    for name in ("preferences.md", "rules.md"):
        body = (template_dir() / "core" / name).read_text(encoding="utf-8").split("---", 2)[2]
        assert "pytest" in body or "commit" in body  # the example text is there, inside a comment
        assert chunk_memory("Preferences / 偏好", body) == []


def test_a_memory_without_a_body_is_still_found_by_its_title():
    assert [c.embed_text for c in chunk_memory("选用 Redis", "")] == ["选用 Redis"]
    assert [c.embed_text for c in chunk_memory("Use Redis", "# Use Redis\n")] == ["Use Redis"]
