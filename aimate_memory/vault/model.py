"""The memory record: what a memory file says, with the gaps filled from its location (docs/design.md §4)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from aimate_memory.vault.anchors import Anchor, anchors_of
from aimate_memory.vault.hashing import content_hash
from aimate_memory.vault.layout import DEFAULT_CATEGORY, Layer, Location, Scope, folder_for, location_of
from aimate_memory.vault.lists import split_list
from aimate_memory.vault.markdown import strip_comments

if TYPE_CHECKING:  # the codec pulls in ruamel and python-frontmatter (~50 ms): not needed to use a Memory
    from aimate_memory.vault.codec import MemoryDocument

# `uuid` is imported where an id is made: it imports `platform` (~3 ms of every command's start, which mostly
# makes no id).
_PROVISIONAL_NAMESPACE = "6f1d0c7e-2b1a-4c4e-9a57-5a3b2f0d7e11"
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def new_id(now: datetime | None = None) -> str:
    """A random UUID. Time-ordered (v7) ids were tried and dropped: ids made in the same minute share
    their first 8+ characters, which defeats git-style prefixes (`aimate mem show 3f9a`). Time order
    lives in `created_at` and in the file name instead."""
    import uuid

    del now
    return str(uuid.uuid4())


def provisional_id(scope: Scope, rel_path: PurePosixPath) -> str:
    """Stable id for a file that has none yet; `aimate mem fix` writes a real one."""
    import uuid

    return str(uuid.uuid5(uuid.UUID(_PROVISIONAL_NAMESPACE), f"{scope.value}:{rel_path.as_posix()}"))


@dataclass
class Memory:
    """One memory as the rest of the system sees it. `doc` is the file it came from."""

    id: str
    rel_path: PurePosixPath
    scope: Scope
    layer: Layer
    category: str
    title: str
    tags: list[str]
    status: str
    importance: int
    created_at: datetime
    updated_at: datetime
    accessed_at: datetime | None
    access_count: int
    expires_at: datetime | None
    related: list[str]
    source: str | None
    confidence: float | None
    body: str
    archived: bool = False
    #: the conversation (or other sequence) this memory was captured from; its neighbours there are context
    thread: str | None = None
    provisional_id: bool = False
    hand_edited: bool = False
    #: the project files this memory cites, as verified (frontmatter `anchors`, docs/anchors.md)
    anchors: tuple[Anchor, ...] = ()
    problems: list[str] = field(default_factory=list)
    doc: MemoryDocument | None = field(default=None, repr=False, compare=False)

    @property
    def text(self) -> str:
        """Title and body: what search reads."""
        return f"{self.title}\n\n{self.body}"

    def public_dict(self) -> dict[str, Any]:
        """JSON-ready view (CLI `--json`, MCP, export)."""
        return {
            "id": self.id,
            "title": self.title,
            "path": self.rel_path.as_posix(),
            "scope": self.scope.value,
            "layer": self.layer.value,
            "category": self.category,
            "tags": list(self.tags),
            "status": self.status,
            "importance": self.importance,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "accessed_at": self.accessed_at.isoformat() if self.accessed_at else None,
            "access_count": self.access_count,
            "expires_at": self.expires_at.isoformat() if self.expires_at else None,
            "related": list(self.related),
            "source": self.source,
            "thread": self.thread,
            "anchors": [anchor.to_dict() for anchor in self.anchors],
        }


def memory_from_document(
    doc: MemoryDocument,
    rel_path: PurePosixPath,
    scope: Scope,
    mtime: datetime,
) -> Memory:
    """Fill what the frontmatter does not say from the file's place and stat (hand-made files)."""
    location = location_of(rel_path)
    problems: list[str] = []
    layer = _layer(doc, location, problems)
    raw_id = doc.get("id")
    has_id = raw_id is not None and str(raw_id).strip() != ""
    body = doc.body
    stored_hash = doc.get("content_hash")
    hand_edited = bool(stored_hash) and str(stored_hash) != content_hash(body)
    created = to_datetime(doc.get("created_at")) or mtime
    updated = to_datetime(doc.get("updated_at")) or mtime
    if hand_edited and mtime > updated:
        updated = mtime  # the body changed after the tool last wrote it
    status = str(doc.get("status") or ("archived" if location.archived else "active"))
    return Memory(
        id=str(raw_id).strip() if has_id else provisional_id(scope, rel_path),
        rel_path=rel_path,
        scope=scope,
        layer=layer,
        category=_category(doc, location, layer, problems),
        title=title_of(doc, rel_path),
        tags=_string_list(doc.get("tags")),
        status=status,
        importance=_importance(doc.get("importance"), problems),
        created_at=created,
        updated_at=updated,
        accessed_at=to_datetime(doc.get("accessed_at")),
        access_count=_int(doc.get("access_count"), 0),
        expires_at=to_datetime(doc.get("expires_at")),
        related=_string_list(doc.get("related")),
        source=str(doc.get("source")) if doc.get("source") else None,
        confidence=_float(doc.get("confidence")),
        thread=_optional_text(doc.get("thread")),
        body=body,
        archived=location.archived,
        provisional_id=not has_id,
        hand_edited=hand_edited,
        anchors=anchors_of(doc.get("anchors")),
        problems=problems,
        doc=doc,
    )


