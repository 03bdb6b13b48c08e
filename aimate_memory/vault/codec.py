"""The memory file codec: YAML frontmatter + Markdown body, round-tripped byte for byte.

Split at python-frontmatter's boundary; load and dump with ruamel.yaml round-trip (docs/design.md §4: PyYAML
drops comments, sorts keys and rewrites `on`→`true`, `0123`→`83`; a ruamel round-trip of the split
text is byte-identical). An unchanged document renders to its original bytes without re-dumping.
"""

from __future__ import annotations

import functools
import io
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from aimate_memory.errors import (
    BinaryFileError,
    BrokenYamlError,
    ConflictMarkersError,
    EncodingError,
    FileTooLargeError,
)
from aimate_memory.vault.hashing import content_hash as content_hash  # re-exported: part of the codec's surface

# The `---` line that opens and closes frontmatter, as python-frontmatter and Jekyll read it. Its pattern only:
# importing python-frontmatter for it loaded PyYAML too, 11 ms of every command's start-up.
_BOUNDARY = re.compile(r"^-{3,}\s*$", re.MULTILINE)
_CONFLICT_MARKER = re.compile(r"^(<{7}|>{7})(?: |$)", re.MULTILINE)
_BINARY_SNIFF_BYTES = 8192


class IsoTimestamp(datetime):
    """A datetime the tool writes: dumped as ISO 8601 with a `T`, unquoted (`2026-02-01T10:30:00+08:00`).

    Timestamps read from a file keep ruamel's own type and therefore their original spelling.
    """

    @classmethod
    def of(cls, value: datetime) -> IsoTimestamp:
        return cls(*value.timetuple()[:6], value.microsecond, tzinfo=value.tzinfo)


def _represent_iso_timestamp(representer: Any, value: IsoTimestamp) -> Any:
    return representer.represent_scalar("tag:yaml.org,2002:timestamp", value.isoformat())


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never fold a long title onto two lines
    yaml.allow_unicode = True
    yaml.representer.add_representer(IsoTimestamp, _represent_iso_timestamp)
    return yaml


_YAML = _yaml()


@dataclass
class MemoryDocument:
    """One memory file as text: the frontmatter mapping (ruamel round-trip) and the body.

    `meta` is empty and `has_frontmatter` false for a hand-made file without frontmatter. `original`
    holds the text it was parsed from; `render()` returns it untouched until something is changed.
    """

    meta: CommentedMap
    body: str
    has_frontmatter: bool
    original: str | None = None
    _dirty: bool = field(default=False, repr=False)

    @classmethod
    def new(cls, meta: dict[str, Any], body: str) -> MemoryDocument:
        mapping = CommentedMap()
        for key, value in meta.items():
            mapping[key] = _plain(value)
        return cls(meta=mapping, body=body, has_frontmatter=True, _dirty=True)

    def get(self, key: str, default: Any = None) -> Any:
        return self.meta.get(key, default)

    def set(self, key: str, value: Any) -> None:
        """Set one key; an existing key keeps its place and comments, a new one goes at the end."""
        value = _plain(value)
        if key in self.meta and self.meta[key] == value and type(self.meta[key]) is type(value):
            return
        self.meta[key] = value
        self.has_frontmatter = True
        self._dirty = True

    def remove(self, key: str) -> None:
        if key in self.meta:
            del self.meta[key]
            self._dirty = True

    def set_body(self, body: str) -> None:
        if body != self.body:
            self.body = body
            self._dirty = True

    @property
    def changed(self) -> bool:
        return self._dirty or self.original is None

    def render(self) -> str:
        if not self.changed and self.original is not None:
            return self.original
        body = self.body if self.body.endswith("\n") or not self.body else self.body + "\n"
        if not self.has_frontmatter:
            return body
        return f"---\n{dump_frontmatter(self.meta)}---\n{body}"


def dump_frontmatter(meta: CommentedMap) -> str:
    """The frontmatter text ruamel writes for `meta`. A mapping without comments or flow style is written
    key by key: a line in the simple form the tool writes comes from `_simple_line` (ruamel's own style
    rules, ~40x faster: rendering was nine tenths of a 20,000-record import, docs/benchmarks.md), any other
    key from ruamel dumping that key alone — a top-level block mapping's lines do not depend on each other,
    so the text is the same (tests/vault/test_codec_fast.py compares them)."""
    if not meta or not _plain_mapping(meta):
        return _ruamel_dump(meta)
    return "".join(
        _simple_line(key, value) or _ruamel_dump(CommentedMap([(key, value)])) for key, value in meta.items()
    )


