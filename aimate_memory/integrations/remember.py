"""Explicit "remember this" requests in a prompt, in English and Chinese: a table of line-start patterns.

Only the start of a line counts ("Do you remember…" does not), and a question is not a request
("记得上次的方案吗？")."""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE | re.MULTILINE
REMEMBER_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"^[ \t]*(?:please[ \t]+)?remember[ \t]*[:：][ \t]*(?P<text>.+)$", _FLAGS),
    re.compile(r"^[ \t]*(?:please[ \t]+)?remember[ \t]+that[ \t]+(?P<text>.+)$", _FLAGS),
    re.compile(r"^[ \t]*(?:请|帮我)?记住[ \t]*[:：,，]?[ \t]*(?P<text>.+)$", _FLAGS),
    re.compile(r"^[ \t]*(?:请)?记得[ \t]*[:：,，]?[ \t]*(?P<text>.+)$", _FLAGS),
)
QUESTION_ENDINGS = ("?", "？", "吗", "吗。")
MIN_CHARS = 2


def extract_remembered(prompt: str) -> list[str]:
    """Each thing the prompt asks to remember, in the order written, without duplicates."""
    found: list[tuple[int, str]] = []
    for pattern in REMEMBER_PATTERNS:
        for match in pattern.finditer(prompt):
            text = match.group("text").strip()
            if len(text) >= MIN_CHARS and not text.endswith(QUESTION_ENDINGS):
                found.append((match.start(), text))
    seen: set[str] = set()
    ordered = []
    for _, text in sorted(found):
        if text not in seen:
            seen.add(text)
            ordered.append(text)
    return ordered
