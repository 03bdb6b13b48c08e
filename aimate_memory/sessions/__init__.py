"""Sessions: the conversation in `sessions/current.md`, its window, trimming and summaries.

- `transcript` — `Turn`, render/parse the turn blocks (pure, exact round-trip);
- `trimming` — `plan_trim`, `usage`, `usage_level`, `warnings` (pure);
- `summarize` — `Summarizer` protocol, `ExtractiveSummarizer`, `EndpointSummarizer`, `summarize_with_fallback`;
- `store` — `SessionFile` (start, append, read, end, list) over one vault.
"""

from aimate_memory.sessions.store import (
    AppendResult,
    NoSessionError,
    SessionActiveError,
    SessionFile,
    SessionInfo,
    SessionSettings,
    SessionSnapshot,
)
from aimate_memory.sessions.summarize import (
    EndpointSummarizer,
    ExtractiveSummarizer,
    Summarizer,
    SummarizerError,
    Summary,
    summarize_with_fallback,
    summarizer_from_config,
)
from aimate_memory.sessions.transcript import Turn, parse_turns, render_turn, render_turns
from aimate_memory.sessions.trimming import SessionUsage, TrimPlan, plan_trim, usage, usage_level, warnings

__all__ = [
    "AppendResult",
    "EndpointSummarizer",
    "ExtractiveSummarizer",
    "NoSessionError",
    "SessionActiveError",
    "SessionFile",
    "SessionInfo",
    "SessionSettings",
    "SessionSnapshot",
    "SessionUsage",
    "Summarizer",
    "SummarizerError",
    "Summary",
    "TrimPlan",
    "Turn",
    "parse_turns",
    "plan_trim",
    "render_turn",
    "render_turns",
    "summarize_with_fallback",
    "summarizer_from_config",
    "usage",
    "usage_level",
    "warnings",
]
