"""Split a memory (title + Markdown body) into chunks for embedding and keyword search.

Chunks follow the document's structure: a new chunk starts at every heading; within a section,
paragraphs (blank-line separated) are packed together while they fit in :data:`MAX_TOKENS`; a paragraph
too long on its own is split at sentence ends, and a sentence too long on its own at word/character
boundaries. Fenced code blocks are never split inside unless they alone exceed the limit.

Token counts are :func:`aimate_memory.text.estimate.embedding_tokens`: the embedding models' WordPiece /
SentencePiece counts, estimated on the high side so a chunk never gets truncated by the model.

Every chunk carries its context for the embedder: ``embed_text`` is ``title › heading path`` on the
first line followed by the chunk's text, so a paragraph under "## Why not Memcached" in a memory titled
"选用 Redis 做会话缓存" is embedded knowing what it is about. The keyword side (``search_text``) holds
the heading path and the chunk's own text; the title is indexed once per memory in its own FTS column.
``chunk_hash`` is the sha256 of ``embed_text``: the embedding cache key (with the embedder identity).

HTML comments (``<!-- … -->``) are not memory content: they are notes to whoever edits the file (the vault
template's core files hold only a heading and a commented example, which a search must never offer as the
user's preference). :func:`strip_comments` removes them before anything is chunked, so they reach neither
FTS nor the vectors; a body that held comments and nothing but headings besides is a placeholder and
gives no chunks at all (a memory that never had a body stays searchable by its title).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from aimate_memory.text.estimate import TOKEN_PIECES, embedding_tokens
from aimate_memory.vault.markdown import FENCE, strip_comments

MAX_TOKENS = 256
#: Bumped whenever the chunking rules change (part of the index identity: chunks must be rebuilt).
# 2: HTML comments stripped, comment-only placeholders give no chunks. 3: a letter run ends at a CJK character
# (text/estimate.py), so "用Redis做缓存"-style text counts every character and chunks come out smaller.
CHUNKER_VERSION = "aimate-chunk-3"

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？；;])\s+|(?<=[。！？；])")


@dataclass(frozen=True)
class Chunk:
    ordinal: int  # 0-based position in the memory
    text: str  # the chunk's own text (what a snippet shows)
    embed_text: str  # context line + text: what goes to the embedder
    search_text: str  # heading path + text: what goes (pre-tokenized) to FTS
    heading: str  # heading path, " › "-joined ("" before the first heading)
    tokens: int  # estimated model tokens of embed_text
    chunk_hash: str  # sha256 hex of embed_text


def _split_long(text: str, budget: int) -> list[str]:
    """Split one paragraph that exceeds the budget: at sentence ends, then at token boundaries."""
    sentences = [s for s in _SENTENCE_END.split(text) if s.strip()]
    out: list[str] = []
    cur = ""
    for s in sentences:
        if embedding_tokens(s) > budget:
            if cur:
                out.append(cur)
                cur = ""
            out.extend(_hard_split(s, budget))
            continue
        joined = f"{cur} {s}".strip() if cur and not _is_cjk_edge(cur, s) else cur + s
        if embedding_tokens(joined) <= budget:
            cur = joined
        else:
            out.append(cur)
            cur = s
    if cur:
        out.append(cur)
    return out


def _is_cjk_edge(a: str, b: str) -> bool:
    return bool(a) and bool(b) and ord(a[-1]) > 0x2E80 and ord(b[0]) > 0x2E80


def _hard_split(text: str, budget: int) -> list[str]:
    out: list[str] = []
    start = 0
    n = 0
    last_end = 0
    for m in TOKEN_PIECES.finditer(text):
        cost = embedding_tokens(m.group())
        if n + cost > budget and last_end > start:
            out.append(text[start:last_end].strip())
            start = m.start()
            n = 0
        n += cost
        last_end = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return [p for p in out if p]


def _blocks(body: str) -> list[tuple[list[str], str]]:
    """(heading path, paragraph) pairs in document order; code fences stay one paragraph."""
    path: list[tuple[int, str]] = []
    out: list[tuple[list[str], str]] = []
    para: list[str] = []
    in_fence = False

    def flush() -> None:
        text = "\n".join(para).strip()
        if text:
            out.append(([h for _, h in path], text))
        para.clear()

    for line in body.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            para.append(line)
            continue
        if in_fence:
            para.append(line)
            continue
        m = _HEADING.match(line)
        if m:
            flush()
            level = len(m.group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, m.group(2).strip()))
            out.append(([h for _, h in path], ""))  # marks a section start, even if empty
            continue
        if not line.strip():
            flush()
            continue
        para.append(line)
    flush()
    return out


def _counted(parts: list[str]) -> list[tuple[str, int]]:
    return [(part, embedding_tokens(part)) for part in parts]


def chunk_memory(title: str, body: str, max_tokens: int = MAX_TOKENS) -> list[Chunk]:
    """Chunks of a memory, in order. Empty title and body → no chunks.

    A leading H1 equal to the title (the usual layout of a memory file) is not repeated in the context.
    """
    title = " ".join(title.split())
    body = body or ""
    text = strip_comments(body)
    sections: list[tuple[str, list[str]]] = []  # (heading path, paragraphs)
    blocks = _blocks(text)
    if text != body and not any(para for _, para in blocks):
        return []  # a placeholder: only comments (and headings) — nothing a search should offer
    for path, para in blocks:
        if path and title and path[0] == title:
            path = path[1:]
        heading = " › ".join(path)
        if not para:  # a heading starts a section
            sections.append((heading, []))
            continue
        if not sections:
            sections.append((heading, []))
        sections[-1][1].append(para)

    pieces: list[tuple[str, str, int]] = []  # (heading, text, tokens of title › heading + text)
    for heading, paras in sections:
        context = " › ".join(p for p in (title, heading) if p)
        context_tokens = embedding_tokens(context)
        budget = max(32, max_tokens - context_tokens - 1)
        cur, cur_tokens = "", 0  # a running count: re-estimating the joined text was quadratic (45 % of a build)
        for para in paras:
            para_tokens = embedding_tokens(para)
            parts = [(para, para_tokens)] if para_tokens <= budget else _counted(_split_long(para, budget))
            for part, part_tokens in parts:
                if cur and cur_tokens + part_tokens <= budget:
                    cur, cur_tokens = f"{cur}\n\n{part}", cur_tokens + part_tokens
                else:
                    if cur:
                        pieces.append((heading, cur, context_tokens + cur_tokens))
                    cur, cur_tokens = part, part_tokens
        if cur:
            pieces.append((heading, cur, context_tokens + cur_tokens))

    if not pieces:
        # Only a title and/or headings: still searchable by them.
        headings = " › ".join(dict.fromkeys(h for h, _ in sections if h))
        if title or headings:
            pieces.append((headings, "", embedding_tokens(" › ".join(p for p in (title, headings) if p))))

    chunks: list[Chunk] = []
    # A chunk's count is its context's plus its text's: they are joined by whitespace, which ends every piece
    # (embedding_tokens), so nothing is counted twice (re-estimating embed_text had been 7 % of a build).
    for heading, text, tokens in pieces:
        context = " › ".join(p for p in (title, heading) if p)
        embed_text = f"{context}\n{text}" if context and text else (context or text)
        search_text = f"{heading}\n{text}" if heading and text else (heading or text)
        if not embed_text.strip():
            continue
        chunks.append(
            Chunk(
                ordinal=len(chunks),
                text=text,
                embed_text=embed_text,
                search_text=search_text,
                heading=heading,
                tokens=tokens,
                chunk_hash=hashlib.sha256(embed_text.encode("utf-8")).hexdigest(),
            )
        )
    return chunks
