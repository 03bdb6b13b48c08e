"""A vault on disk: find, read, create, change and move memory files. All writes are atomic."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from aimate_memory.clock import Clock, SystemClock
from aimate_memory.errors import (
    FileNameError,
    InvalidInputError,
    MemoryFileError,
    OutsideVaultError,
    PathTooLongError,
)
from aimate_memory.vault.anchors import Anchor, Anchorer, anchors_of
from aimate_memory.vault.atomic import atomic_write_text, stale_temp_files
from aimate_memory.vault.changes import FileChange
from aimate_memory.vault.codec import IsoTimestamp, MemoryDocument, content_hash, read_document
from aimate_memory.vault.layout import (
    DEFAULT_CATEGORY,
    Layer,
    Scope,
    archive_path_for,
    folder_for,
    memory_file_name,
    with_clash_suffix,
)
from aimate_memory.vault.model import Memory, default_expiry, memory_from_document, mtime_of, new_id, title_of
from aimate_memory.vault.trust import TrustLedger, file_digest

# Frontmatter keys in the order the tool writes them (stable order = readable diffs).
KEY_ORDER = (
    "id",
    "type",
    "scope",
    "category",
    "title",
    "tags",
    "status",
    "importance",
    "confidence",
    "created_at",
    "updated_at",
    "accessed_at",
    "access_count",
    "expires_at",
    "content_hash",
    "related",
    "source",
    "anchors",
)
README_NAMES = {"readme.md"}


@dataclass
class ScanResult:
    memories: list[Memory] = field(default_factory=list)
    errors: list[MemoryFileError] = field(default_factory=list)
    duplicates: list[tuple[Memory, Memory]] = field(default_factory=list)  # (kept, reported)


# A session transcript keeps every turn and may outgrow storage.max_file_bytes (meant for hand-made notes):
# it is read whole up to this size; the index takes only its newest part (index/refresh_scan.py).
MAX_SESSION_BYTES = 64 * 1024 * 1024


class Vault:
    """One vault folder (`…/memory`), global or project."""

    def __init__(self, root: Path, scope: Scope, max_file_bytes: int, clock: Clock | None = None) -> None:
        self.root = root
        self.scope = scope
        self.max_file_bytes = max_file_bytes
        self.clock = clock or SystemClock()
        #: set on a project vault: a written text's citations become `anchors` (docs/anchors.md)
        self.anchorer: Anchorer | None = None
        #: set on a project vault: what the tool writes for the person stays trusted (vault/trust.py)
        self.ledger: TrustLedger | None = None

    def max_bytes_for(self, rel_path: PurePosixPath) -> int:
        """The largest file `load` reads at this path: session transcripts may be larger than notes."""
        is_session = bool(rel_path.parts) and rel_path.parts[0] == Layer.SESSION.folder
        return max(self.max_file_bytes, MAX_SESSION_BYTES) if is_session else self.max_file_bytes

    def __repr__(self) -> str:
        return f"Vault({self.scope.value}, {self.root})"

    @property
    def exists(self) -> bool:
        return self.root.is_dir()

    # -- paths ---------------------------------------------------------------------------------

    def abs_path(self, rel_path: PurePosixPath) -> Path:
        return self.root.joinpath(*rel_path.parts)

    def rel_path(self, path: Path) -> PurePosixPath:
        """Relative path of a file inside this vault; refuses anything that resolves outside it."""
        resolved = path.resolve()
        root = self.root.resolve()
        if not resolved.is_relative_to(root):
            raise OutsideVaultError(
                f"{path} is outside the {self.scope.value} vault ({self.root})",
                "give an id, or a path inside the vault",
            )
        return PurePosixPath(resolved.relative_to(root).as_posix())

    @staticmethod
    def is_memory_path(rel_path: PurePosixPath) -> bool:
        """Whether a vault-relative path can hold a memory: a `.md` file inside a layer folder, not in a
        dot-folder, not a dotfile or README. Loose files at the top are not in any layer."""
        parts = rel_path.parts
        return (
            len(parts) >= 2
            and rel_path.suffix == ".md"
            and not any(part.startswith(".") for part in parts)
            and rel_path.name.lower() not in README_NAMES
        )

    def walk_memory_files(self) -> Iterator[tuple[str, os.stat_result]]:
        """(vault-relative POSIX path, stat) of every memory file: the sync's walk. Plain strings and
        `os.scandir`, because pathlib objects per file cost ~85 % of an unchanged re-sync at 100k files."""
        if not self.root.is_dir():
            return
        stack = [(str(self.root), "")]
        while stack:
            folder, prefix = stack.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
            except OSError:
                continue
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                rel = prefix + entry.name
                if not _is_utf8(rel):
                    continue  # never indexed; `scan` reports it (FileNameError) so `diagnose` lists it
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, rel + "/"))
                elif prefix and entry.name.endswith(".md") and entry.name.lower() not in README_NAMES:
                    try:
                        yield rel, os.stat(entry.path)
                    except OSError:
                        continue  # vanished between the listing and the stat: the next sync sees it

    def iter_memory_paths(
        self, under: PurePosixPath | None = None, unreadable: list[OSError] | None = None
    ) -> Iterator[PurePosixPath]:
        """Every file that can hold a memory (see `is_memory_path`), in the vault or under one folder.
        A folder that cannot be listed (a path past PATH_MAX, no permission) goes to `unreadable`."""
        start = self.abs_path(under) if under is not None else self.root
        if not start.is_dir():
            return
        for folder, dirnames, filenames in os.walk(
            start, onerror=unreadable.append if unreadable is not None else None
        ):
            dirnames[:] = sorted(name for name in dirnames if not name.startswith("."))
            for name in sorted(filenames):
                # Lexical, not resolved: a symlink pointing out is reported by `load`, not followed here.
                rel = PurePosixPath(Path(os.path.relpath(Path(folder) / name, self.root)).as_posix())
                if self.is_memory_path(rel):
                    yield rel

    # -- reading -------------------------------------------------------------------------------

    def load(self, rel_path: PurePosixPath, *, read_only: bool = False) -> Memory:
        """The memory at `rel_path`. `read_only`: it will not be written back from this copy, so the simple
        frontmatter the tool writes may skip ruamel (codec.load_simple_frontmatter: ~1.3 ms a file)."""
        path = self.abs_path(rel_path)
        if not _is_utf8(rel_path.as_posix()):
            raise FileNameError(path, None, "the file name is not valid UTF-8", "rename the file (e.g. with `mv`)")
        if path.is_symlink() and not path.resolve().is_relative_to(self.root.resolve()):
            raise MemoryFileError(path, None, "symlink points outside the vault", "replace the link with the file")
        doc = read_document(path, self.max_bytes_for(rel_path), read_only=read_only)
        return memory_from_document(doc, rel_path, self.scope, mtime_of(path))

    def scan(self, *, read_only: bool = False) -> ScanResult:
        """Read every memory; a broken file is an error entry and never stops the rest. `read_only`: as `load`."""
        result = ScanResult()
        seen: dict[str, Memory] = {}
        unreadable: list[OSError] = []
        for rel_path in self.iter_memory_paths(unreadable=unreadable):
            try:
                memory = self.load(rel_path, read_only=read_only)
            except MemoryFileError as error:
                result.errors.append(error)
                continue
            except OSError as error:
                result.errors.append(_unreadable(self.abs_path(rel_path), error))
                continue
            if memory.id in seen:
                result.duplicates.append((seen[memory.id], memory))
                continue
            seen[memory.id] = memory
            result.memories.append(memory)
        result.errors.extend(_unreadable(Path(error.filename or self.root), error) for error in unreadable)
        return result

    # -- writing -------------------------------------------------------------------------------

    def unique_path(self, folder: PurePosixPath, name: str) -> PurePosixPath:
        attempt = 1
        while True:
            candidate = folder / with_clash_suffix(name, attempt)
            if not self.abs_path(candidate).exists():
                return candidate
            attempt += 1

    def create(
        self,
        *,
        title: str,
        body: str,
        layer: Layer,
        category: str | None = None,
        tags: list[str] | None = None,
        importance: int = 3,
        ttl_days: float | None = None,
        status: str = "active",
        source: str = "cli",
        extra: dict[str, Any] | None = None,
    ) -> tuple[Memory, FileChange]:
        title = title.strip()
        if not title:
            raise InvalidInputError("a memory needs a title", "give a non-empty TITLE")
        if not 1 <= importance <= 5:
            raise InvalidInputError(f"importance {importance} is out of range", "use a number from 1 to 5")
        now = self.clock.now()
        category = category or DEFAULT_CATEGORY[layer]
        folder = folder_for(layer, category)
        if not body.strip():
            body = f"# {title}\n"
        body = body if body.endswith("\n") else body + "\n"
        meta: dict[str, Any] = {
            "id": new_id(now),
            "type": layer.value,
            "scope": self.scope.value,
            "category": category,
            "title": title,
            "tags": list(tags or []),
            "status": status,
            "importance": importance,
            "created_at": now,
            "updated_at": now,
        }
        if layer is Layer.SHORT_TERM and ttl_days is not None:
            meta["expires_at"] = default_expiry(now, ttl_days)
        meta["content_hash"] = content_hash(body)
        meta["source"] = source
        for key, value in (extra or {}).items():
            meta.setdefault(key, value)
        if self.anchorer is not None and "anchors" not in meta:
            anchors = self.anchorer.anchors_for(f"{title}\n\n{body}")
            if anchors:
                meta["anchors"] = anchors_value(anchors)
        rel_path = self.unique_path(folder, memory_file_name(now, category, title))
        doc = MemoryDocument.new(meta, body)
        self._write(rel_path, doc)
        # Read-only: every write reads its file again (`_fresh_doc`), so this copy is never rendered back, and
        # the frontmatter just written is the simple form (no ruamel parse: a remember through the daemon).
        memory = self.load(rel_path, read_only=True)
        return memory, FileChange("add", rel_path, f"new {layer.value} {category}")

    def update(
        self,
        memory: Memory,
        fields: dict[str, Any],
        body: str | None = None,
        *,
        touch: bool = True,
    ) -> Memory:
        """Change fields (None removes a key) and/or the body; `updated_at` and `content_hash` follow, and
        `anchors` when the text is one the tool has not anchored yet (`reanchor`)."""
        doc = self._fresh_doc(memory)
        seen = (doc.get("content_hash"), doc.get("title"))
        for key, value in fields.items():
            if value is None:
                doc.remove(key)
            else:
                doc.set(key, value)
        if body is not None:
            doc.set_body(body if body.endswith("\n") else body + "\n")
        if not doc.changed:
            return memory
        if touch:
            doc.set("updated_at", self.clock.now())
        if "anchors" not in fields and seen != (content_hash(doc.body), doc.get("title")):
            self.reanchor(doc)
        if body is not None or "content_hash" in doc.meta:
            doc.set("content_hash", content_hash(doc.body))
        self._write(memory.rel_path, doc)
        return self.load(memory.rel_path, read_only=True)  # as `create`'s: never rendered back

    def move(
        self, memory: Memory, new_rel: PurePosixPath, fields: dict[str, Any], *, read_only: bool = False
    ) -> Memory:
        """Write the new file first, then remove the old one: a crash in between leaves a duplicate id,
        which the next scan reports and `fix` resolves, never a lost memory. `read_only`: the caller never
        writes the returned memory back (as `load`'s)."""
        doc = self._fresh_doc(memory)
        for key, value in fields.items():
            if value is None:
                doc.remove(key)
            else:
                doc.set(key, value)
        target = self.unique_path(new_rel.parent, new_rel.name)
        self._write(target, doc, origin=memory.rel_path)
        self.abs_path(memory.rel_path).unlink()
        return self.load(target, read_only=read_only)

    def archive(self, memory: Memory, status: str, reason: str, **fields: Any) -> tuple[Memory, FileChange]:
        if memory.archived:
            raise InvalidInputError(f"{memory.rel_path} is already archived", "nothing to do")
        target = archive_path_for(memory.rel_path)
        moved = self.move(memory, target, {"status": status, **fields})
        return moved, FileChange("move", moved.rel_path, reason, old_path=memory.rel_path)

    def delete(self, memory: Memory) -> FileChange:
        self.abs_path(memory.rel_path).unlink()
        if self.ledger is not None:
            self.ledger.forget([memory.rel_path.as_posix()])
        return FileChange("delete", memory.rel_path, "purged")

    def remove_stale_temps(self) -> str | None:
        """Delete the temp files writers killed mid-write left here (vault/atomic.py); a line saying so."""
        removed = 0
        for path in stale_temp_files(self.root):
            path.unlink(missing_ok=True)
            removed += 1
        return f"removed {removed} temp file(s) left by an interrupted write" if removed else None

    def reanchor(self, doc: MemoryDocument) -> bool:
        """Give a document's text its anchors now: the ones it has, kept as they are (a person's removals
        too), plus what the text newly cites (docs/anchors.md). True when `anchors` changed."""
        if self.anchorer is None:
            return False
        previous = anchors_of(doc.get("anchors"))
        text = f"{title_of(doc, PurePosixPath('memory.md'))}\n\n{doc.body}"
        anchors = self.anchorer.anchors_for(text, previous)
        if anchors == previous:
            return False
        doc.set("anchors", anchors_value(anchors))
        return True

    def anchor_hand_edits(self, rel_paths: Iterable[str]) -> list[PurePosixPath]:
        """Anchor the files among `rel_paths` whose text the tool has not seen (no `content_hash`, or one the
        body no longer matches: hand-made or hand-edited), as a refresh found them. A file that has or gets
        anchors is written with them and `content_hash` (the text is now seen: a person's later removal of
        an anchor stands until the text changes again); one that cites nothing is left untouched."""
        if self.anchorer is None:
            return []
        written: list[PurePosixPath] = []
        for path in rel_paths:
            rel = PurePosixPath(path)
            if rel.parts and rel.parts[0] == Layer.SESSION.folder:
                continue  # transcripts are what was said, not claims about the code
            try:
                memory = self.load(rel)
            except (MemoryFileError, OSError):
                continue
            doc = memory.doc
            if doc is None or doc.get("content_hash") == content_hash(doc.body):
                continue
            if not self.reanchor(doc) and not doc.get("anchors"):
                continue
            doc.set("content_hash", content_hash(doc.body))
            doc.set("updated_at", memory.updated_at)  # the hand edit's time (model.py), not this write's
            self._write(rel, doc)
            written.append(rel)
        return written

    def write_document(self, rel_path: PurePosixPath, doc: MemoryDocument, origin: PurePosixPath | None = None) -> None:
        self._write(rel_path, doc, origin)

    def _fresh_doc(self, memory: Memory) -> MemoryDocument:
        # Re-read: the person may have edited the file since it was loaded.
        return read_document(self.abs_path(memory.rel_path), self.max_file_bytes)

    def _write(self, rel_path: PurePosixPath, doc: MemoryDocument, origin: PurePosixPath | None = None) -> None:
        self.write_rendered(rel_path, doc.render(), origin=origin)

    def write_rendered(
        self, rel_path: PurePosixPath, text: str, durable: bool = True, origin: PurePosixPath | None = None
    ) -> None:
        """A memory file already rendered (`MemoryDocument.render`), written atomically within the size
        limit; `durable=False` for a bulk write that flushes once at its end (`atomic.flush_to_disk`).
        `origin`: the file its content comes from (a move); on a project vault the ledger carries the
        person's trust to the new bytes (vault/trust.py `carry`)."""
        origin = origin or rel_path
        before = self._digest(origin) if self.ledger is not None else None
        size, limit = len(text.encode("utf-8")), self.max_bytes_for(rel_path)
        if size > limit:  # the tool would write a file that it then refuses to read
            raise InvalidInputError(
                f"the memory would be {size:,} bytes, over the {limit:,}-byte limit; nothing was written",
                "split it into several memories, or raise storage.max_file_bytes",
            )
        atomic_write_text(self.abs_path(rel_path), text, durable)
        if self.ledger is not None:
            self.ledger.carry(origin, before, rel_path, file_digest(text.encode("utf-8")))

    def _digest(self, rel_path: PurePosixPath) -> str | None:
        """The hash of the file's bytes now; None when there is no file (the tool is creating it)."""
        try:
            return file_digest(self.abs_path(rel_path).read_bytes())
        except FileNotFoundError:
            return None


def anchors_value(anchors: tuple[Anchor, ...] | list[Anchor]) -> Any:
    """`anchors` as the tool writes it: one block entry per anchor, `{path, blob, verified_at}` a line each,
    so a person reads and edits it (and a diff shows which anchor changed)."""
    seq = CommentedSeq()
    for anchor in anchors:
        entry = CommentedMap()
        entry["path"] = anchor.path
        entry["blob"] = anchor.blob
        entry["verified_at"] = IsoTimestamp.of(anchor.verified_at) if anchor.verified_at else None
        seq.append(entry)
    return seq


def _unreadable(path: Path, error: OSError) -> MemoryFileError:
    """A file or folder the scan could not read, as `diagnose` lists it (never skipped in silence)."""
    if error.errno == errno.ENAMETOOLONG:
        size = len(os.fsencode(path))
        return PathTooLongError(
            path,
            None,
            f"the path is {size:,} bytes, longer than the system allows (PATH_MAX); not indexed",
            "move it to a shallower folder or shorten the folder names",
        )
    return MemoryFileError(path, None, f"cannot be read: {error.strerror or error}", "check its permissions")


def _is_utf8(name: str) -> bool:
    """os.scandir gives undecodable bytes as surrogates; such a name cannot go into SQLite, JSON or git text."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
