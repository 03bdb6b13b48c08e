"""The people's table (cli/render.text_table): a pure function of rows and a width, no terminal needed."""

from rich.cells import cell_len

from aimate_memory.cli.render import text_table

HEADERS = ("id", "title", "tags")
ROWS = [
    ("a1b2c3d4", "Use Redis for the session cache", "redis, cache"),
    ("e5f6a7b8", "选用 Redis 做会话缓存", "缓存"),
]


def test_piped_rows_are_whole_and_aligned_in_cells() -> None:
    lines = text_table(HEADERS, ROWS, width=None)
    assert lines[1].startswith("a1b2c3d4  Use Redis for the session cache  redis")
    assert "选用 Redis 做会话缓存" in lines[2]
    # the tags column starts at the same cell on every line, a Chinese character counting two
    starts = [cell_len(line[: line.rindex(tag)]) for line, tag in zip(lines, ("tags", "redis", "缓存"), strict=True)]
    assert len(set(starts)) == 1


def test_a_terminal_cuts_the_cuttable_columns_widest_first() -> None:
    lines = text_table(HEADERS, ROWS, width=40, cuttable=("title", "tags"))
    assert all(cell_len(line) <= 40 for line in lines)
    assert lines[1].startswith("a1b2c3d4  ") and "…" in lines[1]  # the id is never cut
    assert all(cell_len(line) <= 40 for line in text_table(HEADERS, ROWS, width=30, cuttable=("title", "tags")))


def test_a_cut_never_splits_a_wide_character_or_goes_below_the_narrowest() -> None:
    rows = [("id", "会话缓存" * 10, "x")]
    line = text_table(("id", "title", "tags"), rows, width=20, cuttable=("title",))[1]
    title = line.split("  ")[1]
    assert title == "会话缓存…"  # 10 cells of room: four wide characters and the ellipsis, no half character
    # nothing left to cut: wider than the terminal rather than unreadable
    assert cell_len(text_table(HEADERS, ROWS, width=5, cuttable=("title",))[1]) > 5


def test_newlines_and_runs_of_spaces_in_a_cell_stay_on_one_line() -> None:
    lines = text_table(("id", "title"), [("1", "two\nlines   here")], width=None)
    assert lines[1] == "1   two lines here"
