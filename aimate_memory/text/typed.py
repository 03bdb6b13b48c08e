"""What the person typed in a turn, apart from what they pasted (pure; docs/design.md, "Capture from a
conversation"): fenced and indented code, quoted replies, log and stack-trace lines, and lines too long to have
been typed as one sentence are left out. Both capture (only the person's own words become memories) and the
prompt hook's search (a pasted log is not what the person is asking about) read a turn through here."""

from __future__ import annotations

import re

MAX_TYPED_LINE = 400  # longer than a line a person types, unless it reads as prose (`_PROSE`)
MAX_TYPED_PARAGRAPH = 2000  # longer than a paragraph typed on one line: a paste whatever it reads like
PROSE_SYMBOL_SHARE = 0.08  # a typed paragraph's symbols (quotes, backticks, brackets) stay under this share
# Prose: two sentence ends followed by more words (Latin with spaces between words, or CJK).
_PROSE = re.compile(r"(?:[.!?]\s+\S.*?|[。！？；]\s*\S.*?){2}")
_FENCE = re.compile(r"^\s*(```|~~~)")
_QUOTED = re.compile(r"^\s*>")
_INDENTED_CODE = re.compile(r"^(?: {4}|\t)\S")
# A line of a log or a trace: a timestamp, a level, a stack frame, a shell prompt, a path:line:col, a diff line.
_LOG_LINE = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}[.,]?\d*\]?\s|"
    r"(?:DEBUG|INFO|WARN(?:ING)?|ERROR|CRITICAL|FATAL|TRACE)\b[\s:\]-]|"
    r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|at [\w$.<>]+ \(.*:\d+(?::\d+)?\)|"
    r"at .+:\d+:\d+\)?$|[$#] \S|PS [A-Z]:\\|[+-]{3} [ab]/|@@ [-+]\d|\w*(?:Error|Exception): )"
)
# What a tool printed (a shell prompt, npm's and a test runner's lines, `git status`), and what an assistant
# wrote that is pasted back (its emoji-led headings and checkmarks, bold markup, table rows): never typed as a
# sentence of the person's own (docs/design.md, "Capture from a conversation").
_TOOL_OUTPUT = re.compile(
    r"^\s*(?:\(\w[\w.-]*\)\s+\S*\s*➜|.*\bgit:\(|npm (?:warn|WARN|ERR!|notice)\b|yarn (?:warn|error)\b|"
    r"(?:FAIL|PASS|SKIP|ok|not ok)\s+\S+\.\w+|[✓✔✗✘×]\s|"
    r"\(use \"git |(?:On branch|Your branch is|Changes not staged|Changes to be committed|Untracked files)\b|"
    r"(?:modified|new file|deleted|renamed):\s|[MADRCU?]{1,2} {1,2}[\w./-]+$|\|.*\|\s*$)"
)
_ASSISTANT_MARKUP = re.compile(
    r"^\s*[\u2600-\u27bf\U0001f300-\U0001faff\u25a0-\u25ff]|^\s*(?:[-*+]\s+|\d+\.\s+)?\*\*|\*\*\s*[:：]|^\s*[、，]"
)
# A line that is mostly symbols (JSON, a table rule, minified code) is not a sentence someone typed.
_SYMBOLS = re.compile(r"[{}\[\]();=<>|\\/\"'`,:_*#$%^&~+-]")
SYMBOL_SHARE = 0.25


def typed_lines(text: str) -> list[str]:
    """The lines of a turn the person typed: fenced blocks, indented code, quoted lines, log and trace lines
    and symbol-heavy lines left out."""
    kept: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or _QUOTED.match(line) or _INDENTED_CODE.match(line) or _pasted(line):
            continue
        kept.append(line)
    return kept


def _pasted(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if _LOG_LINE.match(stripped) or _TOOL_OUTPUT.match(stripped) or _ASSISTANT_MARKUP.search(stripped):
        return True
    symbols = len(_SYMBOLS.findall(stripped)) / len(stripped)
    if len(stripped) > MAX_TYPED_LINE:
        # A paragraph typed on one line is prose: words and spaces, sentence ends, few symbols. A minified
        # file, a JSON dump or a base64 blob is not.
        return len(stripped) > MAX_TYPED_PARAGRAPH or symbols >= PROSE_SYMBOL_SHARE or not _PROSE.search(stripped)
    return len(stripped) >= 12 and symbols >= SYMBOL_SHARE


def typed_text(text: str, max_chars: int) -> str:
    """The person's own words of a turn as one line of at most `max_chars` characters (what a search for it
    should read); the text's start when nothing in it looks typed."""
    words = " ".join(" ".join(line.split()) for line in typed_lines(text) if line.strip())
    if not words:
        words = " ".join(text.split())
    return words[:max_chars]
