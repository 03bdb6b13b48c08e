"""What a refresh compares: the vault's files as they are now (walked and read) and as the index last saw them.

Reading a file is where privacy rules apply: files under `privacy.exclude_paths` are not seen, memories
holding a `privacy.sensitive_keywords` entry are recorded as excluded instead of indexed. A session
transcript may outgrow `storage.max_file_bytes`: it is read (up to `Vault.max_bytes_for`) and only its
newest `max_file_bytes` are indexed, never reported as an error.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import datetime
from pathlib import PurePosixPath

import sqlean

from aimate_memory.errors import MemoryFileError
from aimate_memory.index.refresh_plan import ErrorRecord, FileStat, IndexedFile, ReadResult
from aimate_memory.vault.codec import decode_memory_bytes, parse_document
from aimate_memory.vault.model import Memory, memory_from_document
from aimate_memory.vault.store import Vault

TURN_START = "\n### "  # a turn block's header line (sessions/transcript.py)


class VaultScan:
    """The vault's memory files as a refresh sees them."""

    def __init__(self, vault: Vault, sensitive_keywords: Iterable[str] = (), exclude_globs: Iterable[str] = ()) -> None:
        self.vault = vault
        self.sensitive_keywords = [keyword.lower() for keyword in sensitive_keywords if keyword]
        self.exclude_globs = list(exclude_globs)

    def walk(self, only: set[str] | None = None) -> dict[str, FileStat]:
        """Every memory file's stat, or those among `only` (see `expand_scope`), excluded paths left out."""
        disk: dict[str, FileStat] = {}
        found = self.vault.walk_memory_files() if only is None else self._existing(only)
        for posix, stat in found:
            if self.exclude_globs and any(PurePosixPath(posix).match(glob) for glob in self.exclude_globs):
                continue
            disk[posix] = FileStat(posix, stat.st_mtime_ns, stat.st_size)
        return disk

    def _existing(self, paths: set[str]) -> Iterator[tuple[str, os.stat_result]]:
        """Memory files among `paths` as they are now; a folder yields the memory files under it."""
        for posix in sorted(paths):
            rel = PurePosixPath(posix)
            path = self.vault.abs_path(rel)
            candidates = self.vault.iter_memory_paths(rel) if path.is_dir() else [rel]
            for candidate in candidates:
                try:
                    if self.vault.is_memory_path(candidate):
                        yield candidate.as_posix(), os.stat(self.vault.abs_path(candidate))
                except OSError:
                    continue

    def read(self, stat: FileStat) -> tuple[ReadResult, Memory | None]:
        """The file's hash and parsed memory, or the error (kind, line, reason) to record instead."""
        rel = PurePosixPath(stat.path)
        path = self.vault.abs_path(rel)
        limit = self.vault.max_bytes_for(rel)
        try:
            with path.open("rb") as handle:
                data = handle.read(limit + 1)
        except OSError as exc:
            return ReadResult(stat, "", None, f"OSError\t\t{exc}"), None
        file_hash = hashlib.sha256(data).hexdigest()
        try:
            if path.is_symlink() and not path.resolve().is_relative_to(self.vault.root.resolve()):
                raise MemoryFileError(path, None, "symlink points outside the vault", "replace the link")
            text = decode_memory_bytes(data, path, limit)
            doc = parse_document(text, path, read_only=True)
            mtime = datetime.fromtimestamp(stat.mtime_ns / 1e9).astimezone().replace(microsecond=0)
            memory = memory_from_document(doc, rel, self.vault.scope, mtime)
        except MemoryFileError as exc:
            return ReadResult(stat, file_hash, None, f"{exc.kind}\t{exc.line or ''}\t{exc.reason}"), None
        if self._is_sensitive(memory):
            reason = "matches privacy.sensitive_keywords; not indexed"
            return ReadResult(stat, file_hash, None, f"Excluded\t\t{reason}"), None
        if len(data) > self.vault.max_file_bytes:  # only a session transcript gets here (Vault.max_bytes_for)
            memory = replace(memory, body=newest_part(memory.body, self.vault.max_file_bytes))
        return ReadResult(stat, file_hash, memory.id), memory

    def _is_sensitive(self, memory: Memory) -> bool:
        if not self.sensitive_keywords:
            return False
        text = memory.text.lower()
        return any(keyword in text for keyword in self.sensitive_keywords)


def newest_part(body: str, max_bytes: int) -> str:
    """The end of a transcript that fits in `max_bytes` (UTF-8), from its first whole turn (a `### ` line).
    why the end: turns that left the session window were summarized into short-term memories, which are
    indexed on their own; the newest turns hold the window, which nothing else indexes."""
    data = body.encode("utf-8")
    if len(data) <= max_bytes:
        return body
    tail = data[len(data) - max_bytes :].decode("utf-8", errors="ignore")
    turn = tail.find(TURN_START)
    if turn >= 0:
        return tail[turn + 1 :]
    line = tail.find("\n")
    return tail[line + 1 :] if line >= 0 else tail


INDEXED_COLUMNS = "SELECT path, id, mtime_ns, size, file_hash FROM memories"


def indexed_files(conn: sqlean.Connection) -> dict[str, IndexedFile]:
    """The files the index holds memories of, by path, as they were when read."""
    return {row[0]: IndexedFile._make(row) for row in conn.execute(INDEXED_COLUMNS)}


def indexed_where(conn: sqlean.Connection, column: str, values: Iterable[str]) -> dict[str, IndexedFile]:
    """`indexed_files` of the memories whose `column` ("path" or "id", both unique) is one of `values`: what a
    refresh of named files needs of the index (their own rows, and the holders of the ids they now say).
    Read whole, the rows of 10,000 memories cost each such refresh ~22 ms of CPU, two a `remember`
    (docs/benchmarks.md, "Remember and the daemon's memory at 10,000")."""
    if column not in ("path", "id"):
        raise ValueError(f"not a unique column of memories: {column}")
    rows = conn.execute(f"{INDEXED_COLUMNS} WHERE {column} IN (SELECT value FROM json_each(?))", (json_list(values),))
    return {row[0]: IndexedFile._make(row) for row in rows}


def json_list(values: Iterable[str]) -> str:
    return json.dumps(sorted(set(values)), ensure_ascii=False)


def only_files(paths: Iterable[str]) -> bool:
    """Whether every changed path names a memory file, none a folder (`expand_scope`)."""
    return all(path.strip("/").endswith(".md") for path in paths)


def error_records(conn: sqlean.Connection) -> dict[str, ErrorRecord]:
    """The files the index recorded as unreadable or excluded, by path, as they were when read."""
    rows = conn.execute("SELECT path, mtime_ns, size, kind FROM file_errors")
    return {row[0]: ErrorRecord(row[0], row[1], row[2], row[3] or "") for row in rows}


def expand_scope(paths: Iterable[str], known: list[str]) -> set[str]:
    """Changed paths → the files to look at: a path that is not a `.md` file is a folder (renamed, moved
    out, deleted) and stands for every known file under it and every file now in it."""
    scope: set[str] = set()
    for path in paths:
        path = path.strip("/")
        if path.endswith(".md"):
            scope.add(path)
            continue
        prefix = path + "/"
        scope.update(known_path for known_path in known if known_path.startswith(prefix))
        scope.add(path)  # the folder itself: `VaultScan.walk` looks at what is in it now
    return scope
