"""The secret guard's scanner: pure functions over text and bytes, no git, no disk (docs/design.md §8,
docs/reliability.md "Security", seed 000 隐私配置).

Patterns are chosen to be specific (known token prefixes and shapes) so that ordinary notes about
passwords or keys do not trip them; the generic `password = …` rule skips obvious placeholders, and a
password stated in words ("the admin password is …", "密码是 …") must look like one (a digit or a symbol,
or 12+ characters). Configured `privacy.sensitive_keywords` match case-insensitively as substrings
(privacy first: `secret` also matches `secrets`). `scan_bytes` reads what git stores: any encoding
(UTF-8, UTF-16 with or without a BOM, GB18030, NUL-laden). A finding's excerpt masks EVERY secret on its
line, not only its own.

Why hand-written and not detect-secrets (1.5.0, PyPI), measured 2026-11-26 with
scripts/research/secret_scanners.py on the project's corpora (LoCoMo dev + MADial en/zh + capture dev:
17,737 lines, 788k characters, no real secret in them), median of 3 runs, both in one run on a 2-core box
at load 11: both find 0 there, but detect-secrets `scan_file` took 55.9 s (default plugins; 53.5 s without
the entropy plugins) where this scanner takes 0.59 s. Of the issue's five probes detect-secrets caught only
the AWS/GitHub line, missing "the admin password is hunter2hunter2", "数据库密码是 hunter2hunter2",
"口令：Sup3rS3cret!" and `password = hunter2hunter` in a .md file; it has no masking; and its per-string
`scan_line` flags 133,703 high-entropy "secrets" in the same corpus.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "SECRET_KINDS",
    "Finding",
    "MaskingFormatter",
    "contains_sensitive",
    "decodings",
    "mask",
    "mask_data",
    "mask_text",
    "scan_bytes",
    "scan_text",
]


@dataclass(frozen=True)
class Finding:
    """One suspected secret: 1-based line, what kind, and the line with the secret masked."""

    line: int  # 0: the finding is in the file's name (`path`)
    kind: str
    excerpt_masked: str
    path: str | None = None  # set by the commit-time scan (vault- or repo-relative), NOT masked: use `location`

    @property
    def location(self) -> str:
        """Where, for people: the path masked too (a file can be NAMED like a token); line 0 is the name."""
        if not self.path:
            return f"line {self.line}" if self.line else "the file name"
        return f"{mask_text(self.path)}:{self.line}" if self.line else f"{mask_text(self.path)} (its name)"


# (kind, pattern, group holding the secret value). Order: most specific first; one finding per span.
_PATTERNS: list[tuple[str, re.Pattern[str], int]] = [
    (
        "private key",
        re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        0,
    ),
    (
        "AWS access key id",
        re.compile(r"(?<![A-Z0-9])((?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16})(?![A-Z0-9])"),
        1,
    ),
    (
        "AWS secret access key",
        re.compile(r"(?i)aws_?(?:secret)_?(?:access)?_?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
        1,
    ),
    ("GitHub token", re.compile(r"(?<![A-Za-z0-9_])((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,})"), 1),
    ("GitHub token", re.compile(r"(?<![A-Za-z0-9_])(github_pat_[A-Za-z0-9_]{22,})"), 1),
    (
        "OpenAI-style API key",
        re.compile(r"(?<![A-Za-z0-9_-])(sk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,})"),
        1,
    ),
    ("Slack token", re.compile(r"(?<![A-Za-z0-9])(xox[abposr]-[A-Za-z0-9-]{10,})"), 1),
    (
        "Slack webhook",
        re.compile(r"(https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+)"),
        1,
    ),
    (
        "password or key assignment",
        re.compile(
            r"(?i)(?<![A-Za-z0-9])(?:password|passwd|pwd|passphrase|secret|secret[_-]?key|client[_-]?secret"
            r"|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|private[_-]?key|token|密码|口令|密钥)"
            r"[\"']?[ \t]*(?:[:=]|：)[ \t]*[\"']?([^\s\"',;`]{6,})"
        ),
        1,
    ),
    (
        "password stated in words",
        re.compile(
            r"(?i)(?<![A-Za-z0-9])(?:password|passwd|passphrase|passcode|pin code)"
            r"(?:\s+(?:for|of|to|on)\s+(?:the\s+|my\s+|our\s+)?[\w.@:/-]+)?"
            r"\s+(?:is|was|=)\s+(?:now\s+|still\s+|set\s+to\s+)?[\"'`“]?([!-~]{6,})"
        ),
        1,
    ),
    (
        "password stated in words",
        re.compile(r"(?:密码|口令|密钥|令牌|暗号)\s*(?:是|为|為|改成|改为|设为|设置为)\s*[\"'`“「]?([!-~]{6,})"),
        1,
    ),
]
SECRET_KINDS = sorted({kind for kind, _, _ in _PATTERNS} | {"sensitive keyword"})

_PLACEHOLDER = re.compile(
    r"^(?:[$<{%(\[*.]|x{3,}|\*{3,})|^(?:none|null|nil|true|false|required|optional|changeme|example"
    r"|placeholder|redacted|your[_-].*|env|environ.*|os\.environ.*|getenv.*|process\.env.*)$",
    re.IGNORECASE,
)
# A value stated in words must look like a password, not like the next word ("the password is stored …").
_LOOKS_LIKE_PASSWORD = re.compile(r"[0-9]|[^A-Za-z0-9]|^.{12,}$")
_VALUE_END = "\"'`”」.,;:!?)]}>"  # closing quotes and sentence punctuation are not part of a stated value


# Kinds whose value has no public prefix: a password shows nothing of itself. Token kinds keep 4
# characters, which are the token's published type marker (`ghp_`, `AKIA`, `sk-p`), so a person can find it.
_REVEAL_NOTHING = frozenset({"password or key assignment", "password stated in words"})


def mask(secret: str, reveal: bool = True) -> str:
    """Keep a 4-character prefix so a person can find it (`reveal`), hide the rest; length not shown."""
    if not reveal:
        return "*" * 4
    keep = 4 if len(secret) > 8 else 1
    return secret[:keep] + "…" + "*" * 4


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    kind: str

    @property
    def reveal(self) -> bool:
        return self.kind not in _REVEAL_NOTHING


# A word every pattern above needs (lower-cased, a superset): a line without one holds no secret. Most lines
# have none, and `in` over a lower-cased line is far cheaper than every pattern, or one regex alternation
# (the corpus of scripts/research/secret_scanners.py at load 11: every pattern on every line 0.72 s, one
# regex alternation as the filter 0.46 s, this 0.25 s). A new pattern must add its word here:
# tests/git/test_secrets.py has a case for every kind.
TRIGGERS = (
    *("akia", "asia", "agpa", "aida", "aroa", "anpa", "aipa", "aws", "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    *("github_pat_", "sk-", "xox", "hooks.slack", "private", "pass", "pwd", "secret", "api", "key", "token"),
    *("pin code", "密码", "口令", "密钥", "令牌", "暗号"),
)


def _triggers_in(text: str) -> tuple[str, ...]:
    lowered = text.lower()
    return tuple(word for word in TRIGGERS if word in lowered)


def _spans(line: str, triggers: tuple[str, ...] = TRIGGERS) -> list[_Span]:
    """Each secret value in one line, most specific pattern first, no overlaps. `triggers`: the words of
    TRIGGERS the whole text holds (a line can hold no other)."""
    lowered = line.lower()
    if not any(word in lowered for word in triggers):
        return []
    taken: list[_Span] = []
    for kind, pattern, group in _PATTERNS:
        for match in pattern.finditer(line):
            start, end = match.span(group)
            value = match.group(group)
            if kind == "password stated in words":
                end -= len(value) - len(value.rstrip(_VALUE_END))
                value = line[start:end]
                if len(value) < 6 or not _LOOKS_LIKE_PASSWORD.search(value):
                    continue
            if any(start < t.end and t.start < end for t in taken):
                continue
            if kind.startswith("password") and _PLACEHOLDER.match(value):
                continue
            taken.append(_Span(start, end, kind))
    return taken


def _keyword_spans(line: str, keywords: list[str]) -> Iterator[_Span | None]:
    """Each configured keyword in the line; None when case folding changed the line's length (ß → ss),
    so no span can be trusted (the whole line is then masked)."""
    folded = line.casefold()
    for keyword in keywords:
        for found in re.finditer(re.escape(keyword), folded):
            yield _Span(*found.span(), "sensitive keyword") if len(folded) == len(line) else None


def _masked(line: str, spans: list[_Span]) -> tuple[str, list[int]]:
    """The line with every span masked (overlapping spans masked as one, revealing a prefix only when all
    of them may), and where each span starts in the masked line (in `spans` order)."""
    groups: list[list[_Span]] = []
    for span in sorted(spans, key=lambda s: s.start):
        if groups and span.start < max(s.end for s in groups[-1]):
            groups[-1].append(span)
        else:
            groups.append([span])
    pieces: list[str] = []
    where: dict[int, int] = {}
    at = length = 0
    for group in groups:
        start, end = group[0].start, max(s.end for s in group)
        pieces.append(line[at:start])
        length += start - at
        for span in group:
            where[id(span)] = length
        shown = mask(line[start:end], all(s.reveal for s in group))
        pieces.append(shown)
        length += len(shown)
        at = end
    pieces.append(line[at:])
    return "".join(pieces), [where[id(span)] for span in spans]


def _excerpt(masked_line: str, at: int) -> str:
    """At most 100 characters of the masked line, around position `at`."""
    stripped = masked_line.strip()
    at = max(0, at - (len(masked_line) - len(masked_line.lstrip())))
    if len(stripped) <= 100:
        return stripped
    begin = max(0, min(at - 30, len(stripped) - 99))
    text = stripped[begin : begin + 99]
    return ("…" + text[1:] if begin else text) + "…"


def _line_findings(
    number: int, line: str, keywords: list[str], triggers: tuple[str, ...]
) -> Iterator[tuple[Finding, str]]:
    """(finding, secret value) for each secret on one line; every excerpt has all of them masked."""
    spans = _spans(line, triggers) if triggers else []
    keyword_spans = list(_keyword_spans(line, keywords))
    if not spans and not keyword_spans:
        return
    if None in keyword_spans:  # mask nothing rather than the wrong span: show no text at all
        for span in spans:
            yield Finding(number, span.kind, "(line not shown)"), line[span.start : span.end]
        for keyword in keywords:
            if keyword in line.casefold():
                yield Finding(number, "sensitive keyword", "(line not shown)"), keyword
        return
    every = spans + [s for s in keyword_spans if s is not None]
    masked, starts = _masked(line, every)
    reported: set[tuple[str, str]] = set()
    for span, start in zip(every, starts, strict=True):
        value = line[span.start : span.end].casefold()
        if span.kind == "sensitive keyword" and (span.kind, value) in reported:
            continue  # a keyword said twice on a line is one finding
        reported.add((span.kind, value))
        yield Finding(number, span.kind, _excerpt(masked, start)), value


def _findings(text: str, sensitive_keywords: Iterable[str]) -> Iterator[tuple[Finding, str]]:
    keywords = [kw.casefold() for kw in sensitive_keywords if kw and kw.strip()]
    triggers = _triggers_in(text)
    if not triggers and not (keywords and any(kw in text.casefold() for kw in keywords)):
        return
    for number, line in enumerate(text.splitlines(), start=1):
        yield from _line_findings(number, line, keywords, triggers)


def mask_text(text: str) -> str:
    """`text` with every secret value masked as in findings (for anything shown to tools and people)."""
    triggers = _triggers_in(text)
    if not triggers:
        return text
    lines = []
    for line in text.split("\n"):
        spans = _spans(line, triggers)
        lines.append(_masked(line, spans)[0] if spans else line)
    return "\n".join(lines)


def mask_data(value: Any) -> Any:
    """`value` with every string in it masked (dicts, lists and tuples walked; keys kept): for JSON shown to
    tools and people, masked before it is serialized so an escape is never cut in half."""
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, dict):
        return {key: mask_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [mask_data(item) for item in value]
    return value


def scan_text(text: str, sensitive_keywords: Iterable[str] = ()) -> list[Finding]:
    """Every suspected secret in `text`, by line. Keywords match case-insensitively."""
    return [finding for finding, _ in _findings(text, sensitive_keywords)]


# -- bytes, as git stores them --------------------------------------------------------------------

_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def decodings(data: bytes) -> list[str]:
    """Every reading of `data` a secret could hide in: as UTF-8 always; by its BOM; with NUL bytes, as UTF-16
    both ways and with the NULs dropped (ASCII in UTF-16 at any offset, NUL-padded text); as GB18030 when it
    is not UTF-8. A secret spelled in any of them is found; `errors="replace"` never hides the rest."""
    texts = [data.decode("utf-8", "replace")]
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            texts.append(data[len(bom) :].decode(encoding.removesuffix("-sig"), "replace"))
            break
    if b"\x00" in data:
        texts.append(data.decode("utf-16-le", "replace"))
        texts.append(data.decode("utf-16-be", "replace"))
        texts.append(data.replace(b"\x00", b"").decode("utf-8", "replace"))
    else:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            texts.append(data.decode("gb18030", "replace"))
    return texts


def scan_bytes(data: bytes, sensitive_keywords: Iterable[str] = (), known: bytes | None = None) -> list[Finding]:
    """Every suspected secret in `data` read every way `decodings` gives, each value once, except those
    already in `known` (the version being replaced: a secret a person let through before is not new)."""
    keywords = list(sensitive_keywords)
    seen: set[tuple[str, str]] = set()
    found: list[tuple[Finding, str]] = []
    for text in decodings(data):
        for finding, value in _findings(text, keywords):
            if (finding.kind, value) not in seen:
                seen.add((finding.kind, value))
                found.append((finding, value))
    if found and known:  # the old version is read only when the new one holds something
        old = {value for text in decodings(known) for _, value in _findings(text, keywords)}
        found = [(finding, value) for finding, value in found if value not in old]
    return [finding for finding, _ in found]


class MaskingFormatter(logging.Formatter):
    """A log formatter that masks every secret in what it writes (message, arguments and traceback):
    for daemon.log, mcp.log and hooks.log (docs/reliability.md "Security")."""

    def format(self, record: logging.LogRecord) -> str:
        return mask_text(super().format(record))


def contains_sensitive(text: str, keywords: Iterable[str], include_secrets: bool = False) -> bool:
    """True when `text` holds a configured sensitive keyword (case-insensitive): such a memory is
    not indexed (seed 000). With `include_secrets`, a detected secret counts too."""
    folded = text.casefold()
    if any(kw and kw.strip() and kw.casefold() in folded for kw in keywords):
        return True
    return include_secrets and bool(scan_text(text))
