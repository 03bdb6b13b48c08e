"""Sync planning without a disk: what is read, touched, moved, removed, reported."""

from __future__ import annotations

from aimate_memory.index.refresh_plan import (
    ErrorRecord,
    FileStat,
    IndexedFile,
    ReadResult,
    plan_reads,
    plan_refresh,
)


def stat(path: str, mtime: int = 1, size: int = 10) -> FileStat:
    return FileStat(path, mtime, size)


def indexed(path: str, id_: str, mtime: int = 1, size: int = 10, file_hash: str = "h") -> IndexedFile:
    return IndexedFile(path, id_, mtime, size, file_hash)


def test_unchanged_stat_is_never_read_and_vanished_paths_are_listed() -> None:
    disk = {"a.md": stat("a.md"), "b.md": stat("b.md", mtime=2), "c.md": stat("c.md")}
    index = {"a.md": indexed("a.md", "A"), "b.md": indexed("b.md", "B"), "gone.md": indexed("gone.md", "G")}
    plan = plan_reads(disk, index, {})
    assert [s.path for s in plan.to_read] == ["b.md", "c.md"]
    assert plan.unchanged == 1 and plan.vanished == ["gone.md"]


def test_broken_file_with_same_stat_is_not_reread_but_an_edit_is() -> None:
    errors = {"x.md": ErrorRecord("x.md", 1, 10)}
    assert plan_reads({"x.md": stat("x.md")}, {}, errors).unchanged == 1
    assert [s.path for s in plan_reads({"x.md": stat("x.md", mtime=5)}, {}, errors).to_read] == ["x.md"]


def test_same_hash_is_a_touch_new_hash_an_upsert() -> None:
    index = {"a.md": indexed("a.md", "A", file_hash="h1"), "b.md": indexed("b.md", "B", file_hash="h1")}
    reads = [ReadResult(stat("a.md", 2), "h1", "A"), ReadResult(stat("b.md", 2), "h2", "B")]
    plan = plan_refresh(reads, index, [], {})
    assert [r.path for r in plan.touch] == ["a.md"]
    assert [r.path for r in plan.upsert] == ["b.md"]


def test_same_id_at_new_path_is_a_move_without_reindexing() -> None:
    index = {"short_term/notes/a.md": indexed("short_term/notes/a.md", "A", file_hash="h")}
    reads = [ReadResult(stat("long_term/knowledge/a.md"), "h", "A")]
    plan = plan_refresh(reads, index, ["short_term/notes/a.md"], {})
    assert [(old, r.path) for old, r in plan.moves] == [("short_term/notes/a.md", "long_term/knowledge/a.md")]
    assert plan.upsert == [] and plan.delete == []


def test_moved_and_edited_is_a_move_plus_upsert() -> None:
    index = {"old.md": indexed("old.md", "A", file_hash="h")}
    plan = plan_refresh([ReadResult(stat("new.md"), "h2", "A")], index, ["old.md"], {})
    assert len(plan.moves) == 1 and [r.path for r in plan.upsert] == ["new.md"]


def test_vanished_without_a_new_home_is_deleted() -> None:
    plan = plan_refresh([], {"gone.md": indexed("gone.md", "G")}, ["gone.md"], {})
    assert plan.delete == ["gone.md"]


def test_copied_file_with_the_same_id_is_a_duplicate_and_the_original_stays() -> None:
    index = {"a.md": indexed("a.md", "A")}
    plan = plan_refresh([ReadResult(stat("copy.md"), "h", "A")], index, [], {})
    assert [(r.path, holder) for r, holder in plan.duplicates] == [("copy.md", "a.md")]
    assert plan.upsert == [] and plan.delete == []


def test_two_new_files_with_one_id_keep_the_first() -> None:
    reads = [ReadResult(stat("b.md"), "h", "X"), ReadResult(stat("a.md"), "h", "X")]
    plan = plan_refresh(reads, {}, [], {})
    assert [r.path for r in plan.upsert] == ["a.md"]
    assert [r.path for r, _ in plan.duplicates] == ["b.md"]


def test_errors_are_kept_apart_and_fixed_files_clear_their_error() -> None:
    errors = {"fixed.md": ErrorRecord("fixed.md", 1, 1)}
    reads = [
        ReadResult(stat("broken.md"), "h", None, "BrokenYamlError\t3\tbad"),
        ReadResult(stat("fixed.md"), "h", "F"),
    ]
    plan = plan_refresh(reads, {}, [], errors)
    assert [r.path for r in plan.errors] == ["broken.md"]
    assert plan.cleared_errors == ["fixed.md"] and [r.path for r in plan.upsert] == ["fixed.md"]


def test_an_indexed_file_that_takes_anothers_id_is_the_duplicate() -> None:
    # Found by tests/properties: a.md edited to hold b.md's id took over b.md's entry, and b.md (unchanged,
    # still on disk) dropped out of the index.
    index = {"a.md": indexed("a.md", "id-1"), "b.md": indexed("b.md", "id-2")}
    plan = plan_refresh([ReadResult(stat("a.md", 2), "h9", "id-2")], index, [], {})
    assert [(r.path, holder) for r, holder in plan.duplicates] == [("a.md", "b.md")]
    assert not plan.upsert and not plan.delete


def test_two_files_swapping_ids_are_no_duplicates() -> None:
    index = {"a.md": indexed("a.md", "id-1"), "b.md": indexed("b.md", "id-2")}
    reads = [ReadResult(stat("a.md", 2), "h8", "id-2"), ReadResult(stat("b.md", 2), "h9", "id-1")]
    plan = plan_refresh(reads, index, [], {})
    assert not plan.duplicates and sorted(r.path for r in plan.upsert) == ["a.md", "b.md"]


def test_a_duplicate_id_is_read_again_when_its_stat_is_unchanged() -> None:
    # A move seen half-way records the new file as a duplicate of the old one; once the old file is gone,
    # the new one must be indexed although its bytes never changed (it had stayed out of the index for good).
    disk = {"archive/a.md": stat("archive/a.md")}
    duplicate = {"archive/a.md": ErrorRecord("archive/a.md", 1, 10, "DuplicateId")}
    plan = plan_reads(disk, {"long_term/a.md": indexed("long_term/a.md", "A")}, duplicate)
    assert [s.path for s in plan.to_read] == ["archive/a.md"] and plan.vanished == ["long_term/a.md"]
    broken = {"archive/a.md": ErrorRecord("archive/a.md", 1, 10, "FrontmatterError")}
    assert plan_reads(disk, {}, broken).to_read == []  # the same broken bytes are not read again
