"""Three-way merge of one memory file, and the git merge driver that runs it (docs/design.md §8).

Registered by `init_vault_repo` as `merge.aimate-memory.driver = "<python> -m aimate_memory.git.merge
%O %A %B %P"` and selected by `.gitattributes` (`*.md merge=aimate-memory`). Git calls it with the
base, ours (also the output file) and theirs; exit 0 = merged, 1 = conflicts left marked in %A.

Rules, frontmatter (key by key, ours' key order and comments kept):
- `tags`, `related`: union of what each side added; an item one side removed (and the other did not
  re-add) stays removed.
- `updated_at`, `accessed_at`: the newest; `created_at`: the oldest.
- `importance`: the highest. `access_count`: base + both sides' increments (≥ the highest).
- `content_hash`: follows the merged body.
- any other key: ours, unless only theirs changed it from base (then theirs, deletion included).
Body: `git merge-file` three-way; a real conflict leaves `<<<<<<< ours` … `>>>>>>> theirs` markers.
A file without frontmatter, or with a side that does not parse, is merged as plain text.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from aimate_memory.errors import MemoryFileError
from aimate_memory.git.command import GIT
from aimate_memory.vault.codec import MemoryDocument, content_hash, parse_document

__all__ = ["MergeResult", "main", "merge_frontmatter", "merge_memory_text", "merge_text"]

SET_KEYS = ("tags", "related")
NEWEST_KEYS = ("updated_at", "accessed_at")
OLDEST_KEYS = ("created_at",)
HIGHEST_KEYS = ("importance",)
COUNTER_KEYS = ("access_count",)
_MISSING = object()
LABELS = ("ours", "base", "theirs")


@dataclass(frozen=True)
class MergeResult:
    text: str
    conflicts: int  # 0 = clean

    @property
    def clean(self) -> bool:
        return self.conflicts == 0


# -- pure rules -------------------------------------------------------------------------------------


def _as_list(value: Any) -> list[Any] | None:
    if value is _MISSING or value is None:
        return None
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _merge_set(base: Any, ours: Any, theirs: Any) -> Any:
    """Three-way union: what either side added is kept, what one side removed stays removed. Ours'
    sequence is edited in place so its flow/block style and comments survive."""
    b = _as_list(base) or []
    o = _as_list(ours) or []
    t = _as_list(theirs) or []
    removed_by_theirs = [item for item in b if item not in t]
    added_by_theirs = [item for item in t if item not in b and item not in o]
    result = [item for item in o if item not in removed_by_theirs] + added_by_theirs
    if isinstance(ours, list):
        ours[:] = result
        return ours
    return result


def _as_datetime(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _pick_time(ours: Any, theirs: Any, newest: bool) -> Any:
    o, t = _as_datetime(ours), _as_datetime(theirs)
    if o is None:
        return theirs if t is not None else ours
    if t is None:
        return ours
    if newest:
        return theirs if t > o else ours
    return theirs if t < o else ours


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    try:
        return float(str(value))
    except (TypeError, ValueError):
        return None


def _pick_highest(ours: Any, theirs: Any) -> Any:
    o, t = _number(ours), _number(theirs)
    if o is None:
        return theirs if t is not None else ours
    if t is None:
        return ours
    return theirs if t > o else ours


def _merge_counter(base: Any, ours: Any, theirs: Any) -> Any:
    b, o, t = _number(base), _number(ours), _number(theirs)
    if b is not None and o is not None and t is not None and o >= b and t >= b:
        total = b + (o - b) + (t - b)
        return int(total) if isinstance(ours, int) and isinstance(theirs, int) else total
    return _pick_highest(ours, theirs)


def merge_value(key: str, base: Any, ours: Any, theirs: Any) -> Any:
    """The merged value of one frontmatter key; `_MISSING` means the key is absent."""
    if key in COUNTER_KEYS and ours is not _MISSING and theirs is not _MISSING:
        # Before the equality shortcut: one use on each device is two uses, though both files say base + 1.
        return _merge_counter(base, ours, theirs)
    if _same(ours, theirs):
        return ours
    if ours is _MISSING or theirs is _MISSING:
        # Added or deleted on one side only.
        if _same(ours, base):
            return theirs
        return ours
    if key in SET_KEYS:
        return _merge_set(base, ours, theirs)
    if key in NEWEST_KEYS:
        return _pick_time(ours, theirs, newest=True)
    if key in OLDEST_KEYS:
        return _pick_time(ours, theirs, newest=False)
    if key in HIGHEST_KEYS:
        return _pick_highest(ours, theirs)
    return theirs if _same(ours, base) else ours


def _same(a: Any, b: Any) -> bool:
    if a is _MISSING or b is _MISSING:
        return a is b
    try:
        if a != b:
            return False
    except Exception:  # odd YAML values (naive vs aware datetimes, …) compare as different
        return False
    kinds = (list, datetime, bool)
    return type(a) is type(b) or any(isinstance(a, k) and isinstance(b, k) for k in kinds[:2])


def merge_frontmatter(base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    """Merge `theirs` into `ours` IN PLACE by the rules above (ours is a ruamel CommentedMap, so its
    key order and comments survive). `content_hash` is left for the caller: it follows the body."""
    for key in list(ours.keys()):
        if key == "content_hash":
            continue
        merged = merge_value(key, base.get(key, _MISSING), ours[key], theirs.get(key, _MISSING))
        if merged is _MISSING:
            del ours[key]
        elif merged is not ours[key]:
            ours[key] = merged
    previous: str | None = None
    for key in theirs:
        if key not in ours and key != "content_hash":
            merged = merge_value(key, base.get(key, _MISSING), _MISSING, theirs[key])
            if merged is not _MISSING:
                _insert_after(ours, previous, key, merged)
        if key in ours:
            previous = key


def _insert_after(mapping: dict[str, Any], previous: str | None, key: str, value: Any) -> None:
    if hasattr(mapping, "insert"):
        keys = list(mapping.keys())
        position = keys.index(previous) + 1 if previous in keys else len(keys)
        mapping.insert(position, key, value)
    else:
        mapping[key] = value


# -- text merges ------------------------------------------------------------------------------------


def merge_text(base: str, ours: str, theirs: str, labels: tuple[str, str, str] = LABELS) -> MergeResult:
    """Plain three-way text merge by `git merge-file` (conflicts marked in the result)."""
    if ours == theirs or theirs == base:
        return MergeResult(ours, 0)
    if ours == base:
        return MergeResult(theirs, 0)
    import git  # gitpython over the system git; imported here so the pure rules need no git

    with tempfile.TemporaryDirectory(prefix="aimate-merge-") as folder:
        files = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_bytes(text.encode("utf-8"))
            files.append(str(path))
        command = [*GIT, "merge-file", "-p", "-L", labels[0], "-L", labels[1], "-L", labels[2], *files]
        status, out, err = git.Git().execute(
            command,
            with_extended_output=True,
            with_exceptions=False,
            stdout_as_string=False,
            strip_newline_in_stdout=False,
        )
    if status < 0 or status > 127:
        message = err.decode("utf-8", "replace") if isinstance(err, bytes) else str(err)
        raise RuntimeError(f"git merge-file failed: {message.strip()}")
    merged = out.decode("utf-8", "surrogateescape") if isinstance(out, bytes) else str(out)
    return MergeResult(merged, int(status))


def _split(text: str, path: Path) -> MemoryDocument | None:
    try:
        return parse_document(text, path)
    except MemoryFileError:
        return None


def merge_memory_text(base: str, ours: str, theirs: str, path: str = "memory.md") -> MergeResult:
    """Merge three versions of one memory file: frontmatter by rule, body by `git merge-file`."""
    if ours == theirs or theirs == base:
        return MergeResult(ours, 0)
    if ours == base:
        return MergeResult(theirs, 0)
    where = Path(path)
    ours_doc, theirs_doc = _split(ours, where), _split(theirs, where)
    base_doc = _split(base, where) if base else MemoryDocument.new({}, "")
    if (
        ours_doc is None
        or theirs_doc is None
        or base_doc is None
        or not ours_doc.has_frontmatter
        or not theirs_doc.has_frontmatter
    ):
        return merge_text(base, ours, theirs)
    base_body = base_doc.body if base else ""
    body = merge_text(base_body, ours_doc.body, theirs_doc.body)

    merged = ours_doc
    merge_frontmatter(base_doc.meta, merged.meta, theirs_doc.meta)
    if body.text == ours_doc.body:
        pass  # ours' content_hash stays
    elif body.text == theirs_doc.body and "content_hash" in theirs_doc.meta:
        merged.meta["content_hash"] = theirs_doc.meta["content_hash"]
    elif body.clean and "content_hash" in merged.meta:
        merged.meta["content_hash"] = content_hash(body.text)
    merged._dirty = True
    merged.set_body(body.text)

    # Byte stability: when the merge equals one side, return that side's exact bytes.
    theirs_fresh = _split(theirs, where)
    if theirs_fresh is not None and _same_meta(merged.meta, theirs_fresh.meta) and body.text == theirs_fresh.body:
        return MergeResult(theirs, body.conflicts)
    ours_fresh = _split(ours, where)
    if ours_fresh is not None and _same_meta(merged.meta, ours_fresh.meta) and body.text == ours_fresh.body:
        return MergeResult(ours, body.conflicts)
    return MergeResult(merged.render(), body.conflicts)


def _same_meta(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if list(a.keys()) != list(b.keys()):
        return False
    return all(_same(a[key], b[key]) for key in a)


# -- the git merge driver ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """`python -m aimate_memory.git.merge %O %A %B [%P]`: write the merge into %A; 0 clean, 1 conflict."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 3:
        print("usage: python -m aimate_memory.git.merge BASE OURS THEIRS [PATH]", file=sys.stderr)
        return 2
    base_file, ours_file, theirs_file = (Path(arg) for arg in args[:3])
    shown = args[3] if len(args) > 3 else str(ours_file)
    try:
        base, ours, theirs = (
            file.read_bytes().decode("utf-8").removeprefix("\ufeff") for file in (base_file, ours_file, theirs_file)
        )
    except UnicodeDecodeError:
        # Not UTF-8 text: leave it to git's own merge of the raw files.
        import git

        status = git.Git().execute(
            [
                *GIT,
                "merge-file",
                "-L",
                "ours",
                "-L",
                "base",
                "-L",
                "theirs",
                str(ours_file),
                str(base_file),
                str(theirs_file),
            ],
            with_exceptions=False,
            with_extended_output=True,
        )[0]
        return 0 if status == 0 else 1
    result = merge_memory_text(base, ours, theirs, shown)
    ours_file.write_bytes(result.text.encode("utf-8", "surrogateescape"))
    if not result.clean:
        print(
            f"aimate-memory merge: {result.conflicts} body conflict(s) left marked in {shown}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
