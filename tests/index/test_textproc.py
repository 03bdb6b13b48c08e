import pytest
import sqlean as sqlite3

from aimate_memory.index import textproc
from aimate_memory.index.textproc import fts_document, fts_query, query_terms
from aimate_memory.text.scripts import script_of, scripts_in
from aimate_memory.text.words import tokens


@pytest.fixture()
def db():
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{textproc.FTS_TOKENIZE}')")
    docs = [
        "选用 Redis 做会话缓存，因为它支持 TTL",
        "We decided to cache sessions in Redis because it supports expiry",
        "我的猫喜欢晒太阳",
        "Running the nightly backups on the NAS",
        "Café au lait every morning",
        "猫",
    ]
    conn.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)", [(i, fts_document(d)) for i, d in enumerate(docs)])
    yield conn
    conn.close()


def search(conn, text):
    q = fts_query(text)
    if q is None:
        return []
    return [r[0] for r in conn.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t)", (q,))]


def test_tokens_latin_lowercased_and_cjk_bigrams():
    assert tokens("Hello, World 42") == ["hello", "world", "42"]
    assert tokens("会话缓存") == ["会话", "话缓", "缓存", "存"]
    assert tokens("用Redis做") == ["用", "redis", "做"]
    assert tokens("") == []


def test_chinese_query_finds_chinese_text(db):
    assert search(db, "会话缓存")[0] == 0
    assert search(db, "Redis 缓存")[0] == 0


def test_single_cjk_character_query(db):
    hits = search(db, "猫")
    assert set(hits) == {2, 5}


def test_english_stemming_by_fts_porter(db):
    assert search(db, "run backup")[0] == 3
    assert search(db, "decide caching")[0] == 1


def test_diacritics_folded(db):
    assert search(db, "cafe") == [4]


def test_stopwords_dropped_but_not_when_all_stopwords():
    assert [t for t, _ in query_terms("what is the cache for?")] == ["cache"]
    assert [t for t, _ in query_terms("the who")] == ["the", "who"]
    assert [t for t, _ in query_terms("我的猫")] == ["我的", "的猫"]


@pytest.mark.parametrize(
    "hostile",
    [
        '"',
        '""',
        "NEAR(a b",
        "a* OR -b",
        "col:term",
        "'; DROP TABLE t; --",
        "(((",
        "^start",
        "AND OR NOT",
        "x" * 10_000,
        "缓" * 10_000,
        "\x00\x01",
        "a\u200bb",
        "🙂🙂",
        'NEAR("x" "y", 3)',
    ],
)
def test_hostile_queries_never_raise(db, hostile):
    q = fts_query(hostile)
    assert q is None or q.startswith('"')
    search(db, hostile)  # must not raise


def test_empty_queries_are_none():
    assert fts_query("") is None
    assert fts_query("   ") is None
    assert fts_query("!!! ??? ...") is None


def test_long_query_is_capped():
    q = fts_query(" ".join(f"w{i}" for i in range(5000)))
    assert q is not None and q.count(" OR ") == textproc.MAX_QUERY_TERMS - 1


def test_every_term_is_quoted():
    q = fts_query('say "hi" NEAR(x) 猫')
    assert q == '"say" OR "hi" OR "near" OR "x" OR "猫"*'


def test_script_of():
    assert script_of("hello world") == "latin"
    assert script_of("") == "latin"
    assert script_of("你好，世界") == "cjk"
    assert script_of("我们决定在会话缓存中使用 Redis") == "cjk"
    assert script_of("Use Redis for the session cache, 缓存") == "latin"
    assert script_of("Redis 缓存 session cache 设计") == "mixed"
    assert script_of("こんにちは") == "cjk"
    assert scripts_in("Redis 缓存") == frozenset({"latin", "cjk"})
    assert scripts_in("缓存") == frozenset({"cjk"})
    assert scripts_in("") == frozenset({"latin"})


def test_common_terms_match_keeps_every_term_under_the_budget():
    terms = [("cache", False), ("redis", False), ("会话", False)]
    assert textproc.common_terms_match(terms, [10, 5, 3], budget=100) == '"cache" OR "redis" OR "会话"'
    assert textproc.common_terms_match([], [], budget=100) is None


def test_common_terms_stop_choosing_candidates_over_the_budget():
    terms = [("handle", False), ("deployment", False), ("chat", False), ("缓", True)]
    # the rarest terms that fit the budget, in rarity order; "handle" is a stopword for this index
    match = textproc.common_terms_match(terms, [43_000, 6_000, 7_000, 500], budget=20_000)
    assert match == '"缓"* OR "deployment" OR "chat"'


def test_only_common_terms_are_all_required_and_the_rarest_is_the_fallback():
    terms = [("dependency", False), ("upgrades", False), ('say "hi"', False)]
    assert textproc.common_terms_match(terms, [40_000, 43_000, 50_000], budget=20_000) == (
        '"dependency" AND "upgrades" AND "say ""hi"""'
    )
    assert textproc.rarest_term_match(terms, [40_000, 43_000, 50_000]) == '"dependency"'
    assert textproc.rarest_term_match([], []) is None
