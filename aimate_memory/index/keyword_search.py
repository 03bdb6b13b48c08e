"""Keyword candidates: chunks holding the query's terms, best first by bm25 (FTS5 over title, tags, body)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlean

from aimate_memory.index.candidates import Candidates
from aimate_memory.index.store import IndexStore
from aimate_memory.index.textproc import FTS_TOKENIZE, common_terms_match, fts_query_from_terms, rarest_term_match

# bm25 weights of the title, tags and body columns: no column is boosted. FTS5 adds the weighted counts
# of a term over the columns, so a title counts as more text about the memory; the title is usually the
# memory's gist or its first words (a "lead"), which the repeat emphasises. Measured with titles that are
# the start of the text (the development benchmark, docs/benchmarks.md; LoCoMo turn R@5/R@10, MADial
# R@10): title ×3, tags ×2 gave
# .571/.682, .738 (zh), .791 (en); no boost .583/.687, .738, .800. Leaving a copied title out of the
# title column instead gave .573/.699, .731, .798.
BM25_WEIGHTS = (1.0, 1.0, 1.0)
# Postings a keyword query may rank (textproc.common_terms_match): bm25 costs 1–1.5 µs per matching chunk
# inside a search, and an OR of everyday words matched 30–65k chunks of a 100k-memory vault (65–80 ms a
# query). 5k postings keep a keyword search inside docs/design.md §12's 20 ms with the rest of the query (at 10k
# postings the 100k bench measured keyword p50/p95 17.5/27 ms).
KEYWORD_POSTINGS_BUDGET = 5_000


@dataclass(frozen=True)
class TermMatches:
    """Per query term: how many chunks of the index hold it, and which of some given chunks do."""

    documents: np.ndarray  # int64 per term: chunks of the index holding it (exact)
    rows: int  # chunks in the index
    matched: np.ndarray  # bool [term, chunk]: whether each given chunk holds the term


class KeywordSearch:
    def __init__(self, store: IndexStore) -> None:
        self.store = store
        self._tables_on: sqlean.Connection | None = None  # the connection holding the query temp tables
        # The last terms' token counts and what they were read at (_token_counts): a search asks twice.
        self._counted: tuple[tuple[Any, ...], list[list[int]]] | None = None

    def candidates(self, terms: Sequence[tuple[str, bool]], limit: int) -> Candidates:
        """Chunks holding query `terms` (textproc.query_terms), best first by bm25 (score = -bm25).

        bm25 costs 1–1.5 µs per matching chunk, so a large index bounds the work: terms common in it stop
        choosing candidates (textproc.common_terms_match), and when every term is common the newest
        matching chunks are the candidates, all with the same score (chunk rowids follow `updated_at`,
        see refresh_apply): for words found everywhere keyword relevance hardly tells chunks apart, so the
        vector score and recency rank them — and FTS5 skips bm25, whose idf alone reads every doclist."""
        if not terms:
            return Candidates.empty()
        postings = self.postings(terms)
        match = common_terms_match(terms, postings, KEYWORD_POSTINGS_BUDGET)
        if min(postings) <= KEYWORD_POSTINGS_BUDGET:
            return self._bm25(match, limit)
        found = self._newest(match, limit)
        if not len(found.scores):  # no chunk holds every term: the rarest one decides
            found = self._newest(rarest_term_match(terms, postings), limit)
        return found

    def postings(self, terms: Sequence[tuple[str, bool]]) -> list[int]:
        """How many chunks hold each term (an upper bound for prefix terms). When the index is too small
        for the answer to matter, its size stands in for every term (no lookup)."""
        conn = self.store.conn
        chunks = conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM chunks").fetchone()[0]
        if chunks * len(terms) <= KEYWORD_POSTINGS_BUDGET:
            return [chunks] * len(terms)
        return [min(counts, default=0) for counts in self._token_counts(terms)]  # a phrase needs every token

    def term_matches(self, terms: Sequence[tuple[str, bool]], chunk_rowids: np.ndarray) -> TermMatches:
        """How many chunks hold each term, and which of `chunk_rowids` do (FTS5 matches, so terms are
        stemmed as the index was). Bounded for keyword candidates of the same `terms`: the counts are
        the ones `postings` read; a term in at most KEYWORD_POSTINGS_BUDGET chunks is read in full (within
        the chunks' rowid range, filtered in SQL), a common one only where it meets the candidates' own
        MATCH (`_scope`) — never its whole postings list. Other chunks are looked up one by one.
        why: asking FTS5 `MATCH term AND rowid IN (chunks)` seeks once per chunk (SQLite runs the IN
        as one filter per value): 270 ms a query at 10k memories, most of the search."""
        conn = self.store.conn
        chunk_rowids = np.asarray(chunk_rowids, dtype=np.int64)
        rows = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        documents = self._documents(terms)
        matched = np.zeros((len(terms), len(chunk_rowids)), dtype=bool)
        if len(chunk_rowids):
            self._match(terms, documents, chunk_rowids, matched)
        return TermMatches(np.asarray(documents, dtype=np.int64), rows, matched)

    def _documents(self, terms: Sequence[tuple[str, bool]]) -> list[int]:
        """Exact chunk counts: a one-token term's from the vocabulary (what `postings` read already); a
        prefix or several-token term (a lone CJK character, a word the tokenizer splits) counted by FTS5."""
        counts = self._token_counts(terms)
        out = []
        for term, tokens in zip(terms, counts, strict=True):
            if len(tokens) == 1 and not term[1]:
                out.append(tokens[0])
            else:
                out.append(self._count(fts_query_from_terms([term])))
        return out

    def _match(
        self, terms: Sequence[tuple[str, bool]], documents: list[int], chunk_rowids: np.ndarray, matched: np.ndarray
    ) -> None:
        """Fill `matched[term, chunk]` (see term_matches). A statement costs ~1 ms at 100k (page reads
        more than postings), so none runs twice; when every term is common (the candidates are then the
        newest chunks holding all of them) one statement first finds the chunks that hold every term."""
        common = {i for i, count in enumerate(documents) if count > KEYWORD_POSTINGS_BUDGET}
        scope = self._scope(terms) if common else None
        todo = np.arange(len(chunk_rowids))
        if len(common) == len(terms) > 1:
            every = self._among(" AND ".join(fts_query_from_terms([term]) or "" for term in terms), chunk_rowids)
            matched[:, every] = True
            todo = np.flatnonzero(~every)
        if not len(todo):
            return
        reads: dict[str | None, np.ndarray] = {}

        def among(match: str | None) -> np.ndarray:
            if match not in reads:
                reads[match] = self._among(match, chunk_rowids[todo])
            return reads[match]

        for i, term in enumerate(terms):
            if not documents[i]:  # held by no chunk (a translation or marked form the vault lacks): no read
                continue
            match = fts_query_from_terms([term])
            matched[i, todo] = among(f"({scope}) AND {match}" if i in common and match != scope else match)
        outside = todo[~among(scope)] if common else todo[:0]
        for i in common if len(outside) else ():  # chunks that are no candidates of these terms
            matched[i, outside] = self._holding(fts_query_from_terms([terms[i]]), chunk_rowids[outside])

    def _scope(self, terms: Sequence[tuple[str, bool]]) -> str | None:
        """A MATCH that every keyword candidate of `terms` satisfies (see `candidates`): the rare terms
        it ranked (at most the budget's postings), or the rarest term when every term is common."""
        postings = self.postings(terms)
        if min(postings) <= KEYWORD_POSTINGS_BUDGET:
            return common_terms_match(terms, postings, KEYWORD_POSTINGS_BUDGET)
        return rarest_term_match(terms, postings)

    def _among(self, match: str | None, chunk_rowids: np.ndarray) -> np.ndarray:
        """Which of these chunks satisfy `match`, reading its matches once within their rowid range. The
        `+` keeps SQLite from handing the IN to FTS5 (one seek per chunk, see term_matches); filtering in
        SQL rather than fetching every match into Python was 3× faster at 100k (0.6 against 1.6 ms for
        a term in 4k chunks)."""
        rows = self.store.conn.execute(
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid BETWEEN ? AND ? "
            "AND +rowid IN (SELECT value FROM json_each(?))",
            (match, int(chunk_rowids.min()), int(chunk_rowids.max()), json.dumps(chunk_rowids.tolist())),
        ).fetchall()
        return np.isin(chunk_rowids, [row[0] for row in rows])

    def _holding(self, match: str | None, chunk_rowids: np.ndarray) -> np.ndarray:
        """Which of these chunks satisfy `match`, one seek per chunk (SQLite filters FTS5 once per IN value)."""
        rows = self.store.conn.execute(
            "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
            (match, json.dumps(chunk_rowids.tolist())),
        ).fetchall()
        return np.isin(chunk_rowids, [row[0] for row in rows])

    def _count(self, match: str | None) -> int:
        sql = "SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH ?"
        count: int = self.store.conn.execute(sql, (match,)).fetchone()[0]
        return count

    def _token_counts(self, terms: Sequence[tuple[str, bool]]) -> list[list[int]]:
        """Chunks holding each token of each term (a prefix term: summed over the tokens it starts). The
        answer is kept until the index changes, as a search asks twice (candidates, then relevance)."""
        conn = self.store.conn
        if self._counted is not None and self._counted[0] == self._counts_key(conn, terms):
            return self._counted[1]
        self._ensure_query_tables(conn)
        # The index holds tokens (porter stems, folded diacritics): tokenize the terms the same way.
        conn.execute("DELETE FROM temp.query_tokens")
        conn.executemany(
            "INSERT INTO temp.query_tokens(rowid, term) VALUES (?, ?)", enumerate(term for term, _ in terms)
        )
        tokens: dict[int, list[str]] = {}
        for position, token in conn.execute("SELECT doc, term FROM temp.query_tokens_vocab"):
            tokens.setdefault(position, []).append(token)
        counts = [
            [self._token_postings(conn, token, prefix) for token in tokens.get(position, [])]
            for position, (_, prefix) in enumerate(terms)
        ]
        self._counted = (self._counts_key(conn, terms), counts)  # after the scratch table's own writes
        return counts

    @staticmethod
    def _counts_key(conn: sqlean.Connection, terms: Sequence[tuple[str, bool]]) -> tuple[Any, ...]:
        """What token counts depend on: the terms and the index's state — this connection's writes
        (`total_changes`) and other connections' commits (`PRAGMA data_version`)."""
        return (conn, tuple(terms), conn.total_changes, conn.execute("PRAGMA data_version").fetchone()[0])

    def _bm25(self, match: str | None, limit: int) -> Candidates:
        # Rank and cut inside FTS5 first: joining `chunks` for every match before the LIMIT cost 20 ms of
        # 34 for a query matching 13k chunks at 100k memories.
        rows = self.store.conn.execute(
            "SELECT c.memory_rowid, f.rowid, f.score FROM (SELECT rowid, -bm25(chunks_fts, ?, ?, ?) AS score "
            "FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score DESC LIMIT ?) f "
            "JOIN chunks c ON c.rowid = f.rowid ORDER BY f.score DESC",
            (*BM25_WEIGHTS, match, limit),
        ).fetchall()
        return Candidates.from_rows(rows)

    def _newest(self, match: str | None, limit: int) -> Candidates:
        rows = self.store.conn.execute(
            "SELECT c.memory_rowid, f.rowid, 1.0 FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? "
            "ORDER BY rowid DESC LIMIT ?) f JOIN chunks c ON c.rowid = f.rowid ORDER BY f.rowid DESC",
            (match, limit),
        ).fetchall()
        return Candidates.from_rows(rows)

    @staticmethod
    def _token_postings(conn: sqlean.Connection, token: str, prefix: bool) -> int:
        if prefix:
            sql = "SELECT COALESCE(SUM(doc), 0) FROM temp.chunks_vocab WHERE term >= ?1 AND term < ?1 || char(1114111)"
        else:
            sql = "SELECT COALESCE(SUM(doc), 0) FROM temp.chunks_vocab WHERE term = ?1"
        postings: int = conn.execute(sql, (token,)).fetchone()[0]
        return postings

    def _ensure_query_tables(self, conn: sqlean.Connection) -> None:
        """Per-connection temp tables: the index's term statistics, and a scratch table whose only job
        is to tokenize query terms exactly as the index did. A rebuild or `close` replaces the connection."""
        if self._tables_on is conn:
            return
        for sql in (
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab USING fts5vocab(main, chunks_fts, 'row')",
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_tokens USING fts5(term, tokenize='{FTS_TOKENIZE}')",
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_tokens_vocab "
            "USING fts5vocab(temp, query_tokens, 'instance')",
        ):
            conn.execute(sql)
        self._tables_on = conn
