"""Where a captured text goes: layer, category, scope, title (pure; the rules are in `rules.py`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from aimate_memory.capture.rules import FALLBACK, PATH_CANDIDATE, PROJECT_REFERENCES, RULES, CaptureRule
from aimate_memory.vault.layout import Layer, Scope

MAX_TITLE_CHARS = 80
# A clause ends at a sentence end or a line break; English `.` only before whitespace (not in "v1.2").
_CLAUSE_END = re.compile(r"[。！？；\n]|[.!?;](?=\s|$)")
_SOFT_BREAK = re.compile(r"[，、,：:]\s*|\s+")
_HEADING_MARK = re.compile(r"^\s*#{1,6}\s+")


@dataclass(frozen=True)
class Classification:
    layer: Layer
    category: str
    scope: Scope
    title: str
    body: str
    rule: str  # the rule's name: preference, rule, decision, task, note
    reason: str  # "matched 'I prefer' → preference; global"


@dataclass(frozen=True)
class _Match:
    rule: CaptureRule
    cue: str | None


def classify(
    text: str,
    *,
    has_project: bool,
    path_exists: Callable[[str], bool] | None = None,
    scope_override: Scope | None = None,
) -> Classification:
    """Classify one captured text. `path_exists(word)` says whether a path-like word names a file or
    folder of the current project (None: paths are not checked). `scope_override` is `--scope`."""
    body = text.strip()
    match = _first_match(body)
    project_cue = _project_reference(body, path_exists) if has_project else None
    scope, scope_reason = _scope(match.rule, has_project, project_cue, scope_override)
    cue = f"matched '{match.cue}' → {match.rule.name}" if match.cue else "no rule matched → note"
    return Classification(
        layer=match.rule.layer,
        category=match.rule.category,
        scope=scope,
        title=title_of(body),
        body=body,
        rule=match.rule.name,
        reason=f"{cue}; {scope_reason}",
    )


def _first_match(text: str) -> _Match:
    for rule in RULES:
        for patterns in rule.patterns.values():
            for pattern in patterns:
                found = pattern.search(text)
                if found:
                    return _Match(rule, found.group(0))
    return _Match(FALLBACK, None)


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


def _scope(rule: CaptureRule, has_project: bool, project_cue: str | None, override: Scope | None) -> tuple[Scope, str]:
    if override is not None:
        return override, f"{override.value} (--scope)"
    if not has_project:
        return Scope.GLOBAL, "global (no project)"
    if project_cue is not None:
        return Scope.PROJECT, f"project (names the project: {project_cue})"
    if rule.scope is Scope.GLOBAL:
        return Scope.GLOBAL, "global"
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
