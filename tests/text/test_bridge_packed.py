"""The bridge's lexicon packed (text/bridge.py `PackedLexicon`): it answers every key, every miss and every
greedy headword reading exactly as the plain dicts it replaced, in Chinese and English."""

from __future__ import annotations

import random

import pytest

from aimate_memory.text import bridge


def _plain_headwords(run: str, table: dict[str, str]) -> list[tuple[int, str]]:
    """The greedy reading over a plain dict, longest headword first (the code before the packing)."""
    found: list[tuple[int, str]] = []
    start = 0
    while start < len(run) - 1:
        for size in range(min(bridge.LONGEST_HEADWORD, len(run) - start), 1, -1):
            if run[start : start + size] in table:
                found.append((start, run[start : start + size]))
                start += size
                break
        else:
            start += 1
    return found


@pytest.mark.parametrize("name", ["zh_en.tsv.gz", "en_zh.tsv.gz"])
def test_every_key_and_every_near_miss_answers_as_the_dict(name: str) -> None:
    plain = bridge._read_table(name)
    packed = bridge._table(name)
    assert len(plain) > 20_000
    for key, words in plain.items():
        assert key in packed and packed.get(key) == words
        for other in (key + "x", key[:-1], "x" + key, key[1:], key + bridge.MARK, ""):
            assert (other in packed) == (other in plain)
            assert packed.get(other, "-") == plain.get(other, "-")


def test_headwords_read_as_the_dict_over_chinese_and_mixed_text() -> None:
    plain = bridge._read_table("zh_en.tsv.gz")
    random.seed(38)
    keys = list(plain)
    characters = sorted({character for key in keys[:5_000] for character in key})
    runs = [
        "".join(random.choice(keys) if random.random() < 0.5 else random.choice(characters) for _ in range(40))
        for _ in range(300)
    ]
    runs += ["事件总线使用", "日志统一用输出部署前先跑冒烟测试数据库迁移用管理", "重试的时候等待多久", "我", ""]
    for run in runs:
        assert bridge.headwords(run) == _plain_headwords(run, plain), run
    assert bridge.english_of("分页") and "retry" in bridge.english_of("重试")
    assert bridge.chinese_of("events") == bridge.chinese_of("event") != []
    assert bridge.chinese_of("zzzzq") == [] and bridge.english_of("乀乁") == []
    assert "event" in bridge.in_english("事件总线使用 Kafka") and "Kafka" in bridge.in_english("事件总线使用 Kafka")
