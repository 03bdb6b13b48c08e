"""Vector candidates: chunks nearest to the query vector, by a sign-bit scan of every chunk and exact
cosines (from the float16 vectors) for the best of them."""

from __future__ import annotations

import json

import numpy as np

from aimate_memory.index.candidates import TAIL_SAMPLES, Candidates, SignBits, estimate_cosines, exact_positions
from aimate_memory.index.store import IndexStore


class VectorSearch:
    def __init__(self, store: IndexStore) -> None:
        self.store = store
        self._bits: SignBits | None = None

    def candidates(
        self, query: np.ndarray, exact: int, depth: int, languages: frozenset[str] | None = None
    ) -> Candidates:
        """The `depth` chunks nearest to `query` (a unit vector) by cosine, best first.

        The sign-bit scan ranks every chunk; the first `exact` get exact cosines from their float16
        vectors, the rest cosines estimated from their Hamming distance (candidates.estimate_cosines).
        Min-max fusion needs the weak end of a deep list (LoCoMo R@10 .645 with 100 candidates, .681
        with the whole vault), but only the top of it exactly. Chunks in a script the embedder cannot
        read are left out: their vectors are noise (docs/design.md §11)."""
        bits = self._sign_bits()
        positions, distances = bits.nearest(query, max(depth, exact), languages)
        if not len(positions):
            return Candidates.empty()
        chunk_rowids = bits.chunk_rowids[positions]
        known = exact_positions(len(positions), exact, TAIL_SAMPLES)
        scores = np.empty(len(positions))
        scores[known] = self.cosines(query, chunk_rowids[known])
        guessed = np.ones(len(positions), dtype=bool)
        guessed[known] = False
        scores[guessed] = estimate_cosines(distances[known], scores[known], distances[guessed])
        order = np.argsort(-scores, kind="stable")
        return Candidates(bits.memory_rowids[positions][order], chunk_rowids[order], scores[order], ~guessed[order])

    def cosines(self, query: np.ndarray, chunk_rowids: np.ndarray) -> np.ndarray:
        """Exact cosines of these chunks with `query` (a unit vector), from their float16 vectors.
        A chunk a concurrent sync just removed scores 0."""
        query = np.asarray(query, dtype=np.float32)
        rowids = chunk_rowids.tolist()
        vectors = dict(
            self.store.conn.execute(
                "SELECT c.rowid, x.vec FROM chunks c JOIN vectors x ON x.chunk_hash = c.chunk_hash "
                "WHERE c.rowid IN (SELECT value FROM json_each(?))",
                (json.dumps(rowids),),
            ).fetchall()
        )
        missing = bytes(2 * len(query))
        raw = b"".join(vectors.get(rowid, missing) for rowid in rowids)
        matrix = np.frombuffer(raw, dtype=np.float16).reshape(len(rowids), len(query))
        cosines: np.ndarray = (matrix.astype(np.float32) @ query).astype(np.float64)
        return cosines

    def latin(self, chunk_rowids: np.ndarray) -> np.ndarray:
        """Whether each chunk is in Latin script (SignBits.latin)."""
        return self._sign_bits().latin(chunk_rowids)

    def patch(self, memory_rowids: set[int]) -> None:
        """After this process wrote these memories (and nothing else): their chunks' bits read again, the rest
        kept — at 10k memories reading every chunk's bits again was most of a warm `remember` (docs/design.md
        §12, "What a warm remember reads once"). Nothing kept yet: nothing to do."""
        bits = self._bits
        if bits is None or not memory_rowids:
            return
        rows = self.store.conn.execute(
            "SELECT v.rowid, v.embedding, c.memory_rowid, c.script FROM chunks c "
            "JOIN chunks_vec v ON v.rowid = c.rowid WHERE c.memory_rowid IN (SELECT value FROM json_each(?))",
            (json.dumps(sorted(memory_rowids)),),
        ).fetchall()
        self._bits = bits.replaced(memory_rowids, SignBits.from_rows(bits.version, rows))

    def forget(self) -> None:
        """Drop the cached sign bits: after this process's own writes (they do not change `PRAGMA
        data_version`) or a new connection (whose version numbers start over)."""
        self._bits = None

    def _sign_bits(self) -> SignBits:
        """Every chunk's sign bits, loaded once and reloaded when the index changed: by another process
        (`PRAGMA data_version`) or by a sync of this one (which calls `forget`)."""
        conn = self.store.conn
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if self._bits is None or self._bits.version != version:
            rows = conn.execute(
                "SELECT v.rowid, v.embedding, c.memory_rowid, c.script "
                "FROM chunks_vec v JOIN chunks c ON c.rowid = v.rowid"
            ).fetchall()
            self._bits = SignBits.from_rows(version, rows)
        return self._bits
