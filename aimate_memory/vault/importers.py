"""Importers for what people already have (pure: files' text in, records out). Every importer takes a
`Source` — each file's text by its path relative to the folder given — and returns `Parsed`: the records
(each with the file and line it came from) and the problems, by file and line, so one broken file never
stops the rest. Reading the disk happens once, at the edge (`system/transfer.py`). Ids are uuid5 of the
source and the entry's name, so importing the same input twice changes nothing.

- `claude` (a file, or the `.md` files of a folder): a Claude Code `CLAUDE.md` or auto-memory `MEMORY.md` —
  one memory per `##` section (or `#` when there is none), titled with its heading, and one for the text
  before the first section (titled with the `#` heading, else the file's name; `claude /init`'s opening
  line "This file provides guidance to Claude Code…" is not one); a heading about rules,
  preferences, conventions or style goes to core, the rest long-term. The id is made of the folder's name,
  the file and the heading (`claude_section_key`), so two projects' `## Build and test` are two memories.
- `basic-memory` (a folder of notes): one long-term memory per note, the body as written (observations
  `- [category] text #tag`, relations `- relation_type [[Target]]`). Title from the frontmatter, else the
  first `#` heading, else the file name. The id is made of the `permalink` (else the one basic-memory makes
  of the path), kept as a key. Tags: the frontmatter's, the note's `type` (other than the default `note`)
  and the observations' `#tags` (not a checkbox's, not in code, not `#42`). A relation or `[[link]]` to a
  note of the same import (by title or permalink) becomes a `related` id. `type: decision` / `project` pick
  that category, anything else is knowledge. `created` becomes `created_at`; `modified` and other keys are
  kept as written (`modified` is not `updated_at`: an old note would be archived as idle the day it
  arrives), one the tool owns (`status`, `source`, …) with a `basic_memory_` prefix.
- `mcp-memory-json` (a file, or the `.json`/`.jsonl` files of a folder): the official MCP memory server's
  JSON Lines — one memory per entity, its observations as the body, its relations listed under them; a line
  that is not JSON is reported by number and the rest is read.
- `cline` (a `memory-bank` folder): one memory per non-empty Markdown file (subfolders too), the body as
  written, titled after the file (its `#` heading for a file Cline does not define) and the project — the
  folder holding `memory-bank/`. What stays true goes long-term: `projectbrief` (project, importance 4),
  `productContext` (project), `systemPatterns`, `techContext` and any other file (knowledge). What
  describes the moment goes short-term and expires like any short-term note: `activeContext` (context),
  `progress` (task). The id is made of the project and the file's path in the bank, so two projects'
  banks never clash.
"""

from __future__ import annotations

import json
import re
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from aimate_memory.errors import MemoryFileError
from aimate_memory.vault.codec import parse_document
from aimate_memory.vault.hashing import content_hash
from aimate_memory.vault.layout import Layer
from aimate_memory.vault.markdown import FENCE, strip_comments
from aimate_memory.vault.model import to_datetime
from aimate_memory.vault.store import KEY_ORDER
from aimate_memory.vault.transfer import Entry, ImportProblem, MemoryRecord, to_json_value

NAMESPACE = uuid.UUID("6f1d2a8e-4b1c-5d3e-9f7a-0c2b4e6d8a10")
CORE_HEADING = re.compile(r"rule|preference|convention|style|guideline|规则|偏好|约定|风格|规范", re.IGNORECASE)
_HEADING = re.compile(r"^(#{1,2})\s+(.+?)\s*#*\s*$", re.MULTILINE)
_FIRST_TITLE = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
# The line `claude /init` opens every CLAUDE.md with: about the file, nothing to remember.
_INIT_BOILERPLATE = re.compile(r"^This file provides guidance to Claude Code\b.*$", re.MULTILINE)
# Frontmatter keys the tool gives a meaning to; another tool's key of that name must not take it over.
OWN_KEYS = frozenset(KEY_ORDER) | {"supersedes", "superseded_by", "archived_at", "promoted_at"}


@dataclass(frozen=True)
class Source:
    """What was given: each file's text by its POSIX path relative to `folder` (a file importer's one file:
    its name), and `folder` itself — the resolved folder, whose name the cline importer needs."""

    files: Mapping[str, str]
    folder: PurePosixPath = field(default_factory=lambda: PurePosixPath("."))


@dataclass
class Parsed:
    entries: list[Entry] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)


@dataclass(frozen=True)
class Importer:
    parse: Callable[[Source], Parsed]
    suffixes: tuple[str, ...]  # the files it reads under a folder
    one_file: bool  # may be given one file: not a basic-memory note or a bank file, whose id is its path there
    expects: str  # what PATH should be, for the error hint


