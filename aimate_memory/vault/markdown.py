"""What of a memory's Markdown is content: HTML comments (`<!-- … -->`) are notes to the reader, not memory
(the vault template's placeholder core files are only comments), so indexing, titles, the context builder
and AGENTS.md all read a body through `strip_comments` (docs/design.md §7)."""

from __future__ import annotations

import re

FENCE = re.compile(r"^\s*(```|~~~)")
# An unclosed "<!--" hides the rest of the file, as it does when Markdown is rendered.
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)


def strip_comments(body: str) -> str:
    """``body`` without its HTML comments. Comments inside fenced code blocks are code, not notes, and are kept."""
    if "<!--" not in body:
        return body
    out: list[str] = []
    in_fence = False
    pending: list[str] = []  # prose lines since the last fence: stripped together, so a comment may span lines
    for line in body.splitlines(keepends=True):
        if FENCE.match(line):
            out.append(_COMMENT.sub("", "".join(pending)) if not in_fence else "".join(pending))
            pending = []
            in_fence = not in_fence
            out.append(line)
            continue
        pending.append(line)
    out.append(_COMMENT.sub("", "".join(pending)) if not in_fence else "".join(pending))
    return "".join(out)
