"""Where memories live: layer folders, categories, file names, archive paths, project roots (docs/design.md §3).

Everything here is a pure function of paths and strings; nothing touches the disk except
`find_project_root`, which only looks.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from pathlib import Path, PurePosixPath


class Layer(str, Enum):
    CORE = "core"
    SESSION = "session"
    SHORT_TERM = "short_term"
    LONG_TERM = "long_term"

    @property
    def folder(self) -> str:
        return LAYER_FOLDERS[self]


class Scope(str, Enum):
    GLOBAL = "global"
    PROJECT = "project"


LAYER_FOLDERS: dict[Layer, str] = {
    Layer.CORE: "core",
    Layer.SESSION: "sessions",
    Layer.SHORT_TERM: "short_term",
    Layer.LONG_TERM: "long_term",
}
FOLDER_LAYERS: dict[str, Layer] = {folder: layer for layer, folder in LAYER_FOLDERS.items()}
ARCHIVE_FOLDER = "archive"

# Sub-folder → category (docs/design.md §3); any other sub-folder name is its own category.
FOLDER_CATEGORIES: dict[str, str] = {
    "tasks": "task",
    "notes": "note",
    "contexts": "context",
    "projects": "project",
    "knowledge": "knowledge",
    "decisions": "decision",
}
CATEGORY_FOLDERS: dict[str, str] = {category: folder for folder, category in FOLDER_CATEGORIES.items()}
DEFAULT_CATEGORY: dict[Layer, str] = {
    Layer.CORE: "rule",
    Layer.SESSION: "session",
    Layer.SHORT_TERM: "note",
    Layer.LONG_TERM: "knowledge",
}
# The folder skeleton `init` creates.
LAYER_SUBFOLDERS: dict[Layer, tuple[str, ...]] = {
    Layer.CORE: (),
    Layer.SESSION: (),
    Layer.SHORT_TERM: ("tasks", "notes", "contexts"),
    Layer.LONG_TERM: ("projects", "knowledge", "decisions"),
}
# `done`: a task the person finished (`aimate mem done`), archived like the rest of what is history.
STATUSES = ("active", "pending", "archived", "expired", "superseded", "done")
PROJECT_MARKERS = (".aimate", ".git", "go.mod", "package.json", "Cargo.toml", "pyproject.toml")
MAX_SLUG_CHARS = 60
# File names the tool makes stay under this many BYTES (UTF-8): the file system allows 255, and what is
# left is room for a clash suffix (`-12`) and the names an editor saves beside the file (`.NAME.swp`,
# `NAME~`). 60 Chinese characters are 180 bytes, so the cap cuts a Chinese title sooner than an English one.
MAX_NAME_BYTES = 200
# The file system's own limit for one name (NAME_MAX on Linux and macOS).
NAME_MAX_BYTES = 255


@dataclass(frozen=True)
class Location:
    """What a file's place in the vault says about it."""

    layer: Layer | None  # None: not under a layer folder (e.g. the vault README)
    category: str | None
    archived: bool


def location_of(rel_path: PurePosixPath) -> Location:
    """Layer = top folder (under `archive/` for archived files), category = the sub-folder."""
    parts = rel_path.parts[:-1]
    archived = bool(parts) and parts[0] == ARCHIVE_FOLDER
    if archived:
        parts = parts[1:]
    if not parts or parts[0] not in FOLDER_LAYERS:
        return Location(layer=None, category=None, archived=archived)
    layer = FOLDER_LAYERS[parts[0]]
    if layer is Layer.SESSION:
        return Location(layer=layer, category="session", archived=archived)
    if len(parts) > 1:
        return Location(layer=layer, category=FOLDER_CATEGORIES.get(parts[1], parts[1]), archived=archived)
    if layer is Layer.CORE:
        # core/preferences.md → preference: the core files are named after what they hold.
        return Location(layer=layer, category=_core_category(rel_path.stem), archived=archived)
    return Location(layer=layer, category=DEFAULT_CATEGORY[layer], archived=archived)


def _core_category(stem: str) -> str:
    stem = stem.lower()
    if stem.startswith("preference"):
        return "preference"
    if stem.startswith("persona"):
        return "persona"
    return "rule"


