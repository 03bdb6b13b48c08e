"""The secret guard's scanner: pure functions over text, no git, no disk (docs/design.md §8, seed 000 隐私配置).

Patterns are chosen to be specific (known token prefixes and shapes) so that ordinary notes about
passwords or keys do not trip them; the generic `password = …` rule skips obvious placeholders.
Configured `privacy.sensitive_keywords` match case-insensitively as substrings (privacy first:
`secret` also matches `secrets`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["SECRET_KINDS", "Finding", "contains_sensitive", "mask", "mask_text", "scan_text"]


@dataclass(frozen=True)
class Finding:
    """One suspected secret: 1-based line, what kind, and the line with the secret masked."""

    line: int
    kind: str
    excerpt_masked: str
    path: str | None = None  # set by the commit-time scan (vault- or repo-relative)

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.path else f"line {self.line}"


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
]
SECRET_KINDS = sorted({kind for kind, _, _ in _PATTERNS} | {"sensitive keyword"})

_PLACEHOLDER = re.compile(
    r"^(?:[$<{%(\[*.]|x{3,}|\*{3,})|^(?:none|null|nil|true|false|required|optional|changeme|example"
    r"|placeholder|redacted|your[_-].*|env|environ.*|os\.environ.*|getenv.*|process\.env.*)$",
    re.IGNORECASE,
)


# Kinds whose value has no public prefix: a password shows nothing of itself. Token kinds keep 4
# characters, which are the token's published type marker (`ghp_`, `AKIA`, `sk-p`), so a person can find it.
_REVEAL_NOTHING = frozenset({"password or key assignment"})


def mask(secret: str, reveal: bool = True) -> str:
    """Keep a 4-character prefix so a person can find it (`reveal`), hide the rest; length not shown."""
    if not reveal:
        return "*" * 4
    keep = 4 if len(secret) > 8 else 1
    return secret[:keep] + "…" + "*" * 4


def _excerpt(line: str, start: int, end: int, reveal: bool = True) -> str:
    masked = line[:start] + mask(line[start:end], reveal) + line[end:]
    masked = masked.strip()
    return masked if len(masked) <= 100 else masked[:99] + "…"


def _spans(line: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each secret value in one line, most specific pattern first, no overlaps."""
    taken: list[tuple[int, int, str]] = []
    for kind, pattern, group in _PATTERNS:
        for match in pattern.finditer(line):
            start, end = match.span(group)
            if any(start < t_end and t_start < end for t_start, t_end, _ in taken):
                continue
            if kind == "password or key assignment" and _PLACEHOLDER.match(match.group(group)):
                continue
            taken.append((start, end, kind))
    return taken


def mask_text(text: str) -> str:
    """`text` with every secret value masked as in findings (for diffs shown to tools and people)."""
    lines = []
    for line in text.split("\n"):
        for start, end, kind in sorted(_spans(line), reverse=True):
            line = line[:start] + mask(line[start:end], kind not in _REVEAL_NOTHING) + line[end:]
        lines.append(line)
    return "\n".join(lines)


def scan_text(text: str, sensitive_keywords: Iterable[str] = ()) -> list[Finding]:
    """Every suspected secret in `text`, by line. Keywords match case-insensitively."""
    keywords = [kw.casefold() for kw in sensitive_keywords if kw and kw.strip()]
    findings: list[Finding] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for start, end, kind in _spans(line):
            findings.append(Finding(number, kind, _excerpt(line, start, end, kind not in _REVEAL_NOTHING)))
        folded = line.casefold()
        for keyword in keywords:
            at = folded.find(keyword)
            if at >= 0 and len(folded) == len(line):
                findings.append(Finding(number, "sensitive keyword", _excerpt(line, at, at + len(keyword))))
            elif at >= 0:  # casefold changed the length (ß → ss): mask nothing rather than the wrong span
                findings.append(Finding(number, "sensitive keyword", f"(keyword {keyword!r})"))
    return findings


def contains_sensitive(text: str, keywords: Iterable[str], include_secrets: bool = False) -> bool:
    """True when `text` holds a configured sensitive keyword (case-insensitive): such a memory is
    not indexed (seed 000). With `include_secrets`, a detected secret counts too."""
    folded = text.casefold()
    if any(kw and kw.strip() and kw.casefold() in folded for kw in keywords):
        return True
    return include_secrets and bool(scan_text(text))
