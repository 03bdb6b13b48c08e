"""Lists typed as one string — tags, related ids, layers, statuses — the one splitter every face uses.

`--tags "缓存，redis"` on the command line, `tags="缓存、redis"` from an assistant over MCP, `tags: a, b` in
hand-written frontmatter and `system.add(tags="a; b")` all give the same items: commas (ASCII and
full-width), the enumeration comma 、 and semicolons (ASCII and full-width) separate items. A person typing
Chinese reaches for ， or 、, and a model copying a list reaches for ; — none of them belongs in a tag."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

SEPARATORS: Final = re.compile(r"[,，、;；]")


def split_list(value: str | Iterable[object] | None) -> list[str]:
    """Items of `value`, stripped, blanks dropped. A string is split at the separators; a list (from YAML
    or JSON) is taken item by item, and a string item is split too (`--tag "a,b"` twice, `["a、b"]`)."""
    if value is None:
        return []
    texts = [value] if isinstance(value, str) else [str(item) for item in value if item is not None]
    return [part.strip() for text in texts for part in SEPARATORS.split(text) if part.strip()]
