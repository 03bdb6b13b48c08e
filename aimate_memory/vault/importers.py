"""Importers for what people already have (pure: files in, records out). The reading happens once, at the edge
(`system/transfer.py`): an importer gets the files as a mapping of path (relative to what was given) → text, so
a single file and a folder are the same to it. A file it cannot use is a problem reported by name, and the
rest is imported. Ids are uuid5 of the source and the entry's name, so importing the same thing twice changes
nothing.

- `claude`: a Claude Code `CLAUDE.md` or auto-memory `MEMORY.md` — one memory per `##` section (or `#` when
  there is none); a heading about rules, preferences, conventions or style goes to core, the rest long-term.
- `mcp-memory-json`: the official MCP memory server's JSON Lines — one memory per entity, its observations
  as the body, its relations listed under them.
- `basic-memory`: basic-memory's notes (Markdown with frontmatter: title, type, tags, permalink), one memory
  per note, long-term. The permalink is kept (frontmatter `permalink`) and names the id; `type: decision` or
  `project` picks that category, anything else is knowledge; the hashtags of observation lines
  (`- [tip] … #brewing`) join the tags; a relation `- relates_to [[Other note]]` to a note of the same
  import becomes a `related` id, and stays in the body as written either way.
- `cline`: Cline's memory-bank folder — one memory per file, titled after the file and the project (the
  folder holding `memory-bank/`). What Cline keeps as the state of the work (`activeContext.md`,
  `progress.md`) is short-term (context, task), and expires like any short-term memory; the brief, product
  and technical context and system patterns are long-term (project, knowledge); any other file long-term
  knowledge.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from aimate_memory.errors import MemoryFileError
from aimate_memory.vault.codec import parse_document
from aimate_memory.vault.hashing import content_hash
from aimate_memory.vault.transfer import MemoryRecord, RecordError

NAMESPACE = uuid.UUID("6f1d2a8e-4b1c-5d3e-9f7a-0c2b4e6d8a10")
CORE_HEADING = re.compile(r"rule|preference|convention|style|guideline|规则|偏好|约定|风格|规范", re.IGNORECASE)
_HEADING = re.compile(r"^(#{1,2})\s+(.+?)\s*#*\s*$", re.MULTILINE)
_FIRST_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_OBSERVATION_TAG = re.compile(r"(?:^|\s)#([^\s#\[\]()]+)")
_OBSERVATION = re.compile(r"^\s*[-*]\s+\[[^\]]+\]\s+(.*)$", re.MULTILINE)
_RELATION = re.compile(r"^\s*[-*]\s+[^\[\n]*\[\[([^\]|]+)(?:\|[^\]]*)?\]\]", re.MULTILINE)

# basic-memory note type → category (anything else: knowledge).
BASIC_MEMORY_CATEGORIES = {"decision": "decision", "project": "project"}
# Cline's memory-bank core files (lower-cased stem) → (title, layer, category).
CLINE_FILES: dict[str, tuple[str, str, str]] = {
    "projectbrief": ("Project brief", "long_term", "project"),
    "productcontext": ("Product context", "long_term", "project"),
    "systempatterns": ("System patterns", "long_term", "knowledge"),
    "techcontext": ("Tech context", "long_term", "knowledge"),
    "activecontext": ("Active context", "short_term", "context"),
    "progress": ("Progress", "short_term", "task"),
}


@dataclass
class Imported:
    """An importer's result: the records, and the files it could not use (name, what is wrong)."""

    records: list[MemoryRecord] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)


