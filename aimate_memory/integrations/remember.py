"""The person's own "remember this" in a prompt, in English and Chinese (docs/agents.md, "Consent").

Only an instruction the person typed counts: the prompt *opens* with it — its first lines (blank lines
before them skipped), each starting with `remember:` / `remember that` / `记住` / `记得：`; the requests end
at the first line that is not one. A line further down — a pasted README, a code block, a quoted (`> `)
reply, a log — is text the person is showing, not asking to keep, and is never captured; so is a line
indented as code (4 spaces or a tab). A prompt whose other lines say not to save ("do not save anything",
"不要记") captures nothing at all: when a prompt is unclear, nothing is written. A question is not a request
("记得上次的方案吗？", "remember: which port was it?")."""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE
_LEAD = r"^ {0,3}"  # 4 spaces or a tab: an indented code block, pasted
REMEMBER_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(_LEAD + r"(?:please[ \t]+)?remember[ \t]*[:：][ \t]*(?P<text>.+)$", _FLAGS),
    re.compile(_LEAD + r"(?:please[ \t]+)?remember[ \t]+that[ \t]+(?P<text>.+)$", _FLAGS),
    re.compile(_LEAD + r"(?:请|帮我)?记住[ \t]*[:：,，]?[ \t]*(?P<text>.+)$", _FLAGS),
    # "记得…" alone is mostly "remember to … (now)" or a question; with a colon it asks to keep something.
    re.compile(_LEAD + r"(?:请)?记得[ \t]*[:：][ \t]*(?P<text>.+)$", _FLAGS),
)
# Said anywhere outside the requests, these withdraw consent for the whole prompt. The words are the
# ones a person uses to say "don't keep this"; a line that also means something else ("不要记录日志": don't
# log) is left out where it is common, and where it is rare the prompt saves nothing — the safe side.
OPT_OUT_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"\b(?:do[ \t]+not|don['’]?t|never|no[ \t]+need[ \t]+to|not[ \t]+to)[ \t]+"
        r"(?:save|store|remember|memori[sz]e)\b",
        _FLAGS,
    ),
    re.compile(r"(?:不要|不用|别|勿|无需|不必|不需要)(?:记住|记下|记着|记忆|保存|存储|存下|记)(?![录错得])"),
)
QUESTION_ENDINGS = ("?", "？", "吗", "吗。", "么", "呢")
MIN_CHARS = 2


def extract_remembered(prompt: str) -> list[str]:
    """What the prompt's opening lines ask to remember, in order, without duplicates; [] when the prompt
    says not to save anything."""
    lines = prompt.lstrip("\n").split("\n")
    requests: list[str] = []
    rest = len(lines)
    for position, line in enumerate(lines):
        text = _request(line.rstrip("\r"))
        if text is None:
            rest = position
            break
        requests.append(text)
    others = "\n".join(lines[rest:])
    if any(pattern.search(others) for pattern in OPT_OUT_PATTERNS):
        return []
    wanted = [text for text in requests if len(text) >= MIN_CHARS and not text.endswith(QUESTION_ENDINGS)]
    return list(dict.fromkeys(wanted))


def _request(line: str) -> str | None:
    """The text a line asks to remember, or None when the line is not a request."""
    for pattern in REMEMBER_PATTERNS:
        match = pattern.match(line)
        if match:
            return match.group("text").strip()
    return None
