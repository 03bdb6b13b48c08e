"""Importers for what people already have (pure: text in, records out). Ids are derived from the source and
the entry's name (uuid5), so importing the same file twice changes nothing.

- `claude`: a Claude Code `CLAUDE.md` or auto-memory `MEMORY.md` — one memory per `##` section (or `#` when
  there is none); a heading about rules, preferences, conventions or style goes to core, the rest long-term.
- `mcp-memory-json`: the official MCP memory server's JSON Lines — one memory per entity, its observations
  as the body, its relations listed under them.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable

from aimate_memory.vault.hashing import content_hash
from aimate_memory.vault.transfer import MemoryRecord, RecordError

NAMESPACE = uuid.UUID("6f1d2a8e-4b1c-5d3e-9f7a-0c2b4e6d8a10")
CORE_HEADING = re.compile(r"rule|preference|convention|style|guideline|规则|偏好|约定|风格|规范", re.IGNORECASE)
_HEADING = re.compile(r"^(#{1,2})\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _record(kind: str, name: str, body: str, *, core: bool = False, tags: list[str] | None = None) -> MemoryRecord:
    body = body.strip() + "\n"
    frontmatter = {
        "id": str(uuid.uuid5(NAMESPACE, f"{kind}:{name}")),
        "type": "core" if core else "long_term",
        "category": "rule" if core else "knowledge",
        "title": name,
        "tags": [f"imported-{kind}", *(tags or [])],
        "status": "active",
        "importance": 4 if core else 3,
        "content_hash": content_hash(body),
        "source": f"import:{kind}",
    }
    return MemoryRecord(frontmatter, body)


def from_claude(text: str) -> list[MemoryRecord]:
    """One record per `##` section (or `#` when the file has no `##`); text before the first heading is
    its own record titled by the file's top heading, when it holds anything."""
    level = "##" if re.search(r"^##\s", text, re.MULTILINE) else "#"
    headings = [m for m in _HEADING.finditer(text) if m.group(1) == level]
    records = []
    for number, match in enumerate(headings):
        end = headings[number + 1].start() if number + 1 < len(headings) else len(text)
        body = text[match.end() : end].strip()
        if body:
            title = match.group(2)
            records.append(_record("claude", title, body, core=bool(CORE_HEADING.search(title))))
    return records


def from_mcp_memory_json(text: str) -> list[MemoryRecord]:
    """Entities (with observations) and relations, one JSON object per line, as the server stores them."""
    entities: dict[str, tuple[str, list[str]]] = {}
    relations: dict[str, list[str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise RecordError(f"line {number}: not JSON: {error.msg}") from error
        if item.get("type") == "entity" and item.get("name"):
            entities[str(item["name"])] = (
                str(item.get("entityType") or ""),
                [str(o) for o in item.get("observations") or []],
            )
        elif item.get("type") == "relation" and item.get("from") and item.get("to"):
            relations.setdefault(str(item["from"]), []).append(f"{item.get('relationType', 'relates to')} {item['to']}")
    records = []
    for name, (kind, observations) in entities.items():
        lines = [f"- {observation}" for observation in observations]
        if relations.get(name):
            lines += ["", "Relations:", *(f"- {relation}" for relation in relations[name])]
        body = "\n".join(lines) or f"# {name}"
        records.append(_record("mcp-memory", name, body, tags=[kind] if kind else []))
    return records


IMPORTERS: dict[str, Callable[[str], list[MemoryRecord]]] = {
    "claude": from_claude,
    "mcp-memory-json": from_mcp_memory_json,
}
