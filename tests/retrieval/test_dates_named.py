"""A date the query names (retrieval/when.py): what is read as a day or a month, in English and Chinese, and a
search that ranks what was said then above the same words said another time, with `--explain`'s parts adding
up to the score shown."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.embedding.lazy import LazyEmbedder
from aimate_memory.retrieval.when import DAY_SLACK, MONTH_SLACK, Period, closeness, named_periods
from aimate_memory.system.records import SCORE_PARTS, HitRecord
from aimate_memory.vault.layout import Layer
from tests.retrieval.conftest import system_with


def _utc(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("What did Melanie paint on October 13, 2023?", _utc(2023, 10, 13), _utc(2023, 10, 14)),
        ("as mentioned on 3 June, 2023", _utc(2023, 6, 3), _utc(2023, 6, 4)),
        ("the retro on the 1st of March 2024", _utc(2024, 3, 1), _utc(2024, 3, 2)),
        ("deploy notes 2023-06-03", _utc(2023, 6, 3), _utc(2023, 6, 4)),
        ("what came up in August 2023", _utc(2023, 8, 1), _utc(2023, 9, 1)),
        ("decisions of Dec. 2022", _utc(2022, 12, 1), _utc(2023, 1, 1)),
        ("2023年6月3日说了什么", _utc(2023, 6, 3), _utc(2023, 6, 4)),
        ("2023年6月3号的部署", _utc(2023, 6, 3), _utc(2023, 6, 4)),
        ("2023年 12 月的决定", _utc(2023, 12, 1), _utc(2024, 1, 1)),
    ],
)
def test_a_day_or_a_month_named_with_its_year_is_read(query: str, start: datetime, end: datetime) -> None:
    (period,) = named_periods(query)
    assert (period.start, period.end) == (start, end)
    assert period.slack == (DAY_SLACK if end - start == DAY_SLACK / 7 else MONTH_SLACK)


@pytest.mark.parametrize(
    "query",
    [
        "what did we decide in 2023",  # a bare year ranks nothing apart
        "the meeting on June 3",  # which year is a guess
        "6月3日的会议",
        "what did we decide last week",  # relative to when it was asked: not a memory's date
        "上周的决定",
        "February 30, 2023",  # not a date
        "2023-13-01 build",
        "May I ask about the retry logic",
    ],
)
def test_no_date_is_read_where_none_is_named(query: str) -> None:
    assert named_periods(query) == []


def test_two_dates_are_both_read_in_order() -> None:
    found = named_periods("between 2023-06-03 and July 2023")
    june_3, july = (_utc(2023, 6, 3), _utc(2023, 6, 4)), (_utc(2023, 7, 1), _utc(2023, 8, 1))
    assert [(p.start, p.end) for p in found] == [june_3, july]


def test_closeness_is_one_inside_and_falls_to_zero_over_the_slack() -> None:
    day = Period(_utc(2023, 6, 3), _utc(2023, 6, 4), DAY_SLACK)
    noon = _utc(2023, 6, 3).timestamp() + 12 * 3600
    times = np.array([noon, _utc(2023, 6, 4).timestamp() + 3.5 * 86400, _utc(2023, 5, 20).timestamp()])
    assert closeness([day], times) == pytest.approx([1.0, 0.5, 0.0])
    assert closeness([], times) == pytest.approx([0.0, 0.0, 0.0])


LINES = [
    ("We moved the nightly backup to 02:00", "备份改到凌晨两点执行"),
    ("The nightly backup now runs at 03:00", "备份现在凌晨三点执行"),
    ("The nightly backup runs at 04:00 from now on", "以后备份凌晨四点执行"),
]
QUESTIONS = [
    ("nightly backup time", "nightly backup time on {:%B %-d, %Y}"),
    ("备份时间", "{0.year}年{0.month}月{0.day}日 备份时间"),
]


@pytest.mark.slow
@pytest.mark.parametrize("language", [0, 1])
def test_what_was_said_on_the_named_day_ranks_first(loaded: LazyEmbedder, tmp_path: Path, language: int) -> None:
    """Three memories on one subject said weeks apart: naming the day of the one ranked second without a date
    brings it first, with a date part in its score and none in the others'."""
    clock = FixedClock(_utc(2026, 1, 5))
    undated, dated = QUESTIONS[language]
    with system_with(tmp_path / "home", loaded, clock) as system:
        for lines in LINES:
            system.add(lines[language], lines[language], layer=Layer.LONG_TERM)
            clock.advance(days=33)
        system.refresh()
        before = system.search(undated, 3).results
        second = before[1].memory
        found = system.search(dated.format(second.created_at), 3).results
    assert all("date_part" not in hit.factors for hit in before)
    assert found[0].memory.id == second.id, [(hit.memory.title, hit.score) for hit in found]
    assert "date_part" in found[0].factors and all("date_part" not in hit.factors for hit in found[1:])
    for hit in found:
        shown = HitRecord.of(hit).to_dict(explain=True)
        parts = sum(shown["factors"].get(key, 0.0) for key, _ in SCORE_PARTS)
        assert parts == pytest.approx(shown["score"], abs=1e-5)
