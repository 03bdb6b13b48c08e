"""What kind of memory a sentence is: a small linear model over a sentence embedding and the cue table (pure).

Eight kinds (`KINDS`): seven places a memory can go (`PLACES`) and `drop` — nothing worth keeping. The model is
multinomial logistic regression trained at build time on the labelled exemplars in `data/exemplars.jsonl`
(written for this purpose, in English and Chinese) by `scripts/train_capture_model.py`, which stores its
weights in `data/kind_model.npz` (docs/design.md, "Capture"). Two weight sets ship: one over the multilingual
USE vector plus the cue features, and one over the cue features alone for when no embedder loads.

Training is plain full-batch gradient descent from zeros, so the same exemplars give the same weights on
every machine (the test re-trains and compares).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np

from aimate_memory.capture.heard import word_count
from aimate_memory.capture.rules import CUE_FEATURES, RULES
from aimate_memory.vault.layout import Layer

KINDS: tuple[str, ...] = ("rule", "preference", "decision", "knowledge", "project", "task", "note", "drop")
PLACES: dict[str, tuple[Layer, str]] = {
    "rule": (Layer.CORE, "rule"),
    "preference": (Layer.CORE, "preference"),
    "decision": (Layer.LONG_TERM, "decision"),
    "knowledge": (Layer.LONG_TERM, "knowledge"),
    "project": (Layer.LONG_TERM, "project"),
    "task": (Layer.SHORT_TERM, "task"),
    "note": (Layer.SHORT_TERM, "note"),
}
# What each kind means, in the words `reason` gives ("core/rule: an imperative convention …").
MEANINGS: dict[str, str] = {
    "rule": "an imperative convention about how work is done",
    "preference": "a personal taste or habit",
    "decision": "a choice that was made",
    "knowledge": "a fact about the project, system or domain",
    "project": "what the project is, its goal or status",
    "task": "something still to do",
    "note": "a transient situation",
    "drop": "small talk, thanks or a question: nothing to keep",
}
# The embedder whose vectors the shipped weights read (its identity up to the package version).
EMBEDDER = "use:use-multilingual-v3:512"
MODEL_FILE = "kind_model.npz"
EXEMPLARS_FILE = "exemplars.jsonl"


def _layer_share() -> np.ndarray:
    layers = [PLACES[kind][0].value if kind in PLACES else "drop" for kind in KINDS]
    return np.asarray([1.0 / len(set(layers)) / layers.count(layer) for layer in layers])


LAYER_SHARE = _layer_share()  # each kind's weight in the training loss (sums to 1)

_QUESTION = re.compile(
    r"[?？]\s*$|[吗呢]\s*[?？!！。]?\s*$|^(?:what|why|how|which|who|when|where|can you|could you|is there)\b", re.I
)
_FIRST_PERSON = re.compile(r"^(?:I|I'm|I've|I'd|my)\b|^我(?!们)", re.I)
_WE = re.compile(r"\b(?:we|we're|we've|we'll|our|us)\b|我们|咱们", re.I)
_LABEL = re.compile(r"^[^:：\n]{1,24}[:：]\s*\S")
_CODE = re.compile(
    r"`[^`]+`|(?<![\w/.-])(?:[\w.-]+/)+[\w.-]*|\b[\w-]+\.(?:py|js|ts|md|json|ya?ml|toml|go|rs|java|sh)\b"
)
_EXCLAIM = re.compile(r"[!！]")
_NEGATIVE_VOTE = re.compile(r"^\W*[+-]1\b")
# Words that make a sentence a norm rather than a fact ("should", "only", "应该", "尽量").
_MODAL = re.compile(
    r"\b(?:should|must|need(?:s)? to|ha(?:ve|s) to|required|only|avoid|prefer(?:ably)?|please|never|always)\b|"
    r"应该|应当|需要|必须|请|避免|尽量|优先|只能|仅|不要|禁止|严禁|务必|建议|一律|统一",
    re.IGNORECASE,
)
# A sentence that starts with what to do ("Use …", "Keep …", "先…", "保持…").
_IMPERATIVE = re.compile(
    r"^\W*(?:use|run|write|keep|avoid|prefer|follow|put|ask|explain|make|generate|maintain|do|don't|respond|"
    r"reply|answer|name|format|handle|log|validate|store|include|place|treat|let|stick|favou?r|focus)\b|"
    r"^\W*(?:请|先|每次|所有|统一|保持|使用|遵循|采用|优先|坚持|尽量|始终|总是)",
    re.IGNORECASE,
)
# A changelog line says what was done: a version, a [Fixed]/【新增】 tag, or "Fixed:" in front.
_CHANGELOG = re.compile(
    r"^\W*(?:v?\d+\.\d+(?:\.\d+)?\b|[\[【](?:added|changed|fixed|removed|deprecated|security|新增|优化|修复|移除|调整|升级)[\]】]|"
    r"(?:added|changed|fixed|removed|deprecated)\s*:)",
    re.IGNORECASE,
)
_TODO_MARKER = re.compile(r"^\W*(?:TODO|FIXME|XXX|HACK)\b|^\W*待办")
# An issue title or changelog line starts with the change it asks for ("add …", "remove …", "增加 …").
_CHANGE_VERB = re.compile(
    r"^\W*(?:add|remove|move|fix|update|bump|improve|better|support|implement|refactor|rename|drop|replace|"
    r"clean up|investigate|check|migrate|upgrade|document)\b|"
    r"^\W*(?:增加|添加|移除|删除|修复|优化|支持|重构|迁移|升级|补充)",
    re.IGNORECASE,
)

# The structural features after the cue table's rules (each a 0/1 column; names kept for `reason`).
_STRUCTURE: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("question", _QUESTION),
    ("first person", _FIRST_PERSON),
    ("we", _WE),
    ("label: value", _LABEL),
    ("code or path", _CODE),
    ("exclamation", _EXCLAIM),
    ("vote", _NEGATIVE_VOTE),
    ("todo marker", _TODO_MARKER),
    ("changelog", _CHANGELOG),
    ("modal", _MODAL),
    ("imperative", _IMPERATIVE),
    ("change verb", _CHANGE_VERB),
)
FEATURE_NAMES: tuple[str, ...] = (
    *(f"cue {rule.name}" for rule in RULES),
    *(f"cue {name}" for name in CUE_FEATURES),
    *(name for name, _ in _STRUCTURE),
    "short",
    "long",
)


def cue_features(text: str) -> np.ndarray:
    """0/1 per `FEATURE_NAMES`: which cue-table rules match, the structural cues, and the length."""
    values: list[float] = []
    for rule in RULES:
        values.append(float(any(p.search(text) for patterns in rule.patterns.values() for p in patterns)))
    for patterns in CUE_FEATURES.values():
        values.append(float(any(p.search(text) for p in patterns)))
    for _, pattern in _STRUCTURE:
        values.append(float(bool(pattern.search(text))))
    words = word_count(text)
    values.append(float(words <= 4))
    values.append(float(words >= 30))
    return np.asarray(values, dtype=np.float32)


@dataclass(frozen=True)
class KindModel:
    """`weights` (features × kinds) and `bias` (kinds); `embedding_dim` 0 means cue features only. `prior`:
    log-odds added to each kind at prediction (the shift towards core, `scripts/train_capture_model.py`)."""

    weights: np.ndarray
    bias: np.ndarray
    embedding_dim: int
    cue_scale: float
    prior: np.ndarray

    def features(self, text: str, vector: np.ndarray | None) -> np.ndarray:
        cues = cue_features(text) * self.cue_scale
        if self.embedding_dim == 0:
            return cues
        if vector is None or vector.shape != (self.embedding_dim,):
            raise ValueError(f"this model reads a {self.embedding_dim}-d vector")
        return np.concatenate([np.asarray(vector, dtype=np.float32), cues])

    def probabilities(self, text: str, vector: np.ndarray | None = None) -> np.ndarray:
        """One probability per `KINDS`."""
        return softmax(self.features(text, vector) @ self.weights + self.bias + self.prior)


@dataclass(frozen=True)
class KindModels:
    """The two shipped weight sets: over an embedding (`embedded`) and over the cues alone (`cues_only`)."""

    embedded: KindModel
    cues_only: KindModel
    embedder: str

    def choose(self, vector: np.ndarray | None) -> KindModel:
        return self.embedded if vector is not None else self.cues_only


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    probabilities: np.ndarray = exp / exp.sum(axis=-1, keepdims=True)
    return probabilities


def fit(
    features: np.ndarray, labels: np.ndarray, l2: float, steps: int, rate: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression by full-batch gradient descent from zeros (deterministic). Each layer
    (core, long-term, short-term, drop) weighs the same in the loss, shared equally by its kinds, whatever
    the number of exemplars: three long-term kinds must not outvote the two core ones."""
    n, d = features.shape
    k = len(KINDS)
    onehot = np.zeros((n, k), dtype=np.float64)
    onehot[np.arange(n), labels] = 1.0
    counts = onehot.sum(axis=0)
    sample_weight = (LAYER_SHARE / np.maximum(counts, 1.0))[labels] * n
    x = features.astype(np.float64)
    weights = np.zeros((d, k))
    bias = np.zeros(k)
    for _ in range(steps):
        error = (softmax(x @ weights + bias) - onehot) * sample_weight[:, None] / n
        weights -= rate * (x.T @ error + l2 * weights)
        bias -= rate * error.sum(axis=0)
    return weights.astype(np.float32), bias.astype(np.float32)


def _data_path(name: str) -> Path:
    return Path(str(resources.files("aimate_memory.capture") / "data" / name))


def model_path() -> Path:
    return _data_path(MODEL_FILE)


def exemplars_path() -> Path:
    return _data_path(EXEMPLARS_FILE)


@cache
def load_models(path: Path | None = None) -> KindModels | None:
    """The shipped weights, or None when the file is missing or unreadable (the cue table decides then)."""
    try:
        with np.load(path or model_path()) as data:
            prior = data["prior"].astype(np.float32)
            return KindModels(
                embedded=KindModel(
                    data["embedded_w"].astype(np.float32),
                    data["embedded_b"],
                    int(data["embedding_dim"]),
                    float(data["cue_scale"]),
                    prior,
                ),
                # The prior was chosen for the embedded model; the cue-only one scores better without it.
                cues_only=KindModel(data["cues_w"].astype(np.float32), data["cues_b"], 0, 1.0, np.zeros_like(prior)),
                embedder=str(data["embedder"]),
            )
    except (OSError, KeyError, ValueError):
        return None
