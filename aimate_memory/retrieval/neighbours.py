"""A hit's neighbours in its conversation: memories captured from one conversation (`thread` in their
frontmatter) are read in order, and the line that answers a question often sits next to the line a search
finds. On LoCoMo (dev split), 60 of the 192 questions whose answer was not in the top 10 had it right next to
one of the top 3 (docs/benchmarks.md, "Neighbours in a conversation"). Two uses, both pure (the index reads
the threads: MemoryIndex.thread_sides):

- **Support** (ranking): a memory's fused score gains `SUPPORT` × the best fused score of the memories right
  before and after it in its thread, for the best `SUPPORTED` candidates: a reply ("Now I'm gonna submit it")
  means little alone and a lot next to the line it answers. LoCoMo turn R@5 .585 → .622, R@10 .740 → .764,
  session R@5 .877 → .882 (paired bootstrap, docs/benchmarks.md "Support from neighbours").
- **Placement** (the list shown): after the first `AFTER` results, the `SPAN` neighbours on either side of each
  of the first `ANCHORS` results come next, then the rest. The first results are never displaced: a neighbour
  is context, shown once the best matches are. LoCoMo turn R@10 .691 → .740 with ±2 of the first 2 (±1 of the
  first 3: .729), R@5 unchanged.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

import numpy as np

K = TypeVar("K", bound=Hashable)

AFTER = 7  # results kept as ranked before any neighbour
ANCHORS = 2  # results whose neighbours are shown
SPAN = 2  # memories on either side in the thread
# Chosen on a grid of 0.15–0.4 (R@5 / session R@5: 0.15 .615/.881, 0.2 .622/.882, 0.3 .638/.878, 0.4
# .636/.877); 50, 200 or every candidate supported gave the same figures, so the cheapest.
SUPPORT = 0.2
SUPPORTED = 50


def nearest_first(before: Sequence[K], after: Sequence[K]) -> list[K]:
    """Both sides of a memory in its thread (each nearest first) as one list: nearest first, the earlier
    before the later at each distance."""
    out: list[K] = []
    for distance in range(max(len(before), len(after))):
        out.extend(side[distance] for side in (before, after) if distance < len(side))
    return out


def support(scores: np.ndarray, adjacent: Mapping[int, Sequence[int]], weight: float = SUPPORT) -> np.ndarray:
    """`scores` with each position in `adjacent` raised by `weight` × the best score among the positions
    adjacent to it (its neighbours in the thread that are candidates too). Scores are read before any is
    raised, so support does not travel along a thread."""
    out = np.array(scores, dtype=np.float64)
    for position, near in adjacent.items():
        if near:
            out[position] += weight * max(scores[other] for other in near)
    return out


def place_neighbours(
    ranked: Sequence[K], neighbours_of: Mapping[K, Sequence[K]], after: int = AFTER, anchors: int = ANCHORS
) -> list[tuple[K, K | None]]:
    """The ranking with neighbours placed: (key, the anchor it is shown as context of, or None). A neighbour
    already ranked below `after` moves up (it is its own result, not context); one ranked above stays put."""
    head = list(ranked[:after])
    placed = set(head)
    context: list[tuple[K, K | None]] = []
    ranked_set = set(ranked)
    for anchor in ranked[:anchors]:
        for neighbour in neighbours_of.get(anchor, ()):
            if neighbour not in placed:
                placed.add(neighbour)
                context.append((neighbour, None if neighbour in ranked_set else anchor))
    rest = [(key, None) for key in ranked[after:] if key not in placed]
    return [(key, None) for key in head] + context + rest
