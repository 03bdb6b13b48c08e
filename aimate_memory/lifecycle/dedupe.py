"""Near-duplicate memories (docs/design.md §5, seed 004 去重): found with a KNN query per memory, never all pairs.

For each live memory (not archived, not a session transcript) the index is asked for its nearest
neighbours twice — by vector (sqlite-vec KNN over the memory's mean chunk vector, when the index has
vectors) and by keywords (FTS5 over the memory's most frequent terms) — and each candidate pair in the
same layer is scored:

- both texts in a script the embedder understands → cosine of the mean chunk vectors;
- otherwise → cosine of term-count vectors (words for Latin, character bigrams for CJK: the index's own
  tokens). MiniLM reads every Chinese character as [UNK], so its vectors would call any two Chinese
  notes duplicates; text cosine keeps Chinese honest (docs/design.md §11).

Paraphrases (issue 39: "do not reset seeds" said three ways were three core rules, and a search at the
search vectors' bar found none): where the vectors hold the multilingual USE model's part (the default
embedder), a pair is also compared there, where a paraphrase or a translation lands close ("Do not reset the
seeds" / "Never reset seeds" .91; "我更喜欢用 pytest 写测试" / "测试用 pytest 写，我更喜欢它" .93), and a pair
at or above `maintenance.paraphrase_threshold` (0.70, the bar at which capture calls a sentence a
restatement) is a near-duplicate too. A rule said in both languages sits lower ("Always run ruff before
committing" / "提交代码前一定要先运行 ruff" .48, issue 39): a pair in two languages under the bar is read word
by word through the bilingual lexicon (capture/translation.py: the same names, the content words said both
ways, the same polarity) and, when it says one thing, is a near-duplicate found by `translation`. Close is
not the same: "I prefer unittest over pytest now" is .96 from
"I prefer pytest over unittest". So every pair, by either measure, is first asked whether the two disagree
(the conflict check's reading, `disagree`); those are left for the person, never merged.

Pairs at or above `maintenance.duplicate_threshold` are joined into groups. The survivor of a group is the
most important, then most used (a legacy frontmatter count), then most recently updated memory; merging
gives it the union of the tags, the highest importance and `supersedes` (uses stay in the journal, under
the survivor's and the others' ids), and moves the others to `archive/` as
`superseded` with `superseded_by` (planned here as pure actions, applied by the executor).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from aimate_memory.capture.translation import says_the_same
from aimate_memory.embedding.base import understands
from aimate_memory.lifecycle.planner import Action, Kind
from aimate_memory.text.scripts import script_of
from aimate_memory.text.words import tokens
from aimate_memory.vault.layout import archive_path_for
from aimate_memory.vault.model import Memory

NEIGHBORS = 8  # candidates asked of each KNN query
MAX_QUERY_TERMS = 32
VECTOR_COARSE = 200
MEMO_VERSION = 3  # 2: paraphrases by the USE part, pairs that disagree left out; 3: translations
TRANSLATION = "translation"  # the method of a pair in two languages the lexicon reads as one rule
Disagree = Callable[[str, str, float | None], bool]  # (text, text, cosine): do they take different sides?


@dataclass(frozen=True)
class DedupeCandidate:
    rowid: int
    id: str
    path: str
    layer: str
    title: str
    importance: int
    access_count: int
    updated_ts: float

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "path": self.path, "title": self.title}


@dataclass
class DuplicateGroup:
    scope: str
    layer: str
    survivor: DedupeCandidate
    others: list[tuple[DedupeCandidate, float, str]] = field(default_factory=list)  # (entry, similarity, method)

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "layer": self.layer,
            "survivor": self.survivor.to_dict(),
            "duplicates": [
                {**entry.to_dict(), "similarity": round(similarity, 4), "method": method}
                for entry, similarity, method in self.others
            ],
        }


@dataclass(frozen=True)
class DedupeMemo:
    """What a near-duplicate search found, so the next one queries only the memories changed since: the file
    hash of every memory it checked and every pair at or above the threshold. Valid for one threshold and
    one embedder (vector similarities change with it); otherwise the next search checks everything again.

    Why: `maintain` runs hourly in the daemon, and one neighbour search per memory took 115 s at 10k
    memories (~70 % of it these searches; docs/benchmarks.md, "Maintenance at scale") — minutes of CPU an
    hour at 100k. A pair of unchanged memories keeps its similarity; a changed memory's own search finds the
    partners it is a near-duplicate of (similarity is symmetric, and at ≥ the threshold each is among the
    other's nearest few)."""

    threshold: float
    vectors: str | None  # the embedder identity of the vectors compared (None: text similarity only)
    checked: dict[str, str] = field(default_factory=dict)  # memory id → file hash
    close: list[tuple[str, str, float, str]] = field(default_factory=list)  # (id, id, similarity, method)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": MEMO_VERSION,
            "threshold": self.threshold,
            "vectors": self.vectors,
            "checked": self.checked,
            "close": [list(pair) for pair in self.close],
        }

    @classmethod
    def from_json(cls, data: Any) -> DedupeMemo | None:
        """None for anything but a memo this version wrote (then everything is checked again)."""
        try:
            if data.get("version") != MEMO_VERSION:
                return None
            close = [(str(a), str(b), float(sim), str(method)) for a, b, sim, method in data["close"]]
            checked = {str(key): str(value) for key, value in data["checked"].items()}
            return cls(float(data["threshold"]), data["vectors"], checked, close)
        except (AttributeError, KeyError, TypeError, ValueError):
            return None