def _optional_text(value: Any) -> str | None:
    text = str(value).strip() if value is not None else ""
    return text or None


def _layer(doc: MemoryDocument, location: Location, problems: list[str]) -> Layer:
    """The frontmatter is the truth; the folder is the default when `type` is absent (docs/design.md §3)."""
    declared = doc.get("type")
    if not declared:
        return location.layer or Layer.LONG_TERM
    try:
        layer = Layer(str(declared))
    except ValueError:
        problems.append(f"unknown type '{declared}', treated as {(location.layer or Layer.LONG_TERM).value}")
        return location.layer or Layer.LONG_TERM
    if location.layer is not None and layer is not location.layer:
        problems.append(
            f"frontmatter says type '{layer.value}' but the file is in {location.layer.folder}/; "
            f"`aimate mem fix` moves it to {layer.folder}/"
        )
    return layer


def _category(doc: MemoryDocument, location: Location, layer: Layer, problems: list[str]) -> str:
    """Frontmatter first, then the folder, then the layer's default; a folder that disagrees is reported."""
    declared = doc.get("category")
    if not declared or not str(declared).strip():
        return str(location.category if location.layer is layer and location.category else DEFAULT_CATEGORY[layer])
    category = str(declared).strip()
    folder_says = location.category if location.layer is layer else None
    if folder_says and folder_says != category and layer not in (Layer.CORE, Layer.SESSION):
        problems.append(
            f"frontmatter says category '{category}' but the file is in a '{folder_says}' folder; "
            f"`aimate mem fix` moves it to {folder_for(layer, category)}/"
        )
    return category


def title_of(doc: MemoryDocument, rel_path: PurePosixPath) -> str:
    """The `title` field, else the first heading outside a comment, else the file name."""
    title = doc.get("title")
    if title:
        return str(title).strip()
    heading = _HEADING.search(strip_comments(doc.body))  # a heading inside a comment is not the title
    if heading:
        return heading.group(1).strip()
    return rel_path.stem.replace("_", " ").replace("-", " ")


def _string_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return split_list(value)
    # A YAML list is already split: its items are kept whole (a file is read as it was written).
    if isinstance(value, (list, tuple)):
        return [str(item).strip() for item in value if item is not None and str(item).strip()]
    return [str(value)]


def _importance(value: Any, problems: list[str]) -> int:
    if value is None:
        return 3
    number = _int(value, 3)
    if not 1 <= number <= 5 or str(number) != str(value).strip():
        problems.append(f"importance '{value}' is not a whole number from 1 to 5")
        return min(5, max(1, number))
    return number


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _float(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def to_datetime(value: Any) -> datetime | None:
    """Frontmatter time → aware datetime. Naive times are read as local time."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        result = value
    elif isinstance(value, date):
        result = datetime(value.year, value.month, value.day)
    else:
        try:
            result = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    if result.tzinfo is None:
        result = result.astimezone()
    return datetime(*result.timetuple()[:6], result.microsecond, tzinfo=result.tzinfo)


def default_expiry(created: datetime, ttl_days: float) -> datetime:
    return created + timedelta(days=ttl_days)


def mtime_of(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime).astimezone().replace(microsecond=0)