def takes_sides(layer: Layer, category: str) -> bool:
    """What is checked for conflicts (system/conflicts.py): core memories (rules, preferences) and decisions —
    what a person stands by, and what reaches every session. Here, beside the layers, so a command that wrote
    another kind of memory asks this without importing the conflict check (numpy, the kind model)."""
    return layer is Layer.CORE or category == "decision"


def folder_for(layer: Layer, category: str | None) -> PurePosixPath:
    """The folder a memory of this layer and category is written to."""
    base = PurePosixPath(layer.folder)
    if layer in (Layer.CORE, Layer.SESSION) or not category:
        return base
    return base / CATEGORY_FOLDERS.get(category, slugify(category) or DEFAULT_CATEGORY[layer])


def archive_path_for(rel_path: PurePosixPath) -> PurePosixPath:
    """`archive/` mirrors the layer paths of what it holds."""
    if rel_path.parts and rel_path.parts[0] == ARCHIVE_FOLDER:
        return rel_path
    return PurePosixPath(ARCHIVE_FOLDER, *rel_path.parts)


def slugify(title: str, max_chars: int = MAX_SLUG_CHARS) -> str:
    """Letters and digits of any script stay (Chinese titles remain readable); the rest folds to `-`."""
    text = unicodedata.normalize("NFKC", title).lower()
    slug = re.sub(r"[^\w]|_", "-", text)
    slug = re.sub(r"-{2,}", "-", slug).strip("-")
    return slug[:max_chars].rstrip("-")


def memory_file_name(created: datetime, category: str | None, title: str) -> str:
    """`YYYYMMDD_category_slug.md` (seed 002 文件命名规范), at most MAX_NAME_BYTES bytes: the category takes
    at most a third of them, the title's slug what is left."""
    head = created.strftime("%Y%m%d") + "_"
    if category:
        head += _cut_bytes(slugify(category) or "memory", MAX_NAME_BYTES // 3) + "_"
    slug = _cut_bytes(slugify(title), MAX_NAME_BYTES - len(head.encode("utf-8")) - len(".md"))
    return head + (slug or "untitled") + ".md"


def _cut_bytes(text: str, limit: int) -> str:
    """`text` cut to at most `limit` UTF-8 bytes at a character boundary, without a trailing `-`."""
    return text.encode("utf-8")[:limit].decode("utf-8", "ignore").rstrip("-")


def name_bytes(rel_path: PurePosixPath) -> int:
    return len(rel_path.name.encode("utf-8", "surrogateescape"))


def with_clash_suffix(name: str, attempt: int) -> str:
    """`name.md` → `name-2.md`, `name-3.md`, … for the 2nd, 3rd, … file wanting the same name."""
    if attempt < 2:
        return name
    stem, dot, ext = name.rpartition(".")
    return f"{stem}-{attempt}{dot}{ext}"


def find_project_root(start: Path, home: Path | None = None) -> Path | None:
    """Walk up from `start` to the first folder holding a project marker (seed 002 项目识别).

    The user's home folder and the AIMATE_HOME parent are not projects even if they hold a marker:
    `~/.aimate/` is the global root, not a project vault.
    """
    current = start.resolve()
    stops = {Path.home().resolve()}
    if home is not None:
        stops.add(home.resolve().parent)
    for folder in (current, *current.parents):
        if folder in stops:
            return None
        if any((folder / marker).exists() for marker in PROJECT_MARKERS):
            return folder
    return None


def home_of(rel_path: PurePosixPath, layer: Layer, category: str) -> PurePosixPath | None:
    """Where a file of this layer and category belongs when it is elsewhere (None: it is in place).

    What `fix` and `set layer=/category=` move a file to. Archived files keep their place under
    `archive/`, which mirrors the layer paths; sessions are filed by month by maintenance."""
    if layer is Layer.SESSION:
        return None
    location = location_of(rel_path)
    if location.layer is layer and (layer is Layer.CORE or location.category == category):
        return None
    target = folder_for(layer, category) / rel_path.name
    return archive_path_for(target) if location.archived else target
