"""A hit's neighbours in its conversation: memories captured from one conversation (`thread` in their
frontmatter) are read in order, and the line that answers a question often sits next to the line a search
finds. On LoCoMo (dev split), 60 of the 192 questions whose answer was not in the top 10 had it right next to
one of the top 3 (docs/benchmarks.md, "Neighbours in a conversation").

So after the first `AFTER` results, the `SPAN` neighbours on either side of each of the first `ANCHORS`
results come next, then the rest. The first results are never displaced: a neighbour is context, shown once
the best matches are. Chosen by paired bootstrap on the dev split: LoCoMo turn R@10 .691 → .740 with ±2 of the
first 2 (±1 of the first 3: .729), R@5 unchanged. Pure: planning over keys; the index reads the threads
(MemoryIndex.thread_neighbours).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

AFTER = 7  # results kept as ranked before any neighbour
ANCHORS = 2  # results whose neighbours are shown
SPAN = 2  # memories on either side in the thread


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
