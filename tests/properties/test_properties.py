"""Property tests (hypothesis) for the pure parts whose mistakes lose data (docs/reliability.md, "Properties"):
the frontmatter codec, the index sync planner and the frontmatter merge driver.

Deterministic in CI (`derandomize`): the same examples every run; `AIMATE_PROPERTY_EXAMPLES` runs more."""

from __future__ import annotations

import contextlib
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aimate_memory.errors import MemoryFileError
from aimate_memory.git.merge import merge_memory_text, merge_value
from aimate_memory.index.refresh_plan import ErrorRecord, FileStat, IndexedFile, ReadResult, plan_reads, plan_refresh
from aimate_memory.vault.codec import (
    _CONFLICT_MARKER as CONFLICT_MARKER,
)
from aimate_memory.vault.codec import (
    _YAML,
    MemoryDocument,
    decode_memory_bytes,
    load_simple_frontmatter,
    parse_document,
)

EXAMPLES = int(os.environ.get("AIMATE_PROPERTY_EXAMPLES", "200"))
PROPERTY = settings(
    max_examples=EXAMPLES, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
PATH = Path("long_term/knowledge/memory.md")

# -- generated memories ---------------------------------------------------------------------------------

# Text people write: English, Chinese, emoji, punctuation YAML cares about.
_ALPHABET = st.sampled_from(list("abcxyz ABC 012 会话缓存登录测试 🙂 :#-'\",[]{}!&*|>%@`?\t"))
_WORDS = st.text(_ALPHABET, min_size=1, max_size=30).map(str.strip).filter(bool)
_KEYS = st.sampled_from(["title", "tags", "importance", "status", "source", "note", "owner", "related", "x_custom"])
_TIMES = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2090, 1, 1), timezones=st.just(timezone(timedelta(hours=8)))
).map(lambda moment: moment.replace(microsecond=0))
_VALUES = st.one_of(_WORDS, st.integers(-1000, 1000), st.booleans(), _TIMES, st.lists(_WORDS, max_size=4))
# A body line starting with seven `<` or `>` and a space is a git conflict marker: such files are refused
# by design (the codec reports them), so bodies here avoid them.
_BODIES = st.text(st.sampled_from(list("ab 中文\n#-*`> ---\r🙂")), max_size=200).filter(
    lambda body: not CONFLICT_MARKER.search(body)
)
_ID = "0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f"
_META = st.dictionaries(_KEYS, _VALUES, max_size=6).map(lambda meta: {"id": _ID, **meta})


def _as_written(body: str) -> str:
    """The body as the codec writes it: with a final newline."""
    return body if not body or body.endswith("\n") else body + "\n"


@PROPERTY
@given(meta=_META, body=_BODIES)
def test_a_document_survives_render_and_parse_and_an_untouched_parse_renders_its_bytes(meta: dict, body: str) -> None:
    text = MemoryDocument.new(meta, body).render()
    parsed = parse_document(text, PATH)
    assert dict(parsed.meta) == meta
    assert parsed.body == _as_written(body)
    assert parsed.render() == text  # nothing changed → the same bytes


@PROPERTY
@given(meta=_META, body=_BODIES, key=_KEYS, value=_VALUES)
def test_setting_one_field_changes_only_that_field(meta: dict, body: str, key: str, value: object) -> None:
    text = MemoryDocument.new(meta, body).render()
    doc = parse_document(text, PATH)
    doc.set(key, value)
    again = parse_document(doc.render(), PATH)
    assert dict(again.meta) == {**meta, key: value}
    assert again.body == parse_document(text, PATH).body


@PROPERTY
@given(data=st.binary(max_size=400) | st.text(max_size=400).map(lambda t: ("---\n" + t).encode("utf-8")))
def test_arbitrary_bytes_are_reported_never_raised_as_anything_else(data: bytes) -> None:
    try:
        parse_document(decode_memory_bytes(data, PATH, 1 << 20), PATH)
    except MemoryFileError as error:
        assert error.reason  # a typed error that says what is wrong
    with contextlib.suppress(MemoryFileError):
        parse_document(decode_memory_bytes(data, PATH, 1 << 20), PATH, read_only=True)


@PROPERTY
@given(lines=st.lists(st.tuples(_KEYS, st.text(_ALPHABET, max_size=25)), max_size=8))
def test_the_fast_frontmatter_reader_equals_ruamel_whenever_it_answers(lines: list[tuple[str, str]]) -> None:
    text = "".join(f"{key}: {raw}\n" for key, raw in lines)
    fast = load_simple_frontmatter(text)
    if fast is None:
        return  # not the simple form: ruamel reads it
    assert dict(fast) == dict(_YAML.load(text) or {})


# -- the index sync planner -----------------------------------------------------------------------------

_PATHS = st.sampled_from([f"long_term/knowledge/{name}.md" for name in "abcdefgh"])
_IDS = st.sampled_from(["id-1", "id-2", "id-3", "id-4", "id-5"])
_HASHES = st.sampled_from(["h1", "h2", "h3"])


