"""A hit's neighbours in its conversation (retrieval/neighbours.py): the pure placement, then through the real
index and search, in Chinese and English."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from aimate_memory.clock import FixedClock
from aimate_memory.errors import InvalidInputError
from aimate_memory.retrieval import neighbours
from aimate_memory.retrieval.neighbours import nearest_first, place_neighbours, support
from aimate_memory.system import MemorySystem
from aimate_memory.system.records import HitRecord
from aimate_memory.vault.filters import MemoryFilter
from aimate_memory.vault.layout import Layer
from tests.conftest import in_process

START = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


def test_the_best_results_stay_and_neighbours_of_the_first_come_next() -> None:
    ranked = list("abcdefghij")
    plan = place_neighbours(ranked, {"a": ["x", "y"], "b": ["h", "a"], "z": ["w"]}, after=3, anchors=2)
    assert plan[:3] == [("a", None), ("b", None), ("c", None)]  # never displaced, `a` not repeated
    assert plan[3:6] == [("x", "a"), ("y", "a"), ("h", None)]  # h was ranked lower: moved up as itself
    assert [key for key, _ in plan[6:]] == ["d", "e", "f", "g", "i", "j"]
    assert place_neighbours(ranked, {}, after=3) == [(key, None) for key in ranked]
    assert place_neighbours(["a"], {"a": ["b"]}, after=7) == [("a", None), ("b", "a")]


def test_both_sides_nearest_first_the_earlier_first() -> None:
    assert nearest_first(["b1", "b2"], ["a1"]) == ["b1", "a1", "b2"]
    assert nearest_first([], ["a1", "a2"]) == ["a1", "a2"]
    assert nearest_first([], []) == []


def test_a_memory_gains_a_share_of_its_best_neighbours_score() -> None:
    scores = np.array([1.0, 0.3, 0.5, 0.4])
    raised = support(scores, {1: [0, 2], 2: [1], 3: []}, weight=0.2)
    assert raised.tolist() == pytest.approx([1.0, 0.3 + 0.2 * 1.0, 0.5 + 0.2 * 0.3, 0.4])
    assert scores.tolist() == [1.0, 0.3, 0.5, 0.4]  # read before any is raised; the input is not changed
    assert support(scores, {}, weight=0.2).tolist() == scores.tolist()


CONVERSATION_EN = [
    "Joanna: I finally finished my first full screenplay and printed it last Friday.",
    "Nate: Congrats! How does it feel?",
    "Joanna: A rollercoaster. Now I am going to submit it to some film festivals.",
    "Nate: My turtles learned to wait for food at the glass.",
]
CONVERSATION_ZH = [
    "小林：我终于写完了第一部完整的剧本，上周五打印出来了。",
    "小周：恭喜！感觉怎么样？",
    "小林：心情起伏很大。接下来我要把它投给几个电影节。",
    "小周：我家的乌龟学会了在玻璃边等吃的。",
]
# Ranked below the conversation's first line (two of its words, not four), so it fills the first places.
FILLER = [f"Note {n}: the screenplay printed badly, 剧本 打印 第{n}版。" for n in range(9)]


@pytest.fixture
def system(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")  # keyword search: the placement is what is tested
    clock = FixedClock(START)
    with MemorySystem.open(global_only=True, clock=clock) as system:
        system.init()
        for thread, lines in (("chat:en", CONVERSATION_EN), ("chat:zh", CONVERSATION_ZH)):
            for line in lines:
                clock.advance(minutes=1)  # a thread is read in the order its memories were created
                system.add(line[:40], line, layer=Layer.LONG_TERM, thread=thread)
        for line in FILLER:
            system.add(line[:40], line, layer=Layer.LONG_TERM)  # no thread
        system.refresh()
        yield system


@pytest.mark.parametrize(
    ("query", "found", "neighbour"),
    [
        ("finished screenplay printed Friday", CONVERSATION_EN[0], CONVERSATION_EN[1]),
        ("写完 剧本 打印", CONVERSATION_ZH[0], CONVERSATION_ZH[1]),
    ],
)
def test_a_hits_neighbours_in_its_thread_follow_the_best_results(system, query, found, neighbour) -> None:
    results = system.search(query, 12).results
    titles = [hit.memory.title for hit in results]
    assert titles[0] == found[:40] and len(results) == 12
    context = [hit for hit in results if hit.context_of is not None]
    assert context and context[0].memory.title == neighbour[:40]  # the next line of the conversation
    assert context[0].context_of == results[0].memory.id == HitRecord.of(context[0]).to_dict()["context_of"]
    assert all(titles.index(hit.memory.title) >= 7 for hit in context)  # after the best seven
    assert "context_of" not in HitRecord.of(results[0]).to_dict()  # the shape that crosses processes


def test_short_lists_and_filters_keep_their_meaning(system) -> None:
    top = system.search("finished screenplay printed Friday", 5).results
    assert all(hit.context_of is None for hit in top)  # five results: only the best
    neighbour = next(m for m in system.list(MemoryFilter()) if m.title == CONVERSATION_EN[1][:40])
    system.remove(neighbour.id)  # archived: a filtered search does not bring it back as context
    system.refresh()
    results = system.search("finished screenplay printed Friday", 12, where=MemoryFilter(statuses=("active",))).results
    assert CONVERSATION_EN[1][:40] not in [hit.memory.title for hit in results]


def test_the_thread_is_stored_and_refused_when_it_is_not_one_line(system) -> None:
    memory = system.add("Another line", "Joanna: thanks!", thread=" chat:en ")
    assert system.read(memory.id).thread == "chat:en"
    with pytest.raises(InvalidInputError):
        system.add("Bad", "x", thread="two\nlines")
    with pytest.raises(InvalidInputError):
        system.add("Bad", "x", thread="   ")


def test_the_cli_writes_a_thread_and_shows_neighbours_as_context(
    cli, initialized, home: Path, isolated_git: None
) -> None:
    for line in [*CONVERSATION_EN[:2], *CONVERSATION_ZH[:2]]:
        thread = "chat:en" if line.isascii() else "chat:zh"
        added = cli("mem", "add", line[:40], "--body", line, "--thread", thread, "--json")
        assert added.code == 0 and added.json()["thread"] == thread
    # The unthreaded notes around them, added in process as `aimate mem add` adds them (nine CLI processes,
    # ~0.5 s of CPU each, for what the searches below read).
    with in_process(home) as system:
        for line in FILLER:
            system.add(line[:40], line)
    for query, neighbour in (
        ("finished screenplay printed Friday", CONVERSATION_EN[1]),
        ("写完 剧本 打印", CONVERSATION_ZH[1]),
    ):
        found = cli("mem", "search", query, "--limit", "12", "--json").json()
        context = [hit for hit in found if "context_of" in hit]
        assert [hit["title"] for hit in context] == [neighbour[:40]]
        assert "in their conversation" in cli("mem", "search", query, "--limit", "12").out
    explained = cli("mem", "search", "Joanna screenplay Nate Congrats", "--explain").out
    assert "neighbours" in explained  # each of the two lines matches: each supports the other (its part of the score)
    with_context = cli("mem", "search", "screenplay Congrats feel", "--explain").out  # one result, one neighbour
    assert "in their conversation" in with_context and "relevance 0.000" not in with_context  # no formula of its own
    refused = cli("mem", "add", "Bad", "--body", "x", "--thread", "two\nlines")
    assert refused.code != 0 and "one line" in refused.err


def test_a_captured_sentence_keeps_its_conversation(system) -> None:
    english = system.remember("We deploy on Fridays after the smoke tests", thread="claude:s1")
    chinese = system.remember("记住：周五之前冻结发布", thread="claude:s1")
    assert english.memory.thread == chinese.memory.thread == "claude:s1"
    assert system.read(english.memory.id).thread == "claude:s1"
    with pytest.raises(InvalidInputError):
        system.remember("We use pnpm", thread="a\nb")


# The answer line shares one word with the question and sits right after the line that shares the other;
# an unthreaded note shares the same one word and is shorter, so it ranks higher on its own.
SUPPORT_CASES = [
    (
        "screenplay festivals",
        ["Joanna: I finished my screenplay last Friday.", "Joanna: Next I will send it off to a few festivals."],
        "Festivals were loud this year.",
    ),
    ("剧本 电影节", ["小林：我上周五写完了剧本。", "小林：接下来我要把它投给几个电影节。"], "今年电影节很热闹。"),
]


@pytest.mark.parametrize(("query", "conversation", "loner"), SUPPORT_CASES)
def test_a_reply_is_ranked_by_the_line_it_answers_too(
    home: Path, monkeypatch: pytest.MonkeyPatch, query, conversation, loner
) -> None:
    monkeypatch.setenv("AIMATE_EMBEDDING__ENABLED", "false")
    clock = FixedClock(START)
    with MemorySystem.open(global_only=True, clock=clock) as system:
        system.init()
        system.add(loner[:30], loner, layer=Layer.LONG_TERM)
        for line in conversation:
            clock.advance(minutes=1)
            system.add(line[:30], line, layer=Layer.LONG_TERM, thread="chat:1")
        system.refresh()

        def order() -> list[str]:
            return [hit.memory.title for hit in system.search(query, 3).results]

        def support_shown() -> dict[str, float]:
            hits = [HitRecord.of(hit).to_dict(explain=True) for hit in system.search(query, 3).results]
            return {
                hit["title"]: hit["factors"]["neighbour_part"] for hit in hits if "neighbour_part" in hit["factors"]
            }

        assert order() == [conversation[0][:30], conversation[1][:30], loner[:30]]
        shown = support_shown()  # --explain says why the reply moved up; the loner has no neighbours
        assert shown.get(conversation[1][:30], 0.0) > 0 and loner[:30] not in shown
        monkeypatch.setattr(neighbours, "SUPPORT", 0.0)
        assert order() == [conversation[0][:30], loner[:30], conversation[1][:30]]  # alone, the reply ranks lower
        assert support_shown() == {}


def test_thread_sides_come_from_one_read_nearest_first(system) -> None:
    index = system.store.index_for(system.global_vault)
    rows = {memory.title: memory for memory in system.list(MemoryFilter())}
    rowid = dict(index.conn.execute("SELECT path, rowid FROM memories").fetchall())
    key = {title: rowid[memory.rel_path.as_posix()] for title, memory in rows.items()}
    first, second, third, fourth = (key[line[:40].strip()] for line in CONVERSATION_EN)
    filler = key[FILLER[0][:40].strip()]
    sides = index.thread_sides([first, third, filler], span=2)
    assert set(sides) == {first, third}  # a memory outside any thread has no sides
    assert sides[first] == ((), (second, third))
    assert sides[third] == ((second, first), (fourth,))
    assert index.thread_sides([], span=1) == {}