@dataclass(frozen=True)
class Placement:
    layer: Layer
    category: str
    importance: int = 3


def _record(
    kind: str,
    name: str,
    body: str,
    *,
    title: str | None = None,
    placement: Placement | None = None,
    tags: list[str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> MemoryRecord:
    """A memory record; `name` makes the id (stable across imports), `extra` adds keys — the tool's own in
    the order it writes them, another tool's after them."""
    place = placement or Placement(Layer.LONG_TERM, "knowledge")
    body = body.strip() + "\n"
    frontmatter: dict[str, Any] = {
        "id": memory_id(kind, name),
        "type": place.layer.value,
        "category": place.category,
        "title": title or name,
        "tags": list(dict.fromkeys([f"imported-{kind}", *(tags or [])])),
        "status": "active",
        "importance": place.importance,
        "content_hash": content_hash(body),
        "source": f"import:{kind}",
        **(extra or {}),
    }
    order = {key: number for number, key in enumerate(KEY_ORDER)}
    keys = sorted(frontmatter, key=lambda key: order.get(key, len(order)))  # stable: others keep their order
    return MemoryRecord({key: frontmatter[key] for key in keys}, body)


def memory_id(kind: str, name: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{kind}:{name}"))


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# -- claude ------------------------------------------------------------------------------------------


def from_claude(source: Source) -> Parsed:
    """One record per `##` section (or `#` when the file has no `##`) that holds anything, and one for what
    comes before the first of them (the project's introduction, often the most general guidance), titled
    with the file's `#` heading or, without one, the file's name."""
    parsed = Parsed()
    for name, text in source.files.items():
        level = "##" if re.search(r"^##\s", text, re.MULTILINE) else "#"
        headings = [m for m in _HEADING.finditer(text) if m.group(1) == level]
        preamble = _claude_preamble(source.folder, name, text[: headings[0].start() if headings else len(text)])
        if preamble is not None:
            parsed.entries.append(preamble)
        seen: Counter[str] = Counter()
        for number, match in enumerate(headings):
            end = headings[number + 1].start() if number + 1 < len(headings) else len(text)
            body = text[match.end() : end].strip()
            if body:
                title = match.group(2)
                seen[title] += 1
                core = CORE_HEADING.search(title)
                placement = Placement(Layer.CORE, "rule", 4) if core else None
                key = claude_section_key(source.folder, name, title, seen[title])
                record = _record("claude", key, body, title=title, placement=placement)
                parsed.entries.append(Entry(_line_of(text, match.start()), record, name))
    return parsed


def _claude_preamble(folder: PurePosixPath, name: str, text: str) -> Entry | None:
    """The text before a CLAUDE.md's first section, when there is any beyond a `#` title and comments."""
    title_match = _FIRST_TITLE.search(text)
    body = (text[: title_match.start()] + text[title_match.end() :]) if title_match else text
    body = _INIT_BOILERPLATE.sub("", body)
    if not strip_comments(body).strip():
        return None
    title = title_match.group(1) if title_match else PurePosixPath(name).stem
    placement = Placement(Layer.CORE, "rule", 4) if CORE_HEADING.search(title) else None
    key = claude_section_key(folder, name, "", 1)  # no heading: the file's own introduction
    line = _line_of(text, len(text) - len(text.lstrip()))
    return Entry(line, _record("claude", key, body, title=title, placement=placement), name)


def claude_section_key(folder: PurePosixPath, file: str, heading: str, occurrence: int) -> str:
    """What a section's id is made of: the folder the file is in (its name: a project moved elsewhere keeps
    its ids), the file, the heading and which of that heading's sections it is. Every project's CLAUDE.md
    has a `## Build and test`; the heading alone gave them one id, so a second project's replaced the first's."""
    repeat = f"#{occurrence}" if occurrence > 1 else ""
    return f"{folder.name}/{file}#{heading}{repeat}"


# -- mcp-memory-json ---------------------------------------------------------------------------------


def from_mcp_memory_json(source: Source) -> Parsed:
    """Entities (with observations) and relations, one JSON object per line, as the server stores them."""
    parsed = Parsed()
    for name, text in source.files.items():
        entities: dict[str, tuple[int, str, list[str]]] = {}
        relations: dict[str, list[str]] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as error:
                parsed.problems.append(ImportProblem(number, f"not JSON: {error.msg}", name))
                continue
            if not isinstance(item, dict):
                parsed.problems.append(ImportProblem(number, "not an entity or a relation", name))
            elif item.get("type") == "entity" and item.get("name"):
                observations = [str(o) for o in item.get("observations") or []]
                entities[str(item["name"])] = (number, str(item.get("entityType") or ""), observations)
            elif item.get("type") == "relation" and item.get("from") and item.get("to"):
                relation = f"{item.get('relationType', 'relates to')} {item['to']}"
                relations.setdefault(str(item["from"]), []).append(relation)
        for entity, (number, kind, observations) in entities.items():
            lines = [f"- {observation}" for observation in observations]
            if relations.get(entity):
                lines += ["", "Relations:", *(f"- {relation}" for relation in relations[entity])]
            body = "\n".join(lines) or f"# {entity}"
            record = _record("mcp-memory", entity, body, tags=[kind] if kind else [])
            parsed.entries.append(Entry(number, record, name))
    return parsed


# -- basic-memory ------------------------------------------------------------------------------------

# basic-memory's `type` → the category here (anything else: knowledge); its default `note` is no tag.
BASIC_MEMORY_CATEGORIES = {"decision": "decision", "project": "project"}
BASIC_MEMORY_DEFAULT_TYPE = "note"
_LIST_ITEM = re.compile(r"^\s*[-*+]\s+(.+?)\s*$")
_OBSERVATION = re.compile(r"^\[([^\[\]()]+)\]\s+(.+)$")
_CONTEXT = re.compile(r"\s*\([^()]*\)$")
# An inline tag starts with a letter of any script (`#缓存`, `#security`); `#42` in "PR #42" stays text.
_INLINE_TAG = re.compile(r"(?:^|(?<=\s))#([^\W\d_][\w/-]*)")
_WIKI_LINK = re.compile(r"\[\[([^\[\]]+)\]\]")


@dataclass(frozen=True)
class _Note:
    path: str
    meta: dict[str, Any]
    body: str
    title: str
    permalink: str  # the note's own, else the one basic-memory makes of the path: the id is made of it


def from_basic_memory(source: Source) -> Parsed:
    """One record per note; a note whose frontmatter does not parse is a problem, the others import."""
    parsed = Parsed()
    notes: list[_Note] = []
    for path, text in source.files.items():
        try:
            doc = parse_document(text, Path(path))  # the path only names the file in an error
        except MemoryFileError as error:
            parsed.problems.append(ImportProblem(error.line or 0, error.reason, path))
            continue
        meta = to_json_value(dict(doc.meta))
        if not doc.body.strip() and not meta:
            continue  # an empty file holds nothing to import
        heading = _FIRST_TITLE.search(doc.body)
        title = str(meta.get("title") or "").strip() or (heading.group(1) if heading else PurePosixPath(path).stem)
        permalink = str(meta.get("permalink") or "").strip() or PurePosixPath(path).with_suffix("").as_posix().lower()
        notes.append(_Note(path, meta, doc.body, title, permalink))
    ids: dict[str, str] = {}  # title or permalink (case folded) → id: basic-memory links by either
    for note in notes:
        note_id = memory_id("basic-memory", note.permalink)
        ids.setdefault(note.title.casefold(), note_id)
        ids.setdefault(note.permalink.casefold(), note_id)
    for note in notes:
        parsed.entries.append(Entry(1, _basic_memory_record(note, ids), note.path))
    return parsed


def _basic_memory_record(note: _Note, ids: Mapping[str, str]) -> MemoryRecord:
    meta = note.meta
    kind = str(meta.get("type") or BASIC_MEMORY_DEFAULT_TYPE).strip()
    inline_tags, targets = _tags_and_links(note.body)
    type_tag = [kind] if kind.casefold() != BASIC_MEMORY_DEFAULT_TYPE else []
    tags = [*_tag_list(meta.get("tags")), *type_tag, *inline_tags]
    extra: dict[str, Any] = {"permalink": note.permalink}
    created = to_datetime(meta.get("created"))
    if created is not None:
        extra["created_at"] = created.isoformat()
    own_id = memory_id("basic-memory", note.permalink)
    related = [ids[target.casefold()] for target in targets if target.casefold() in ids]
    related = [item for item in dict.fromkeys(related) if item != own_id]
    if related:
        extra["related"] = related
    for key, value in meta.items():
        if key in ("title", "type", "tags", "permalink") or (key == "created" and created is not None):
            continue
        extra[f"basic_memory_{key}" if key in OWN_KEYS else key] = value
    placement = Placement(Layer.LONG_TERM, BASIC_MEMORY_CATEGORIES.get(kind.casefold(), "knowledge"))
    body = note.body if note.body.strip() else f"# {note.title}"
    return _record("basic-memory", note.permalink, body, title=note.title, placement=placement, tags=tags, extra=extra)


def _tag_list(value: Any) -> list[str]:
    """basic-memory's `tags`: a list, or one string (`a, b` or `#a #b`); a leading `#` is dropped."""
    items = value if isinstance(value, list) else re.split(r",|\s+(?=#)", str(value or ""))
    return [tag for tag in (str(item).strip().lstrip("#").strip() for item in items) if tag]


def _tags_and_links(body: str) -> tuple[list[str], list[str]]:
    """The observations' `#tags` and every `[[link]]` target (relations and links in prose), outside code."""
    tags: list[str] = []
    targets: list[str] = []
    for line in _prose_lines(body):
        targets += [match.split("|")[0].strip() for match in _WIKI_LINK.findall(line)]
        item = _LIST_ITEM.match(line)
        if item is None or item.group(1).startswith("[["):
            continue
        content = item.group(1)
        observation = _OBSERVATION.match(content)
        if observation is not None:
            if _is_task_marker(observation.group(1)):
                continue  # a checkbox is a task, not an observation (as basic-memory reads it)
            content = observation.group(2)
        tags += _INLINE_TAG.findall(_CONTEXT.sub("", content))
    return tags, [target for target in targets if target]


def _is_task_marker(category: str) -> bool:
    """`- [ ] todo`, `- [x] done`, `- [-]`, `- [/]`: checkboxes, not observation categories."""
    category = category.strip()
    return len(category) <= 1 and (category in ("", "x", "X") or not category.isalnum())


def _prose_lines(body: str) -> Iterator[str]:
    fenced = False
    for line in body.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield line


# -- cline -------------------------------------------------------------------------------------------

# Cline's memory bank, by file name (case folded, no suffix, no `-`/`_`): its title and where it goes.
CLINE_FILES: dict[str, tuple[str, Placement]] = {
    "projectbrief": ("Project brief", Placement(Layer.LONG_TERM, "project", 4)),
    "productcontext": ("Product context", Placement(Layer.LONG_TERM, "project")),
    "systempatterns": ("System patterns", Placement(Layer.LONG_TERM, "knowledge")),
    "techcontext": ("Tech context", Placement(Layer.LONG_TERM, "knowledge")),
    "activecontext": ("Active context", Placement(Layer.SHORT_TERM, "context")),
    "progress": ("Progress", Placement(Layer.SHORT_TERM, "task")),
}
CLINE_OTHER = Placement(Layer.LONG_TERM, "knowledge")
CLINE_BANK_NAMES = ("memory-bank", "memory_bank", "memorybank")


def from_cline(source: Source) -> Parsed:
    """One record per non-empty Markdown file of the bank (subfolders too)."""
    parsed = Parsed()
    project = cline_project(source.folder)
    for path, text in source.files.items():
        if not text.strip():
            continue
        stem = PurePosixPath(path).stem
        heading = _FIRST_TITLE.search(text)
        other = (heading.group(1) if heading else _words(stem), CLINE_OTHER)
        title, placement = CLINE_FILES.get(re.sub(r"[-_]", "", stem.casefold()), other)
        if project and project.casefold() not in title.casefold():
            title = f"{title} ({project})"
        tags = ["memory-bank", *([project] if project else [])]
        record = _record("cline", f"{project}/{path}", text, title=title, placement=placement, tags=tags)
        parsed.entries.append(Entry(1, record, path))
    return parsed


def cline_project(folder: PurePosixPath) -> str:
    """The project a bank belongs to: the folder holding `memory-bank/`, else the folder given."""
    if folder.name.casefold() in CLINE_BANK_NAMES:
        return folder.parent.name
    return folder.name


def _words(stem: str) -> str:
    """`activeContext` → `Active context`, `api-notes` → `Api notes`."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])|[-_]+", " ", stem).strip()
    return spaced[:1].upper() + spaced[1:].lower() if spaced else stem


IMPORTERS: dict[str, Importer] = {
    "claude": Importer(from_claude, (".md",), one_file=True, expects="a CLAUDE.md / MEMORY.md or their folder"),
    "basic-memory": Importer(from_basic_memory, (".md",), one_file=False, expects="a basic-memory project folder"),
    "mcp-memory-json": Importer(
        from_mcp_memory_json, (".json", ".jsonl"), one_file=True, expects="the MCP memory server's memory.json"
    ),
    "cline": Importer(from_cline, (".md",), one_file=False, expects="a Cline memory-bank folder"),
}