@st.composite
def _sync_states(draw: st.DrawFn) -> tuple[dict, dict, dict, dict]:
    """An index (path → entry), files on disk (path → stat, and what reading them gives), error records."""
    indexed = {
        path: IndexedFile(path, draw(_IDS), draw(st.integers(1, 3)), 10, draw(_HASHES))
        for path in draw(st.sets(_PATHS, max_size=6))
    }
    # An index never holds one id twice (the planner reports duplicates instead of indexing them).
    seen: set[str] = set()
    indexed = {p: e for p, e in indexed.items() if not (e.id in seen or seen.add(e.id))}  # type: ignore[func-returns-value]
    disk = {path: FileStat(path, draw(st.integers(1, 3)), 10) for path in draw(st.sets(_PATHS, max_size=6))}
    contents = {path: (draw(st.one_of(st.none(), _IDS)), draw(_HASHES)) for path in disk}
    errors = {path: ErrorRecord(path, 9, 9) for path in draw(st.sets(st.sampled_from(sorted(disk) or ["-"])))}
    return indexed, disk, contents, {p: e for p, e in errors.items() if p in disk}


@PROPERTY
@given(state=_sync_states())
def test_the_sync_plan_accounts_for_every_file_and_never_keeps_an_entry_without_one(state: tuple) -> None:
    indexed, disk, contents, errors = state
    reads_plan = plan_reads(disk, indexed, errors)
    read_paths = {stat.path for stat in reads_plan.to_read}
    assert reads_plan.unchanged + len(read_paths) == len(disk)  # every file on disk: unchanged or read
    assert set(reads_plan.vanished) == set(indexed) - set(disk)
    reads = [
        ReadResult(stat, contents[stat.path][1], contents[stat.path][0], None if contents[stat.path][0] else "E\t\tx")
        for stat in reads_plan.to_read
    ]
    plan = plan_refresh(reads, indexed, reads_plan.vanished, errors)
    placed = (
        [r.path for r in plan.touch]
        + [r.path for r in plan.upsert]
        + [r.path for _, r in plan.moves]
        + [r.path for r in plan.errors]
        + [r.path for r, _ in plan.duplicates]
    )
    assert read_paths == set(placed)  # every file read has a fate
    moved_from = {old for old, _ in plan.moves}
    assert set(reads_plan.vanished) == set(plan.delete) | moved_from  # no entry outlives its file
    assert not set(plan.delete) & moved_from
    for old, read in plan.moves:
        assert indexed[old].id == read.memory_id  # a move keeps its id
    after = (
        (set(indexed) - set(plan.delete) - moved_from) | {r.path for r in plan.upsert} | {r.path for _, r in plan.moves}
    )
    ids_after = [contents[p][0] if p in read_paths and contents[p][0] else indexed[p].id for p in after]
    assert len(ids_after) == len(set(ids_after)) or plan.duplicates or plan.errors  # one entry per id


# -- the merge driver -----------------------------------------------------------------------------------

_TAGS = st.lists(st.sampled_from(["lint", "python", "ci", "缓存", "redis", "会话"]), unique=True, max_size=5)


@PROPERTY
@given(base=_TAGS, ours=_TAGS, theirs=_TAGS, key=st.sampled_from(["tags", "related"]))
def test_tag_merges_commute_keep_every_addition_and_keep_removals(base, ours, theirs, key) -> None:
    merged = merge_value(key, list(base), list(ours), list(theirs))
    assert set(merged) == set(merge_value(key, list(base), list(theirs), list(ours)))
    assert len(merged) == len(set(merged))
    assert (set(ours) - set(base)) | (set(theirs) - set(base)) <= set(merged)  # additions survive
    assert set(merged) == (set(base) & set(ours) & set(theirs)) | (set(ours) - set(base)) | (set(theirs) - set(base))
    assert merge_value(key, list(base), list(ours), list(ours)) == ours  # the same on both sides


@PROPERTY
@given(
    base=_TIMES,
    ours=_TIMES,
    theirs=_TIMES,
    counts=st.tuples(*(st.integers(0, 50),) * 3),
    levels=st.tuples(*(st.integers(1, 5),) * 2),
)
def test_field_rules_newest_oldest_highest_and_counted(base, ours, theirs, counts, levels) -> None:
    assert merge_value("updated_at", base, ours, theirs) == max(ours, theirs)
    assert merge_value("created_at", base, ours, theirs) == min(ours, theirs)
    assert merge_value("importance", 3, levels[0], levels[1]) == max(levels)
    start, a, b = counts
    merged = merge_value("access_count", start, start + a, start + b)
    assert merged == start + a + b  # every use on either device counts once


@PROPERTY
@given(meta=_META, body=_BODIES)
def test_merging_a_file_with_itself_or_an_unchanged_side_gives_the_other_bytes(meta: dict, body: str) -> None:
    base = MemoryDocument.new(meta, "base text\n").render()
    changed = MemoryDocument.new(meta, body).render()
    assert merge_memory_text(base, changed, changed).text == changed
    assert merge_memory_text(base, changed, base).text == changed
    assert merge_memory_text(base, base, changed).text == changed
