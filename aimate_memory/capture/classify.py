"""Where a captured text goes: its kind (layer and category), scope, title — or nothing, when it is not worth
keeping (pure; docs/design.md, "Capture").

The kind comes from, in this order: the caller (`kind`: a person's `--kind`, a model's `kind` argument); the
kind model (`model.py`) over the sentence's USE vector and the cue table's features; the same model over the
cue features alone when no vector is given; the cue table's first match (`rules.RULES`) when no weights load.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from aimate_memory.capture.heard import asks_for_now
from aimate_memory.capture.model import FEATURE_NAMES, KINDS, MEANINGS, PLACES, KindModels, cue_features, load_models
from aimate_memory.capture.rules import FALLBACK, PATH_CANDIDATE, PROJECT_REFERENCES, RULES, CaptureRule
from aimate_memory.vault.layout import Layer, Scope

MAX_TITLE_CHARS = 80
# A clause ends at a sentence end or a line break; English `.` only before whitespace (not in "v1.2").
_CLAUSE_END = re.compile(r"[。！？；\n]|[.!?;](?=\s|$)")
_SOFT_BREAK = re.compile(r"[，、,：:]\s*|\s+")
_HEADING_MARK = re.compile(r"^\s*#{1,6}\s+")
# Without a vector the cue features alone are weaker evidence, and a drop loses the sentence: they drop only
# what they call a drop with probability ≥ 0.6 (dev split: drop precision .79 -> .88, recall .64 -> .59).
CUES_ONLY_DROP_AT = 0.6
# Kinds about the person rather than the work: global unless the text names the project.
_PERSONAL_KINDS = frozenset({"rule", "preference"})
# Kinds that hold beyond now. A request for the work at hand ("Please create a commit message for these changes",
# "帮我写一下这次改动的提交信息": capture/heard.py `asks_for_now`) that the person asks to keep is kept as what it
# is, a task for now, never filed as one of these (docs/design.md, "One-off requests").
_LASTING_KINDS = frozenset({"rule", "preference", "decision", "knowledge", "project"})
AT_HAND_REASON = "a request for the work at hand, kept as a task, not a standing rule (--kind rule keeps it as one)"
# How a drop is named in `reason`, by the first cue feature present ("dropped: thanks").
_DROP_NAMES: tuple[tuple[str, str], ...] = (
    ("cue thanks", "thanks"),
    ("question", "a question to the assistant"),
    ("cue acknowledgement", "an acknowledgement"),
)


@dataclass(frozen=True)
class Classification:
    layer: Layer
    category: str
    scope: Scope
    title: str
    body: str
    kind: str  # rule, preference, decision, knowledge, project, task, note: where it goes when written
    reason: str  # one line: "core/rule: an imperative convention about how work is done (0.91); global"
    drop: bool = False  # not worth keeping (small talk, thanks, a question): `kind` is the best place anyway
    confidence: float | None = None  # the model's probability of its answer; None when given or from the table
    forced_reason: str = ""  # the reason when written anyway (`--force`); equal to `reason` unless a drop


def classify(
    text: str,
    *,
    has_project: bool,
    path_exists: Callable[[str], bool] | None = None,
    scope_override: Scope | None = None,
    vector: np.ndarray | None = None,
    kind: str | None = None,
    models: KindModels | bool | None = True,
) -> Classification:
    """Classify one captured text. `path_exists(word)` says whether a path-like word names a file or folder
    of the current project (None: paths are not checked). `scope_override` is `--scope`; `kind` is `--kind`
    (one of `PLACES`: no guessing). `vector`: the text's USE vector (model.EMBEDDER), None without one.
    `models`: the weights (True: the shipped ones; None: the cue table alone)."""
    body = text.strip()
    if kind is not None:
        if kind not in PLACES:
            raise ValueError(f"unknown kind {kind!r}")
        chosen, drop, confidence, why = kind, False, None, f"given as kind {kind}"
    else:
        chosen, drop, confidence, why = _decide(body, vector, load_models() if models is True else models or None)
        if not drop and chosen in _LASTING_KINDS and asks_for_now(body):
            chosen, confidence, why = "task", None, f"{AT_HAND_REASON}; the model said {chosen}: {why}"
    layer, category = PLACES[chosen]
    project_cue = _project_reference(body, path_exists) if has_project else None
    scope, scope_reason = _scope(chosen, has_project, project_cue, scope_override)
    if drop:
        reason = f"dropped: {why}"
        kept = f"{layer.value}/{category}: kept by force although it looks like {why}; {scope_reason}"
    else:
        reason = kept = f"{layer.value}/{category}: {MEANINGS[chosen]} ({why}); {scope_reason}"
    return Classification(layer, category, scope, title_of(body), body, chosen, reason, drop, confidence, kept)


def _decide(text: str, vector: np.ndarray | None, models: KindModels | None) -> tuple[str, bool, float | None, str]:
    """(kind to write, drop?, confidence, why) from the model, or the cue table without one."""
    if models is None or (vector is not None and vector.shape != (models.embedded.embedding_dim,)):
        vector = None
    if models is None:
        rule, cue = _first_match(text)
        return rule.name, False, None, f"cue table: '{cue}'" if cue else "cue table: no cue → note"
    model = models.choose(vector)
    probabilities = model.probabilities(text, vector)
    order = np.argsort(-probabilities, kind="stable")
    best = KINDS[int(order[0])]
    source = "embedding" if vector is not None else "cue features"
    confidence = float(probabilities[order[0]])
    if best != "drop":
        return best, False, confidence, f"{source}, {confidence:.2f}"
    place_index = next(int(i) for i in order if KINDS[int(i)] != "drop")
    if vector is not None or confidence >= CUES_ONLY_DROP_AT:
        return KINDS[place_index], True, confidence, f"{_drop_name(text)} ({source}, {confidence:.2f})"
    place_confidence = float(probabilities[place_index])
    return KINDS[place_index], False, place_confidence, f"{source}, {place_confidence:.2f}; not sure enough to drop"


def _drop_name(text: str) -> str:
    present = {name for name, value in zip(FEATURE_NAMES, cue_features(text), strict=True) if value}
    return next((label for feature, label in _DROP_NAMES if feature in present), "small talk")


def _first_match(text: str) -> tuple[CaptureRule, str | None]:
    for rule in RULES:
        for patterns in rule.patterns.values():
            for pattern in patterns:
                found = pattern.search(text)
                if found:
                    return rule, found.group(0)
    return FALLBACK, None


def _project_reference(text: str, path_exists: Callable[[str], bool] | None) -> str | None:
    for patterns in PROJECT_REFERENCES.values():
        for pattern in patterns:
            found = pattern.search(text)
            if found:
                return f"'{found.group(0)}'"
    if path_exists is not None:
        for found in PATH_CANDIDATE.finditer(text):
            word = found.group(0).rstrip(".")
            if word and path_exists(word):
                return f"path {word}"
    return None


def _scope(kind: str, has_project: bool, project_cue: str | None, override: Scope | None) -> tuple[Scope, str]:
    if override is not None:
        return override, f"{override.value} (--scope)"
    if not has_project:
        return Scope.GLOBAL, "global (no project)"
    if project_cue is not None:
        return Scope.PROJECT, f"project (names the project: {project_cue})"
    if kind in _PERSONAL_KINDS:
        return Scope.GLOBAL, "global (about the person)"
    return Scope.PROJECT, "project"


def title_of(text: str, max_chars: int = MAX_TITLE_CHARS) -> str:
    """The first clause, at most `max_chars` characters (cut at a comma or space when longer)."""
    first = _HEADING_MARK.sub("", text.strip())
    end = _CLAUSE_END.search(first)
    clause = (first[: end.start()] if end else first).strip() or first.strip()
    if len(clause) <= max_chars:
        return clause
    head = clause[:max_chars]
    breaks = [found.start() for found in _SOFT_BREAK.finditer(head) if found.start() >= max_chars // 2]
    cut = breaks[-1] if breaks else max_chars - 1
    return head[:cut].rstrip() + "…"