@dataclass
class DuplicateSearch:
    groups: list[DuplicateGroup]
    memo: DedupeMemo
    searched: int  # memories whose neighbours were searched (the rest were unchanged since `memo`)


def find_duplicates(
    index: Any,
    threshold: float,
    neighbors: int = NEIGHBORS,
    memo: DedupeMemo | None = None,
    paraphrase: float | None = None,
    disagree: Disagree | None = None,
) -> DuplicateSearch:
    """Groups of near-duplicates in one vault's index (call `index.refresh()` first). With the `memo` of an
    earlier search, only memories changed since are searched. `paraphrase`: the bar in the USE part of the
    vectors (module docstring; None: the search vectors alone); `disagree`: pairs it says take different
    sides are never near-duplicates."""
    conn = index.conn
    entries: dict[int, DedupeCandidate] = {}
    hashes: dict[int, str] = {}
    for row in conn.execute(
        "SELECT rowid, id, path, layer, title, importance, access_count, updated_ts, file_hash FROM memories "
        "WHERE status IN ('active', 'pending') AND path NOT LIKE 'archive/%' AND layer != 'session'"
    ):
        entries[row[0]] = DedupeCandidate(*row[:8])
        hashes[row[0]] = row[8]
    vectors, languages, identity = _memory_vectors(index, entries)
    meaning = _use_vectors(index, vectors) if paraphrase is not None else {}
    if identity is not None and meaning:
        identity = f"{identity}|paraphrase≥{paraphrase}"
    if memo is None or memo.threshold != threshold or memo.vectors != identity:
        memo = DedupeMemo(threshold, identity)
    rowid_of = {entry.id: rowid for rowid, entry in entries.items()}
    changed = [rowid for rowid, entry in entries.items() if memo.checked.get(entry.id) != hashes[rowid]]
    unchanged = set(entries) - set(changed)
    pairs: dict[tuple[int, int], tuple[float, str]] = {}
    for a, b, similarity, method in memo.close:
        ra, rb = rowid_of.get(a), rowid_of.get(b)
        if ra in unchanged and rb in unchanged and entries[ra].layer == entries[rb].layer:
            pairs[(min(ra, rb), max(ra, rb))] = (similarity, method)
    texts = _MemoryTexts(conn, entries, bulk=len(changed) > len(entries) // 4)

    def understood(rowid: int) -> bool:
        return rowid in vectors and understands(languages, texts.script(rowid))

    for rowid in changed:
        entry = entries[rowid]
        candidates: set[int] = set()
        if rowid in vectors:
            found = index.vector_candidates(vectors[rowid], VECTOR_COARSE, VECTOR_COARSE)
            candidates.update(found.memory_rowids[: neighbors * 4].tolist())
        if not understood(rowid):
            # Keyword neighbours only where vectors do not decide: between two memories the embedder reads,
            # a pair at the threshold is among each other's nearest vectors (and the keyword query per memory
            # was 54 % of a maintenance run at 10k).
            found = index.keyword_candidates(_top_terms(texts.terms(rowid)), neighbors * 4)
            candidates.update(found.memory_rowids.tolist())
        ranked = [other for other in dict.fromkeys(candidates) if other != rowid and other in entries]
        for other in ranked[: neighbors * 4]:
            if entries[other].layer != entry.layer:
                continue
            key = (min(rowid, other), max(rowid, other))
            if key in pairs:
                continue
            if understood(rowid) and understood(other):
                pairs[key] = (float(np.dot(vectors[rowid], vectors[other])), "vector")
                if pairs[key][0] < threshold and rowid in meaning and other in meaning:
                    pairs[key] = (float(np.dot(meaning[rowid], meaning[other])), "paraphrase")
            else:
                pairs[key] = (text_cosine(texts.terms(rowid), texts.terms(other)), "text")
            bar = _bar(pairs[key][1], threshold, paraphrase)
            use = float(np.dot(meaning[rowid], meaning[other])) if rowid in meaning and other in meaning else None
            if pairs[key][0] < bar and use is not None and _translated(texts.text(rowid), texts.text(other), use):
                pairs[key], bar = (use, TRANSLATION), 0.0  # one rule in two languages (module docstring)
            if pairs[key][0] >= bar and disagree is not None and disagree(texts.text(rowid), texts.text(other), use):
                pairs[key] = (0.0, "disagree")  # close, and taking different sides: for the person, not a merge
    close = {key: value for key, value in pairs.items() if value[0] >= _bar(value[1], threshold, paraphrase)}
    memo = DedupeMemo(
        threshold,
        identity,
        {entry.id: hashes[rowid] for rowid, entry in entries.items()},
        [(entries[a].id, entries[b].id, similarity, method) for (a, b), (similarity, method) in sorted(close.items())],
    )
    return DuplicateSearch(_groups(index.vault.scope.value, entries, close), memo, len(changed))


def _translated(first: str, second: str, cosine: float) -> bool:
    return says_the_same(first, second, cosine).same


def _bar(method: str, threshold: float, paraphrase: float | None) -> float:
    """The similarity at which a pair found by `method` is a near-duplicate: a translation was decided by the
    lexicon, a paraphrase by the USE bar, the rest by the search vectors' (or the text's) threshold."""
    if method == TRANSLATION:
        return 0.0
    return paraphrase if method == "paraphrase" and paraphrase is not None else threshold


class _MemoryTexts:
    """Each memory's term counts and script, read from its chunks when first needed: all at once when most
    memories are searched, one memory at a time when few changed."""

    def __init__(self, conn: Any, entries: Mapping[int, DedupeCandidate], bulk: bool) -> None:
        self._conn = conn
        self._entries = entries
        self._texts: dict[int, str] = {}
        self._terms: dict[int, Counter[str]] = {}
        self._scripts: dict[int, str] = {}
        if bulk:
            parts: dict[int, list[str]] = {}
            for memory_rowid, text in conn.execute(
                "SELECT memory_rowid, text FROM chunks ORDER BY memory_rowid, ordinal"
            ):
                if memory_rowid in entries:
                    parts.setdefault(memory_rowid, []).append(text)
            for rowid, entry in entries.items():
                self._texts[rowid] = entry.title + "\n" + "\n".join(parts.get(rowid, []))

    def text(self, rowid: int) -> str:
        """The memory's title and chunk texts."""
        return self._text(rowid)

    def _text(self, rowid: int) -> str:
        if rowid not in self._texts:
            rows = self._conn.execute("SELECT text FROM chunks WHERE memory_rowid = ? ORDER BY ordinal", (rowid,))
            self._texts[rowid] = self._entries[rowid].title + "\n" + "\n".join(row[0] for row in rows)
        return self._texts[rowid]

    def terms(self, rowid: int) -> Counter[str]:
        if rowid not in self._terms:
            self._terms[rowid] = Counter(tokens(self._text(rowid)))
        return self._terms[rowid]

    def script(self, rowid: int) -> str:
        if rowid not in self._scripts:
            self._scripts[rowid] = script_of(self._text(rowid))
        return self._scripts[rowid]


def _memory_vectors(
    index: Any, entries: Mapping[int, DedupeCandidate]
) -> tuple[dict[int, np.ndarray], frozenset[str], str | None]:
    """Mean chunk vector per memory (unit length), the scripts the embedder understands, and its identity."""
    try:
        if not index.has_vectors:
            return {}, frozenset(), None
    except Exception:  # a damaged or missing index: text similarity only
        return {}, frozenset(), None
    embedder = index.embedder.get()
    if embedder is None:
        return {}, frozenset(), None
    sums: dict[int, np.ndarray] = {}
    for memory_rowid, blob in index.conn.execute(
        "SELECT c.memory_rowid, x.vec FROM chunks c JOIN vectors x ON x.chunk_hash = c.chunk_hash"
    ):
        if memory_rowid not in entries:
            continue
        vector = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
        sums[memory_rowid] = sums[memory_rowid] + vector if memory_rowid in sums else vector
    vectors = {}
    for rowid, total in sums.items():
        norm = float(np.linalg.norm(total))
        if norm > 0:
            vectors[rowid] = total / norm
    return vectors, frozenset(embedder.languages), embedder.identity


def _use_vectors(index: Any, vectors: Mapping[int, np.ndarray]) -> dict[int, np.ndarray]:
    """The USE part of each memory vector, unit length, when the embedder is the default pair of models
    (MiniLM's part first, then USE's); empty otherwise."""
    embedder = index.embedder.get()
    latin = getattr(embedder, "latin", None)
    if latin is None or getattr(embedder, "universal", None) is None:
        return {}
    start = int(latin.dimension)
    found = {}
    for rowid, vector in vectors.items():
        part = vector[start:]
        norm = float(np.linalg.norm(part))
        if norm > 0:
            found[rowid] = part / norm
    return found


def _top_terms(counts: Counter[str]) -> list[tuple[str, bool]]:
    best = sorted(counts.items(), key=lambda item: (-item[1], -len(item[0]), item[0]))[:MAX_QUERY_TERMS]
    return [(term, False) for term, _ in best]


def text_cosine(a: Mapping[str, int], b: Mapping[str, int]) -> float:
    if not a or not b:
        return 0.0
    dot = sum(count * b.get(term, 0) for term, count in a.items())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


def _groups(
    scope: str, entries: Mapping[int, DedupeCandidate], close: Mapping[tuple[int, int], tuple[float, str]]
) -> list[DuplicateGroup]:
    parent: dict[int, int] = {}

    def root(node: int) -> int:
        while parent.get(node, node) != node:
            parent[node] = parent.get(parent[node], parent[node])
            node = parent[node]
        return node

    for a, b in close:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    members: dict[int, list[int]] = {}
    for node in {n for pair in close for n in pair}:
        members.setdefault(root(node), []).append(node)
    groups = []
    for nodes in members.values():
        ordered = sorted(nodes, key=lambda n: _survivor_key(entries[n]))
        survivor = ordered[0]
        group = DuplicateGroup(scope, entries[survivor].layer, entries[survivor])
        for other in ordered[1:]:
            similarity, method = _best_link(other, nodes, close)
            group.others.append((entries[other], similarity, method))
        groups.append(group)
    groups.sort(key=lambda g: g.survivor.path)
    return groups


def _survivor_key(entry: DedupeCandidate) -> tuple[Any, ...]:
    return (-entry.importance, -entry.access_count, -entry.updated_ts, entry.path)


def _best_link(
    node: int, nodes: Iterable[int], close: Mapping[tuple[int, int], tuple[float, str]]
) -> tuple[float, str]:
    links = [close[(min(node, n), max(node, n))] for n in nodes if (min(node, n), max(node, n)) in close]
    return max(links) if links else (0.0, "text")


def plan_merge(survivor: Memory, others: list[Memory], now: datetime) -> list[Action]:
    """Pure: the actions that merge `others` into `survivor` (absolute values, safe to apply twice)."""
    tags = list(dict.fromkeys([*survivor.tags, *(tag for other in others for tag in other.tags)]))
    supersedes = _string_list(survivor.doc.get("supersedes") if survivor.doc is not None else None)
    supersedes = list(dict.fromkeys([*supersedes, *(other.id for other in others)]))
    fields: dict[str, Any] = {
        "tags": tags,
        "importance": max(m.importance for m in (survivor, *others)),
        "supersedes": supersedes,
    }
    names = ", ".join(f'"{other.title}"' for other in others)
    actions = [Action(Kind.MERGE, survivor.id, survivor.rel_path, None, fields, f"merged {names}", survivor.title)]
    for other in others:
        actions.append(
            Action(
                Kind.SUPERSEDE,
                other.id,
                other.rel_path,
                archive_path_for(other.rel_path),
                {"status": "superseded", "superseded_by": survivor.id, "archived_at": now},
                f'near-duplicate of "{survivor.title}" ({survivor.id[:8]})',
                other.title,
            )
        )
    return actions


def _string_list(value: Any) -> list[str]:
    if not value:
        return []
    if isinstance(value, str):
        return [value]
    return [str(item) for item in value]


__all__ = [
    "DedupeCandidate",
    "DedupeMemo",
    "DuplicateGroup",
    "DuplicateSearch",
    "find_duplicates",
    "plan_merge",
    "text_cosine",
]
