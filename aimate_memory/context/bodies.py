"""A memory's body for a prompt, put back together from its index chunks (pure).

Reading the files cost ~70 % of a context build at 10k memories (a YAML parse per memory placed); the
index already holds every chunk's text, in order, with HTML comments stripped. A chunk's heading path is
not stored on its own: it is the context line of the text the embedder saw (`title › heading path`,
index/chunking.py), so it is read back from there and written once per section as a `####` line (the
context's own headings are `##` sections and `###` memories)."""

from __future__ import annotations

from collections.abc import Sequence

HEADING_JOIN = " › "  # index/chunking.py joins the title and the heading path with it


def chunk_heading(title: str, text: str, embed_text: str) -> str:
    """The heading path a chunk sits under ("" before any heading), from its embed text."""
    if not text or embed_text == text or "\n" not in embed_text:
        return ""
    context = embed_text.split("\n", 1)[0]
    title = " ".join(title.split())
    if not title:
        return context
    if context == title:
        return ""
    prefix = title + HEADING_JOIN
    return context[len(prefix) :] if context.startswith(prefix) else ""


def body_from_chunks(title: str, chunks: Sequence[tuple[str, str]]) -> str:
    """The chunks' texts in order, each new heading path once before its first chunk; "" when no chunk
    holds text (a title-only memory, a template that is only a commented example)."""
    parts: list[str] = []
    current = ""
    for text, embed_text in chunks:
        if not text.strip():
            continue
        heading = chunk_heading(title, text, embed_text)
        if heading and heading != current:
            parts.append(f"#### {heading}")
        current = heading
        parts.append(text.strip())
    return "\n\n".join(parts)
