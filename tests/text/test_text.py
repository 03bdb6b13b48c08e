"""The bottom-layer text module: stopwords read from data, the two named token estimates."""

from __future__ import annotations

from importlib import resources

from aimate_memory.index.textproc import query_terms
from aimate_memory.text.estimate import embedding_tokens, prompt_tokens
from aimate_memory.text.stopwords import EN_STOPWORDS, ZH_STOPWORDS


def test_stopwords_are_the_data_files_lines() -> None:
    folder = resources.files("aimate_memory.text") / "data"
    for words, name in ((EN_STOPWORDS, "stopwords_en.txt"), (ZH_STOPWORDS, "stopwords_zh.txt")):
        lines = folder.joinpath(name).read_text(encoding="utf-8").splitlines()
        assert words == {line for line in lines if line and not line.startswith("#")}
    assert {"the", "and"} <= EN_STOPWORDS and {"的", "了"} <= ZH_STOPWORDS
    assert not any(word != word.strip() or word.startswith("#") for word in EN_STOPWORDS | ZH_STOPWORDS)


def test_a_query_drops_stopwords_from_the_data_in_both_languages() -> None:
    assert query_terms("the cache of the session") == [("cache", False), ("session", False)]
    assert [term for term, _ in query_terms("我的缓存")] == ["我的", "的缓", "缓存"]  # bigrams are kept
    assert query_terms("的") == [("的", True)]  # all stopwords: kept rather than an empty query


def test_each_estimate_counts_english_and_chinese_and_adds_over_whitespace() -> None:
    for estimate in (embedding_tokens, prompt_tokens):
        assert estimate("") == 0
        assert estimate("hello world") == 2
        assert estimate("会话缓存") == 4
        assert estimate("Redis 会话缓存, 7d") == estimate("Redis") + estimate("会话缓存,") + estimate("7d")


def test_an_english_word_stuck_to_chinese_does_not_swallow_it() -> None:
    # Han characters are letters: "Lisa从爷爷…" had been one letter run (4 tokens; MiniLM counts 13).
    for estimate in (embedding_tokens, prompt_tokens):
        assert estimate("用Redis做缓存") == 1 + 1 + 1 + 2
        assert estimate("Lisa从爷爷奶奶那里收到礼物。") == 1 + 11 + 1
