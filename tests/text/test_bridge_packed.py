"""The bridge's lexicon packed (text/bridge.py `PackedLexicon`): it answers every key, every miss and every
greedy headword reading exactly as the plain dicts it replaced, in Chinese and English; kept in the model cache,
it is read back as packed, and a damaged, forged or unwritable copy costs the packing, never an answer."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from pathlib import Path

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


@pytest.fixture
def kept_in(tmp_path: Path) -> Iterator[Path]:
    """The packed tables kept in a fresh folder (as `embedder_for` keeps them in the model cache)."""
    folder = tmp_path / "models"
    folder.mkdir()
    bridge.keep_packed_in(folder)
    bridge._table.cache_clear()
    yield folder
    bridge.keep_packed_in(None)
    bridge._table.cache_clear()


@pytest.mark.parametrize("name", ["zh_en.tsv.gz", "en_zh.tsv.gz"])
def test_the_kept_form_is_read_back_as_packed_and_a_damaged_one_is_packed_again(
    name: str, kept_in: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    packed = bridge._table(name)
    (kept,) = kept_in.glob(f"lexicon-{name.split('.')[0]}-*.packed")
    assert kept.stat().st_mode & 0o777 == 0o600
    read = bridge.PackedLexicon.from_bytes(kept.read_bytes())
    assert (read._head, read._buckets, read._words, read._ends) == (
        packed._head,
        packed._buckets,
        packed._words,
        packed._ends,
    )
    # The next process reads it and packs nothing: packing is made to fail, and the answers are the same.
    bridge._table.cache_clear()
    with monkeypatch.context() as patched:
        patched.setattr(bridge.PackedLexicon, "__init__", lambda *args: pytest.fail("packed again"))
        again = bridge._table(name)
    some = list(bridge._read_table(name).items())[::500]
    assert [again.get(key) for key, _ in some] == [words for _, words in some]
    assert ("重试" in again and "retry" in again.get("重试")) if name == "zh_en.tsv.gz" else again.get("event")
    # Cut short or forged: packed again from the shipped text, answering the same, and kept whole again.
    for damaged in (kept.read_bytes()[:-7], b"1 2 3 4\nxyz", b"\xff" * 64):
        kept.write_bytes(damaged)
        bridge._table.cache_clear()
        assert [bridge._table(name).get(key) for key, _ in some] == [words for _, words in some]
        assert bridge.PackedLexicon.from_bytes(kept.read_bytes())._words == packed._words


def test_a_missing_or_unwritable_folder_costs_the_packing_not_an_error(kept_in: Path) -> None:
    kept_in.rmdir()  # a home without a model cache: no folder is made for the lexicon alone
    assert "event" in bridge.in_english("事件总线使用 Kafka") and not kept_in.exists()
    bridge._table.cache_clear()
    kept_in.write_text("a file where the folder would be")  # as unwritable as a read-only folder, even for root
    assert "event" in bridge.in_english("事件总线使用 Kafka")
    assert bridge.chinese_of("event") and kept_in.is_file()
    assert list(kept_in.parent.glob("*.tmp")) == []


def test_an_older_kept_form_is_removed_when_the_new_one_is_written(kept_in: Path) -> None:
    older = kept_in / "lexicon-en_zh-0000000000000000.packed"
    older.write_bytes(b"an older form")
    bridge._table("en_zh.tsv.gz")
    assert not older.exists() and len(list(kept_in.glob("lexicon-en_zh-*.packed"))) == 1


def test_a_forged_form_whose_buckets_point_past_the_words_is_refused() -> None:
    packed = bridge._table("en_zh.tsv.gz")
    data = packed.to_bytes()
    assert data is not None and bridge.PackedLexicon.from_bytes(data)._words == packed._words
    header, _, body = data.partition(b"\n")
    _, text_size, starts_size, _ = (int(field) for field in header.split())
    starts = body[text_size : text_size + starts_size]
    forged = (
        header
        + b"\n"
        + body[:text_size]
        + starts[:-4]
        + (10**6).to_bytes(4, sys.byteorder)
        + body[text_size + starts_size :]
    )
    with pytest.raises(ValueError, match="buckets"):
        bridge.PackedLexicon.from_bytes(forged)


def test_a_home_without_a_model_cache_keeps_the_lexicon_in_its_own_folder(tmp_path: Path) -> None:
    """A keyword-only home (no `state/models`) packed the lexicon again in every prompt hook and search (0.2-0.3 s
    of CPU each): it is kept in `state/lexicon` (0700, made when first written), read back by the next process;
    a home with a model cache keeps it there, and a home whose state folder is missing gets none made."""
    from aimate_memory.config import load_config
    from aimate_memory.embedding.lazy import embedder_for

    keyword_only = load_config(tmp_path, None, env={"AIMATE_EMBEDDING__ENABLED": "false"})
    state = tmp_path / "state"
    try:
        embedder_for(keyword_only, tmp_path / "missing" / "state")
        bridge._table.cache_clear()
        assert "retry" in bridge.english_of("重试") and not (tmp_path / "missing").exists()
        state.mkdir()
        embedder_for(keyword_only, state)
        assert not (state / "lexicon").exists()  # made only when a table is kept
        bridge._table.cache_clear()
        assert "retry" in bridge.english_of("重试") and "重试" in bridge.chinese_of("retry")
        assert (state / "lexicon").stat().st_mode & 0o777 == 0o700 and not (state / "models").exists()
        kept = sorted(path.name.split("-")[1] for path in (state / "lexicon").glob("lexicon-*.packed"))
        assert kept == ["en_zh", "zh_en"]
        assert all(path.stat().st_mode & 0o777 == 0o600 for path in (state / "lexicon").iterdir())
        bridge._table.cache_clear()  # the next process reads it: packing is made to fail
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(bridge.PackedLexicon, "__init__", lambda *args: pytest.fail("packed again"))
            assert "retry" in bridge.english_of("重试")
        (state / "models").mkdir()  # models built since: the lexicon goes beside them
        embedder_for(keyword_only, state)
        bridge._table.cache_clear()
        assert bridge.chinese_of("event") and len(list((state / "models").glob("lexicon-en_zh-*.packed"))) == 1
    finally:
        bridge.keep_packed_in(None)
        bridge._table.cache_clear()