def _record(
    kind: str,
    name: str,
    body: str,
    *,
    core: bool = False,
    tags: list[str] | None = None,
    title: str | None = None,
    layer: str | None = None,
    category: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> MemoryRecord:
    body = body.strip() + "\n"
    layer = layer or ("core" if core else "long_term")
    frontmatter = {
        "id": memory_id(kind, name),
        "type": layer,
        "category": category or ("rule" if core else "knowledge"),
        "title": title or name,
        "tags": list(dict.fromkeys([f"imported-{kind}", *(tags or [])])),
        "status": "active",
        "importance": 4 if layer == "core" else 3,
        "content_hash": content_hash(body),
        "source": f"import:{kind}",
        **(extra or {}),
    }
    return MemoryRecord(frontmatter, body)


def memory_id(kind: str, name: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{kind}:{name}"))


def _each_file(files: Mapping[str, str], parse: Callable[[str, str], list[MemoryRecord]]) -> Imported:
    """`parse` on every file in name order; a file it rejects is a problem, the others are imported."""
    result = Imported()
    for name in sorted(files):
        try:
            result.records.extend(parse(name, files[name]))
        except (RecordError, MemoryFileError) as error:
            result.problems.append((name, str(error)))
    return result


def _claude_sections(name: str, text: str) -> list[MemoryRecord]:
    """One record per `##` section (or `#` when the file has no `##`)."""
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


def from_claude(files: Mapping[str, str], origin: str = "") -> Imported:
    return _each_file(files, _claude_sections)


def _mcp_memory_entities(name: str, text: str) -> list[MemoryRecord]:
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
        if not isinstance(item, dict):
            raise RecordError(f"line {number}: not an entity or a relation")
        if item.get("type") == "entity" and item.get("name"):
            entities[str(item["name"])] = (
                str(item.get("entityType") or ""),
                [str(o) for o in item.get("observations") or []],
            )
        elif item.get("type") == "relation" and item.get("from") and item.get("to"):
            relations.setdefault(str(item["from"]), []).append(f"{item.get('relationType', 'relates to')} {item['to']}")
    records = []
    for entity, (kind, observations) in entities.items():
        lines = [f"- {observation}" for observation in observations]
        if relations.get(entity):
            lines += ["", "Relations:", *(f"- {relation}" for relation in relations[entity])]
        body = "\n".join(lines) or f"# {entity}"
        records.append(_record("mcp-memory", entity, body, tags=[kind] if kind else []))
    return records


def from_mcp_memory_json(files: Mapping[str, str], origin: str = "") -> Imported:
    return _each_file(files, _mcp_memory_entities)


@dataclass(frozen=True)
class _Note:
    title: str
    permalink: str
    body: str
    tags: list[str]
    category: str
    relations: list[str]


def _basic_memory_note(name: str, text: str) -> _Note:
    doc = parse_document(text, Path(name))
    meta = doc.meta
    heading = _FIRST_HEADING.search(doc.body)
    title = str(meta.get("title") or (heading.group(1) if heading else "") or PurePosixPath(name).stem)
    permalink = str(meta.get("permalink") or PurePosixPath(name).with_suffix("").as_posix().lower())
    tags = [str(tag).lstrip("#") for tag in _tag_list(meta.get("tags"))]
    for observation in _OBSERVATION.findall(doc.body):
        tags.extend(_OBSERVATION_TAG.findall(observation))
    category = BASIC_MEMORY_CATEGORIES.get(str(meta.get("type") or "").lower(), "knowledge")
    relations = [target.strip() for target in _RELATION.findall(doc.body)]
    return _Note(title, permalink, doc.body, list(dict.fromkeys(tags)), category, relations)


def _tag_list(value: Any) -> list[Any]:
    if isinstance(value, str):  # `tags: a, b` or `tags: "#a #b"`
        return [part for part in re.split(r"[,\s]+", value) if part]
    return [tag for tag in value or [] if tag is not None]


def from_basic_memory(files: Mapping[str, str], origin: str = "") -> Imported:
    result = Imported()
    notes: list[_Note] = []
    for name in sorted(files):
        try:
            notes.append(_basic_memory_note(name, files[name]))
        except MemoryFileError as error:
            result.problems.append((name, str(error)))
    by_title = {note.title.lower(): memory_id("basic-memory", note.permalink) for note in notes}
    for note in notes:
        related = [by_title[target.lower()] for target in note.relations if target.lower() in by_title]
        extra: dict[str, Any] = {"permalink": note.permalink}
        if related:
            extra["related"] = list(dict.fromkeys(related))
        body = note.body if note.body.strip() else f"# {note.title}"
        result.records.append(
            _record(
                "basic-memory",
                note.permalink,
                body,
                title=note.title,
                tags=note.tags,
                category=note.category,
                extra=extra,
            )
        )
    return result


def from_cline(files: Mapping[str, str], origin: str = "") -> Imported:
    """`origin` names the project (the folder that holds `memory-bank/`): two projects' banks never clash."""

    def one_file(name: str, text: str) -> list[MemoryRecord]:
        stem = PurePosixPath(name).stem
        known = CLINE_FILES.get(stem.lower().replace("-", "").replace("_", ""))
        heading = _FIRST_HEADING.search(text)
        title, layer, category = known or ((heading.group(1) if heading else stem), "long_term", "knowledge")
        if not text.strip():
            return []
        full_title = f"{title} ({origin})" if origin else title
        return [_record("cline", f"{origin}/{name}", text, title=full_title, layer=layer, category=category)]

    return _each_file(files, one_file)


@dataclass(frozen=True)
class Importer:
    parse: Callable[[Mapping[str, str], str], Imported]
    patterns: tuple[str, ...]  # the files read from a folder


IMPORTERS: dict[str, Importer] = {
    "claude": Importer(from_claude, ("*.md",)),
    "basic-memory": Importer(from_basic_memory, ("*.md",)),
    "mcp-memory-json": Importer(from_mcp_memory_json, ("*.json", "*.jsonl")),
    "cline": Importer(from_cline, ("*.md",)),
}


def files_under(folder: Path, patterns: tuple[str, ...]) -> Iterator[Path]:
    """The files an importer reads under `folder`: its patterns, recursively, hidden folders left out."""
    for pattern in patterns:
        for path in sorted(folder.rglob(pattern)):
            relative = path.relative_to(folder)
            if path.is_file() and not any(part.startswith(".") for part in relative.parts):
                yield path
