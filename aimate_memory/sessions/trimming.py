"""Session window trimming as pure functions over turns (docs/design.md, "Sessions").

The window is what an assistant is given of the conversation: every system turn, plus the turns from
`window_start` (a 0-based turn index) on. Trimming only moves `window_start` forward — the transcript
keeps every turn — and it moves it by whole rounds (a user turn and what follows until the next user
turn) so the window always starts at a question, never at a reply whose question left. The last
`protected_rounds` rounds and all system turns never leave the window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from aimate_memory.sessions.transcript import Turn

SYSTEM_ROLE = "system"
USER_ROLE = "user"
Level = Literal["ok", "warning", "critical"]


@dataclass(frozen=True)
class TrimPlan:
    new_window_start: int
    trimmed_range: tuple[int, int] | None  # [start, end) of the turns leaving the window; None: no trim
    usage_before: int
    usage_after: int

    @property
    def needed(self) -> bool:
        return self.trimmed_range is not None

    def trimmed_turn_indexes(self, turns: Sequence[Turn]) -> list[int]:
        """The turns to summarize: the trimmed range without its system turns (they stay in the window)."""
        if self.trimmed_range is None:
            return []
        start, end = self.trimmed_range
        return [index for index in range(start, end) if turns[index].role != SYSTEM_ROLE]


@dataclass(frozen=True)
class SessionUsage:
    tokens: int
    max_tokens: int
    level: Level

    @property
    def ratio(self) -> float:
        return self.tokens / self.max_tokens if self.max_tokens > 0 else 0.0

    def warnings(self) -> list[str]:
        if self.level == "ok":
            return []
        percent = f"{self.ratio:.0%}"
        if self.level == "critical":
            return [f"session window at {percent} of {self.max_tokens} tokens: critical, it will be trimmed"]
        return [f"session window at {percent} of {self.max_tokens} tokens: approaching the limit"]

    def to_dict(self) -> dict[str, object]:
        return {"tokens": self.tokens, "max_tokens": self.max_tokens, "ratio": self.ratio, "level": self.level}


def usage(turns: Sequence[Turn], window_start: int) -> int:
    """Tokens in the window: system turns before `window_start` plus every turn from it on."""
    before = sum(turn.tokens for turn in turns[:window_start] if turn.role == SYSTEM_ROLE)
    return before + sum(turn.tokens for turn in turns[window_start:])


def usage_level(tokens: int, max_tokens: int, warning_ratio: float, critical_ratio: float) -> SessionUsage:
    if tokens >= critical_ratio * max_tokens:
        return SessionUsage(tokens, max_tokens, "critical")
    if tokens >= warning_ratio * max_tokens:
        return SessionUsage(tokens, max_tokens, "warning")
    return SessionUsage(tokens, max_tokens, "ok")


def warnings(
    turns: Sequence[Turn], window_start: int, max_tokens: int, warning_ratio: float, critical_ratio: float
) -> list[str]:
    return usage_level(usage(turns, window_start), max_tokens, warning_ratio, critical_ratio).warnings()


def round_starts(turns: Sequence[Turn]) -> list[int]:
    """Index of every user turn: where each round begins."""
    return [index for index, turn in enumerate(turns) if turn.role == USER_ROLE]


def protected_start(turns: Sequence[Turn], protected_rounds: int) -> int:
    """First index of the last `protected_rounds` rounds (0 when there are not that many rounds)."""
    starts = round_starts(turns)
    if protected_rounds <= 0:
        return len(turns)
    if len(starts) < protected_rounds:
        return 0
    return starts[-protected_rounds]


def plan_trim(
    turns: Sequence[Turn],
    window_start: int,
    max_tokens: int,
    critical_ratio: float,
    target_ratio: float,
    protected_rounds: int,
) -> TrimPlan:
    """At `critical_ratio × max_tokens` or more, drop the oldest unprotected rounds from the window until
    usage ≤ `target_ratio × max_tokens` (or nothing unprotected is left)."""
    window_start = max(0, min(window_start, len(turns)))
    before = usage(turns, window_start)
    if before < critical_ratio * max_tokens:
        return TrimPlan(window_start, None, before, before)
    limit = protected_start(turns, protected_rounds)
    boundaries = [index for index in (*round_starts(turns), limit) if window_start < index <= limit]
    start, after = window_start, before
    for boundary in sorted(set(boundaries)):
        if after <= target_ratio * max_tokens:
            break
        after -= sum(turn.tokens for turn in turns[start:boundary] if turn.role != SYSTEM_ROLE)
        start = boundary
    if start == window_start:
        return TrimPlan(window_start, None, before, before)
    return TrimPlan(start, (window_start, start), before, after)
