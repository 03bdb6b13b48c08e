"""A memory's body for a prompt, put back together from its index chunks (pure).

Reading the files cost ~70 % of a context build at 10k memories (a YAML parse per memory placed); the
index already holds every chunk's text, in order, with HTML comments stripped, and its heading path in a
column of its own (index/db.py, schema 4), written once per section as a `####` line (the context's own
headings are `##` sections and `###` memories)."""

from __future__ import annotations

from collections.abc import Sequence


def body_from_chunks(chunks: Sequence[tuple[str, str]]) -> str:
    """The chunks' texts in order — `(text, heading path)` each — every new heading path once before its
    first chunk; "" when no chunk holds text (a title-only memory, a template that is only a commented
    example)."""
    parts: list[str] = []
    current = ""
    for text, heading in chunks:
        if not text.strip():
            continue
        if heading and heading != current:
            parts.append(f"#### {heading}")
        current = heading
        parts.append(text.strip())
    return "\n\n".join(parts)
