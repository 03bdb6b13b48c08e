"""The vector pre-filter's pure parts: sign-bit scan, which candidates are exact, tail estimates."""

import numpy as np
import pytest

from aimate_memory.index.candidates import Candidates, SignBits, estimate_cosines, exact_positions


def sign_bits(vectors: np.ndarray, scripts: list[str]) -> SignBits:
    rows = [
        (100 + i, np.packbits(vector > 0).tobytes(), 1000 + i // 2, script)
        for i, (vector, script) in enumerate(zip(vectors, scripts, strict=True))
    ]
    return SignBits.from_rows(7, rows)


def test_nearest_ranks_by_hamming_distance_and_skips_unreadable_scripts() -> None:
    rng = np.random.default_rng(1)
    query = rng.standard_normal(96)
    near = query + 0.1 * rng.standard_normal(96)  # same signs almost everywhere
    far = -query
    middle = np.where(np.arange(96) < 48, query, -query)  # half the signs flipped
    bits = sign_bits(np.stack([far, middle, near, near]), ["latin", "latin", "latin", "cjk"])
    positions, distances = bits.nearest(query, 10, frozenset({"latin", "cjk"}))
    assert positions.tolist()[:2] == [2, 3] and positions.tolist()[2:] == [1, 0]
    assert distances.tolist() == sorted(distances.tolist()) and distances[-1] == 96
    latin_only, _ = bits.nearest(query, 10, frozenset({"latin"}))
    assert latin_only.tolist() == [2, 1, 0]  # the CJK chunk's vector is noise to a Latin model
    top, _ = bits.nearest(query, 1, None)
    assert top.tolist() in ([2], [3])
    assert bits.memory_rowids[2] == 1001 and bits.chunk_rowids[2] == 102


def test_exact_positions_are_the_head_and_a_spread_of_the_tail() -> None:
    assert exact_positions(10, 3, 32).tolist() == list(range(10))  # short list: all exact
    chosen = exact_positions(1000, 200, 32)
    assert chosen[:200].tolist() == list(range(200))
    tail = chosen[200:]
    assert tail[0] == 200 and tail[-1] == 999 and len(tail) == 32 and np.all(np.diff(tail) > 0)


def test_estimates_follow_the_line_through_exact_cosines() -> None:
    distances = np.array([10, 20, 30, 40])
    cosines = 1.0 - distances / 100  # exactly linear
    guessed = estimate_cosines(distances, cosines, np.array([25, 50]))
    assert guessed.tolist() == pytest.approx([0.75, 0.5])
    # nothing to fit a line to: the mean, never a crash
    assert estimate_cosines(np.array([5]), np.array([0.4]), np.array([9])).tolist() == [0.4]
    assert estimate_cosines(np.array([5, 5]), np.array([0.4, 0.6]), np.array([9])).tolist() == [0.5]
    assert estimate_cosines(distances, cosines, np.array([], dtype=int)).tolist() == []


def test_candidates_concat_and_take_keep_columns_together() -> None:
    a = Candidates.from_rows([(1, 10, 0.9), (2, 20, 0.5)])
    b = Candidates.from_rows([(3, 30, 0.7)])._replace(exact=np.array([False]))
    both = Candidates.concat([a, b, Candidates.empty()])
    assert both.chunk_rowids.tolist() == [10, 20, 30] and both.exact.tolist() == [True, True, False]
    picked = both.take(np.array([2, 0]))
    assert picked.memory_rowids.tolist() == [3, 1] and picked.scores.tolist() == [0.7, 0.9]
    assert len(Candidates.concat([]).scores) == 0
