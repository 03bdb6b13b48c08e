"""Summaries of the turns that leave a session window.

`ExtractiveSummarizer` (default): offline, deterministic, Chinese and English. It keeps whole sentences,
chosen by what is worth remembering — decisions (the capture rules' decision cues), paths, numbers,
names (CamelCase, `code`, capitalised words inside a sentence) — best first until `max_chars`, then
printed in conversation order. `EndpointSummarizer` asks an OpenAI-compatible chat endpoint (urllib,
no extra dependency); `summarize_with_fallback` falls back to the extractive one on any failure and
says so in a warning.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from aimate_memory.errors import AimateError
from aimate_memory.sessions.transcript import Turn

if TYPE_CHECKING:
    from aimate_memory.config.loader import Config

_SENTENCE_END = re.compile(r"(?<=[。！？；])|(?<=[.!?;])\s+|\n+")
_NUMBER = re.compile(r"\d")
_NAME = re.compile(r"`[^`]+`|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z0-9]+[A-Z]\w*|(?<=[\w,;:] )[A-Z][\w.-]+")


@cache
def _cues() -> tuple[tuple[re.Pattern[str], ...], re.Pattern[str]]:
    """Capture's decision cues and its path pattern. Imported on the first summary, not with the sessions
    package: a context or a prompt hook reads sessions and never summarizes (capture's rule tables cost
    20-40 ms of a cold start; docs/design.md, "What a cold command loads")."""
    from aimate_memory.capture.rules import PATH_CANDIDATE, RULES

    decision = tuple(
        pattern
        for rule in RULES
        if rule.name == "decision"
        for patterns in rule.patterns.values()
        for pattern in patterns
    )
    return decision, PATH_CANDIDATE


_FENCE = re.compile(r"^\s*(```|~~~)")
SYSTEM_PROMPT = (
    "Summarize this conversation excerpt for a long-term memory. Keep decisions, names, file paths and "
    "numbers; answer in the conversation's language; at most {max_chars} characters; no preamble."
)


class SummarizerError(AimateError):
    pass


@runtime_checkable
class Summarizer(Protocol):
    name: str

    def summarize(self, turns: Sequence[Turn], max_chars: int) -> str:
        """A summary of `turns` of at most `max_chars` characters."""
        ...


@dataclass(frozen=True)
class Summary:
    text: str
    summarizer: str  # the name of the summarizer that wrote it
    warning: str | None = None


@dataclass(frozen=True)
class _Sentence:
    position: int
    role: str
    text: str
    score: int


class ExtractiveSummarizer:
    name = "extractive"

    def summarize(self, turns: Sequence[Turn], max_chars: int) -> str:
        sentences = _sentences(turns)
        chosen: list[_Sentence] = []
        used = 0
        ranked = sorted(sentences, key=lambda sentence: (-sentence.score, sentence.position))
        for sentence in ranked:
            if sentence.score == 0 and chosen:
                break  # sentences with nothing worth keeping only fill an otherwise empty summary
            line_chars = len(_line(sentence)) + 1
            if used + line_chars > max_chars:
                continue
            chosen.append(sentence)
            used += line_chars
        chosen.sort(key=lambda sentence: sentence.position)
        text = "\n".join(_line(sentence) for sentence in chosen)
        return text if text or not sentences else _line(sentences[0])[: max(0, max_chars - 1)] + "…"


def _line(sentence: _Sentence) -> str:
    return f"- {sentence.role}: {sentence.text}"


def _sentences(turns: Sequence[Turn]) -> list[_Sentence]:
    out: list[_Sentence] = []
    for turn in turns:
        for text in _split(turn.text):
            out.append(_Sentence(len(out), turn.role, text, _score(text)))
    return out


def _split(text: str) -> list[str]:
    prose = "\n".join(line for line in _outside_fences(text))
    return [part.strip() for part in _SENTENCE_END.split(prose) if part and part.strip()]


def _outside_fences(text: str) -> list[str]:
    # Code blocks are not sentences; the paths and names around them carry what matters.
    lines, fenced = [], False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _score(sentence: str) -> int:
    decision, path = _cues()
    score = 3 if any(pattern.search(sentence) for pattern in decision) else 0
    score += 2 if path.search(sentence) else 0
    score += 1 if _NUMBER.search(sentence) else 0
    score += 1 if _NAME.search(sentence) else 0
    return score


class EndpointSummarizer:
    """An OpenAI-compatible `…/chat/completions` endpoint. `endpoint` is that URL, or its base (`…/v1`)."""

    name = "endpoint"

    def __init__(self, endpoint: str, model: str | None, api_key_env: str | None, timeout: float) -> None:
        self.url = (
            endpoint
            if endpoint.rstrip("/").endswith("/chat/completions")
            else endpoint.rstrip("/") + "/chat/completions"
        )
        self.model = model
        self.api_key_env = api_key_env
        self.timeout = timeout

    def summarize(self, turns: Sequence[Turn], max_chars: int) -> str:
        payload: dict[str, object] = {
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT.format(max_chars=max_chars)},
                {"role": "user", "content": "\n\n".join(f"{turn.role}: {turn.text}" for turn in turns)},
            ],
            "temperature": 0,
        }
        if self.model:
            payload["model"] = self.model
        # Imported here: http.client and urllib (with email) were 17 ms of every command's start-up.
        import http.client
        import urllib.request

        request = urllib.request.Request(
            self.url, data=json.dumps(payload).encode("utf-8"), headers=self._headers(), method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer = json.loads(response.read().decode("utf-8"))
            text = str(answer["choices"][0]["message"]["content"]).strip()
        except (OSError, http.client.HTTPException, ValueError, KeyError, IndexError, TypeError) as error:
            raise SummarizerError(f"summarizer endpoint {self.url} failed: {_describe(error)}") from error
        if not text:
            raise SummarizerError(f"summarizer endpoint {self.url} returned an empty summary")
        return text[:max_chars]

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers


def _describe(error: BaseException) -> str:
    import urllib.error

    if isinstance(error, urllib.error.HTTPError):
        return f"HTTP {error.code}"
    if isinstance(error, urllib.error.URLError):
        return str(error.reason)
    return str(error) or type(error).__name__


def summarize_with_fallback(
    turns: Sequence[Turn],
    max_chars: int,
    primary: Summarizer | None = None,
    fallback: Summarizer | None = None,
) -> Summary:
    """`primary` (the endpoint, when configured), else — or when it fails — the extractive summarizer."""
    backup = fallback or ExtractiveSummarizer()
    if primary is None:
        return Summary(backup.summarize(turns, max_chars), backup.name)
    try:
        return Summary(primary.summarize(turns, max_chars), primary.name)
    except AimateError as error:
        warning = f"{error.message}; used the {backup.name} summary instead"
        return Summary(backup.summarize(turns, max_chars), backup.name, warning)


def summarizer_from_config(config: Config) -> Summarizer | None:
    """The endpoint summarizer when `summarizer.endpoint` is set (None otherwise)."""
    get = config.get
    endpoint = get("summarizer.endpoint")
    if not endpoint:
        return None
    return EndpointSummarizer(
        str(endpoint), get("summarizer.model"), get("summarizer.api_key_env"), float(get("summarizer.timeout_seconds"))
    )
