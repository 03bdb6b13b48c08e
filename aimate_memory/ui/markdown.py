"""A memory's body as HTML: CommonMark (+ tables, strikethrough) by markdown-it-py, which rich already
brings. Raw HTML in a memory is shown as text, never run (`html: False`); links markdown-it judges unsafe
(`javascript:`, `vbscript:`, `file:`, non-image `data:`) are not made links; the page's Content-Security-Policy
keeps images from other hosts from loading."""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
        ["table", "strikethrough"]
    )


def to_html(text: str) -> Markup:
    """`text` (Markdown) as safe HTML; external links open without a referrer."""
    html = _parser().render(text or "")
    # markdown-it escaped every text and attribute (html: False), so the string is safe as it is.
    return Markup(html.replace("<a href=", '<a rel="noopener noreferrer" href='))
