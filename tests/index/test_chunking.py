from aimate_memory.index.chunking import MAX_TOKENS, chunk_memory
from aimate_memory.text.estimate import embedding_tokens

BODY_ZH = """# 选用 Redis 做会话缓存

我们决定用 Redis 做会话缓存。

## 原因

速度快，支持 TTL。

## 备选

Memcached 不支持持久化。
"""


def test_chunks_follow_headings_and_carry_context():
    chunks = chunk_memory("选用 Redis 做会话缓存", BODY_ZH)
    assert [c.heading for c in chunks] == ["", "原因", "备选"]
    assert [c.ordinal for c in chunks] == [0, 1, 2]
    assert chunks[1].embed_text == "选用 Redis 做会话缓存 › 原因\n速度快，支持 TTL。"
    assert chunks[1].search_text == "原因\n速度快，支持 TTL。"
    assert chunks[1].text == "速度快，支持 TTL。"
    # the H1 equal to the title is not repeated
    assert chunks[0].embed_text == "选用 Redis 做会话缓存\n我们决定用 Redis 做会话缓存。"


def test_long_english_body_is_split_under_the_limit():
    para = " ".join(["The deployment pipeline builds the image, runs the tests and ships it."] * 80)
    body = f"## Deploy\n\n{para}\n\nShort closing note."
    chunks = chunk_memory("Release process", body)
    assert len(chunks) > 2
    assert all(c.tokens <= MAX_TOKENS for c in chunks)
    assert all(c.embed_text.startswith("Release process › Deploy\n") for c in chunks)
    joined = " ".join(c.text for c in chunks)
    assert joined.count("ships it.") == 80


def test_long_chinese_paragraph_without_spaces_is_split():
    body = "我们在会话缓存里使用了 Redis，" * 200
    chunks = chunk_memory("缓存", body)
    assert len(chunks) > 2
    assert all(c.tokens <= MAX_TOKENS for c in chunks)


def test_paragraphs_are_packed_together():
    body = "\n\n".join(f"Paragraph number {i} is short." for i in range(5))
    chunks = chunk_memory("Notes", body)
    assert len(chunks) == 1
    assert chunks[0].text.count("\n\n") == 4


def test_hash_is_stable_and_depends_on_context():
    a = chunk_memory("Title A", "Same text.")[0]
    b = chunk_memory("Title A", "Same text.")[0]
    c = chunk_memory("Title B", "Same text.")[0]
    assert a.chunk_hash == b.chunk_hash
    assert a.chunk_hash != c.chunk_hash
    assert len(a.chunk_hash) == 64


def test_empty_and_title_only():
    assert chunk_memory("", "") == []
    assert chunk_memory("", "\n\n   \n") == []
    only = chunk_memory("Just a title", "")
    assert len(only) == 1 and only[0].embed_text == "Just a title"
    headings = chunk_memory("T", "# T\n## Todo\n")
    assert len(headings) == 1 and "Todo" in headings[0].embed_text


def test_code_fence_is_not_split_on_blank_lines():
    body = "Intro.\n\n```python\ndef f():\n\n    return 1\n```\n\nAfter."
    chunks = chunk_memory("Code", body)
    assert len(chunks) == 1
    assert "def f():\n\n    return 1" in chunks[0].text


def test_embedding_tokens_roughly_counts():
    assert embedding_tokens("") == 0
    assert embedding_tokens("hello world") == 2
    assert embedding_tokens("会话缓存") == 4
    assert embedding_tokens("a, b.") == 4


def test_token_counts_add_up_across_whitespace_so_chunking_can_keep_a_running_count():
    parts = ["We chose Redis 2024 for sessions.", "我们决定用 Redis 做会话缓存。", "x", "1234567 abcdefghijkl"]
    assert embedding_tokens("\n\n".join(parts)) == sum(embedding_tokens(p) for p in parts)


def test_many_paragraphs_fill_chunks_up_to_the_budget():
    body = "\n\n".join(f"Paragraph {i}: the deploy checklist item number {i} / 第{i}条部署检查。" for i in range(300))
    chunks = chunk_memory("Checklist", body)
    assert len(chunks) > 1 and all(c.tokens <= MAX_TOKENS for c in chunks)
    assert "\n\n".join(c.text for c in chunks) == body  # nothing lost or repeated


def test_a_chunks_count_is_that_of_what_it_embeds():
    # chunk_memory adds the context's count to the text's instead of counting embed_text again.
    body = "\n\n".join(
        [
            "## 缓存 Cache",
            "我们决定用Redis做会话缓存，TTL 为 3600 秒。" * 12,
            "The session cache holds 1234567 keys at peak; eviction is allkeys-lru." * 9,
            "```\nredis-cli CONFIG SET maxmemory-policy allkeys-lru\n```",
            "### 备选 Alternatives",
            "Memcached 不支持持久化。" * 40,
        ]
    )
    for title in ("选用 Redis 做会话缓存", "Session cache", ""):
        for budget in (40, 120, MAX_TOKENS):
            chunks = chunk_memory(title, body, budget)
            assert len(chunks) > 1
            assert [c.tokens for c in chunks] == [embedding_tokens(c.embed_text) for c in chunks]