def _ruamel_dump(meta: CommentedMap) -> str:
    stream = io.StringIO()
    _YAML.dump(meta, stream)
    return stream.getvalue()


def _plain_mapping(meta: CommentedMap) -> bool:
    ca = meta.ca
    return not (ca.comment or ca.items or ca.end or meta.fa.flow_style() or meta.anchor.value)


def _plain(value: Any) -> Any:
    """Tool-written values in the forms that dump cleanly: ISO timestamps, flow-style lists."""
    if isinstance(value, datetime) and not isinstance(value, IsoTimestamp):
        return IsoTimestamp.of(value)
    if isinstance(value, (list, tuple)) and not hasattr(value, "fa"):
        from ruamel.yaml.comments import CommentedSeq

        seq = CommentedSeq([_flow_item(item) for item in value])
        seq.fa.set_flow_style()
        return seq
    return value


def _flow_item(item: Any) -> Any:
    """A list item as it can be written plain in `[a, b]`, else double-quoted: ruamel writes `['?0']` as
    `[?0]`, which it then reads back as a mapping (found by tests/properties/test_properties.py)."""
    if isinstance(item, str) and (item != item.strip() or not _FLOW_ITEM.fullmatch(item)):
        from ruamel.yaml.scalarstring import DoubleQuotedScalarString

        return DoubleQuotedScalarString(item)
    return item


def parse_document(text: str, path: Path, *, read_only: bool = False) -> MemoryDocument:
    """Parse memory text. Raises a MemoryFileError subclass naming path and line; never writes.

    ``read_only``: the document will not be rendered back (the indexer), so frontmatter in the simple
    form the tool writes may skip ruamel (load_simple_frontmatter)."""
    conflict = _CONFLICT_MARKER.search(text)
    if conflict:
        line = text.count("\n", 0, conflict.start()) + 1
        raise ConflictMarkersError(
            path, line, "unresolved git conflict markers", "resolve the conflict, then save the file"
        )
    opening = _BOUNDARY.match(text)
    if not opening:
        return MemoryDocument(meta=CommentedMap(), body=text, has_frontmatter=False, original=text)
    fm_start = _line_end(text, 0)
    closing = _BOUNDARY.search(text, fm_start)
    if not closing:
        raise BrokenYamlError(
            path, 1, "frontmatter opened with '---' is never closed", "add a '---' line after the metadata"
        )
    fm_text = text[fm_start : closing.start()]
    body = text[_line_end(text, closing.start()) :]
    if read_only:
        simple = load_simple_frontmatter(fm_text)
        if simple is not None:
            return MemoryDocument(meta=simple, body=body, has_frontmatter=True, original=text)
    try:
        loaded = _YAML.load(fm_text) if fm_text.strip() else CommentedMap()
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 2 if mark is not None else 2  # +1 for 0-based, +1 for the opening '---'
        reason = f"broken YAML frontmatter: {exc.problem or exc.context}"
        raise BrokenYamlError(path, line, reason, "fix the frontmatter; the file was left untouched") from exc
    except YAMLError as exc:
        raise BrokenYamlError(path, 2, f"broken YAML frontmatter: {exc}", "fix the frontmatter") from exc
    if loaded is None:
        loaded = CommentedMap()
    if not isinstance(loaded, CommentedMap):
        raise BrokenYamlError(
            path, 2, "frontmatter is not a mapping of keys to values", "write it as `key: value` lines"
        )
    if _has_shared_nodes(loaded):
        # Nine lines of `&a [*a, *a, …]` expand to billions of items once anything walks them (JSON output
        # took > 120 s and 1.9 GB): aliases are reported, never expanded.
        raise BrokenYamlError(
            path, 2, "YAML anchors/aliases (&name, *name) are not allowed in frontmatter", "write the values out"
        )
    return MemoryDocument(meta=loaded, body=body, has_frontmatter=True, original=text)


def _has_shared_nodes(root: Any) -> bool:
    """Whether any list or mapping is anchored or reached twice; each node is visited once, so an alias
    bomb costs its size on disk, not its expansion."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        if id(node) in seen or getattr(getattr(node, "anchor", None), "value", None):
            return True
        seen.add(id(node))
        stack.extend(node.values() if isinstance(node, dict) else node)
    return False


# The simple frontmatter the tool writes: `key: value` lines, values plain, quoted without escapes, or a
# flow list of plain items. Anything else (comments, block lists, escapes, anchors…) goes to ruamel.
_SIMPLE_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: (.*))?")
# A plain scalar that cannot be anything but a scalar: no indicator first, no comment, no `: ` inside.
_PLAIN = re.compile(r"(?!-(?:\s|$))[^\s\[\]{},#&*!|>'\"%@`?:](?:(?!: )[^#])*(?<!:)")
_FLOW_ITEM = re.compile(r"[^\s\[\]{},#&*!|>'\"%@`?:-][^\[\]{},#:]*")
_DECIMAL = re.compile(r"[-+]?[0-9]+")


def load_simple_frontmatter(fm_text: str) -> CommentedMap | None:
    """Frontmatter in the simple form, loaded without ruamel's parser (1.3 ms a file: three quarters of
    a 100k-memory index build), or None when it is not that simple. Plain scalars are typed by ruamel's
    own resolver; only str, decimal int, bool, null and ISO datetimes are accepted here, so the values
    equal what ruamel loads (tests/vault/test_codec_fast.py compares them)."""
    meta = CommentedMap()
    for line in fm_text.splitlines():
        if not line.strip():
            continue
        if "\t" in line:
            return None  # YAML refuses tabs in places a plain reading would accept (`title: <tab>`)
        found = _SIMPLE_LINE.fullmatch(line)
        if found is None or found.group(1) in meta:
            return None
        value = _simple_value((found.group(2) or "").strip())
        if value is _NOT_SIMPLE:
            return None
        meta[found.group(1)] = value
    return meta


_NOT_SIMPLE = object()


def _simple_value(raw: str) -> Any:
    if raw.startswith("[") and raw.endswith("]"):
        items = [item.strip() for item in raw[1:-1].split(",")] if raw[1:-1].strip() else []
        values = [_plain_scalar(item) if _FLOW_ITEM.fullmatch(item) else _NOT_SIMPLE for item in items]
        return _NOT_SIMPLE if _NOT_SIMPLE in values else values
    if len(raw) >= 2 and raw[0] == raw[-1] == '"' and '"' not in raw[1:-1] and "\\" not in raw:
        return raw[1:-1]
    if len(raw) >= 2 and raw[0] == raw[-1] == "'" and "'" not in raw[1:-1]:
        return raw[1:-1]
    if not raw:
        return None
    return _plain_scalar(raw) if _PLAIN.fullmatch(raw) else _NOT_SIMPLE


# ruamel's implicit-type table for YAML 1.2 (first character → (tag, pattern) in order), read once: its
# `resolve` recomputes the version and the table on every call, which was 40 % of reading the tool's own
# frontmatter (12 of 29 s profiled over 100k files). `_plain_kind` applies the table as `resolve` does.
_IMPLICIT_TYPES: dict[str, list[tuple[str, re.Pattern[str]]]] = {
    first: [(tag.rsplit(":", 1)[-1], pattern) for tag, pattern in rules]
    for first, rules in _YAML.resolver.versioned_resolver.items()
}


@functools.lru_cache(maxsize=4096)  # statuses, layers, categories, importance, tags repeat across files
def _plain_kind(raw: str) -> str:
    for kind, pattern in _IMPLICIT_TYPES.get(raw[0], ()):
        if pattern.match(raw):
            return kind
    return "str"


def _plain_scalar(raw: str) -> Any:
    kind = _plain_kind(raw)
    if kind == "str":
        return raw
    if kind == "int" and _DECIMAL.fullmatch(raw):
        return int(raw)
    if kind == "bool":
        return raw.lower() == "true"
    if kind == "null":
        return None
    if kind == "timestamp" and "T" in raw:
        try:
            return datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            return _NOT_SIMPLE
    return _NOT_SIMPLE


# -- writing the simple form (dump_frontmatter) -----------------------------------------------------------
# Decided as ruamel's emitter decides (Emitter.analyze_scalar / choose_scalar_style) for one-line values of
# printable characters; anything else returns None and ruamel writes that key. The line-width fold (4096)
# is never reached: longer lines go to ruamel too.
_SIMPLE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_WHITESPACE = "\0 \t\r\n\x85\u2028\u2029"
_LEADING_INDICATORS = "#,[]{}&*!|>'\"%@`"
_FLOW_INDICATORS = ",[]{}"
_MAX_SIMPLE_LINE = 2000


def _simple_line(key: Any, value: Any) -> str | None:
    if type(key) is not str or not _SIMPLE_KEY.fullmatch(key) or _plain_kind(key) != "str":
        return None
    text = _simple_value_text(value)
    if text is None or len(text) > _MAX_SIMPLE_LINE:
        return None
    return f"{key}: {text}\n" if text else f"{key}:\n"


def _simple_value_text(value: Any) -> str | None:
    kind = type(value)
    if value is None:
        return ""
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if kind is str:
        return _scalar_text(value, flow=False)
    if kind is IsoTimestamp:
        text = value.isoformat()
        return text if _plain_kind(text) == "timestamp" else None
    if kind is CommentedSeq and value.fa.flow_style() and not (value.ca.comment or value.ca.items or value.ca.end):
        items = [_scalar_text(item, flow=True) if type(item) is str else None for item in value]
        texts = [item for item in items if item is not None]
        return "[" + ", ".join(texts) + "]" if len(texts) == len(items) else None
    return None


def _scalar_text(text: str, *, flow: bool) -> str | None:
    """A str as ruamel writes it: plain when its analysis allows and it reads back as a string, else single
    quoted; None where ruamel would double-quote (a quote inside, breaks, special characters) or it is empty."""
    if not text or not all(" " <= ch <= "~" or ("\xa0" <= ch <= "\ud7ff" or "\ue000" <= ch <= "\ufffd") for ch in text):
        return None  # empty, a break, a tab, a control or special character: ruamel's own rules
    if "\ufeff" in text:
        return None
    if _plain_allowed(text, flow) and _plain_kind(text) == "str":
        return text
    return None if "'" in text else f"'{text}'"


def _plain_allowed(text: str, flow: bool) -> bool:
    if text[0] == " " or text[-1] == " " or text.startswith(("---", "...")):
        return False
    first, second = text[0], text[1:2]
    ends_word = not second or second in _WHITESPACE
    if first in _LEADING_INDICATORS or (first == "-" and ends_word):
        return False
    if first in "?:" and (ends_word or (flow and len(text) == 1)):
        return False
    if ": " in text or text.endswith(":") or " #" in text:
        return False
    return not (flow and any(ch in _FLOW_INDICATORS for ch in text[1:]))


def decode_memory_bytes(data: bytes, path: Path, max_bytes: int) -> str:
    """Bytes → text, refusing what is not a memory file: too large, binary, not UTF-8."""
    if len(data) > max_bytes:
        raise FileTooLargeError(
            path,
            None,
            f"file is {_size_of(path, len(data))} bytes, over the {max_bytes:,}-byte limit",
            "split it, or raise storage.max_file_bytes",
        )
    if b"\x00" in data[:_BINARY_SNIFF_BYTES]:
        raise BinaryFileError(path, None, "binary file (contains NUL bytes)", "move it out of the vault")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise EncodingError(path, line, "not valid UTF-8", "re-save the file as UTF-8") from exc
    return text.removeprefix("\ufeff")


def _size_of(path: Path, read: int) -> str:
    """The file's real size: callers read only `max_bytes + 1` of it (a 50 MB file was "1048577 bytes")."""
    try:
        return f"{max(path.stat().st_size, read):,}"
    except OSError:
        return f"more than {read - 1:,}"


def read_document(path: Path, max_bytes: int, *, read_only: bool = False) -> MemoryDocument:
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    return parse_document(decode_memory_bytes(data, path, max_bytes), path, read_only=read_only)


def _line_end(text: str, start: int) -> int:
    newline = text.find("\n", start)
    return len(text) if newline < 0 else newline + 1
