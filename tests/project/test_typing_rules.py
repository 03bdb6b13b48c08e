"""The type checker's rules that mypy itself does not enforce (docs/architecture.md, "Types"; issue 28 §9):
every `# type: ignore` in the code mypy checks names its error codes and says why on the same line, and the
list of modules exempt from the strict flags only shrinks."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path
from typing import Any

import pytest
import tomlkit

ROOT = Path(__file__).resolve().parents[2]
IGNORE = re.compile(r"type:\s*ignore\b(?P<codes>\[[^\]]*\])?(?P<rest>.*)")
REASON = re.compile(r"^\s*#\s*(?P<reason>\S.*)$")
MIN_REASON_CHARS = 10  # "cached_property" passes, "# ok" does not


def ignore_problems(source: str) -> list[tuple[int, str]]:
    """(line, problem) for each `type: ignore` comment without an error code or without a reason after it."""
    problems = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type != tokenize.COMMENT or not (found := IGNORE.search(token.string)):
            continue
        line = token.start[0]
        codes = (found.group("codes") or "[]")[1:-1].strip()
        reason = REASON.match(found.group("rest"))
        if not codes:
            problems.append((line, "no error code: write type: ignore[code]"))
        if reason is None or len(reason.group("reason")) < MIN_REASON_CHARS:
            problems.append((line, "no reason: add '  # why' after it on the same line"))
    return problems


def _mypy_config() -> dict[str, Any]:
    document = tomlkit.parse((ROOT / "pyproject.toml").read_text(encoding="utf-8")).unwrap()
    config: dict[str, Any] = document["tool"]["mypy"]
    return config


def _checked_files() -> list[Path]:
    return sorted(path for package in _mypy_config()["packages"] for path in (ROOT / package).rglob("*.py"))


@pytest.mark.parametrize(
    ("line", "problems"),
    [
        ("x = f()  # type: ignore\n", ["no error code", "no reason"]),
        ("x = f()  # type: ignore[]  # numpy's stub is wrong here\n", ["no error code"]),
        ("x = f()  # type: ignore[arg-type]\n", ["no reason"]),
        ("x = f()  # type: ignore[arg-type]  # ok\n", ["no reason"]),
        ("x = f()  # type: ignore[arg-type, misc]  # typer's stub takes click's Context\n", []),
        ("x = f()  #type:ignore[misc]#cached_property set by a test\n", []),
        ("x = 'type: ignore'  # a string, not a comment\n", []),
        ("x = f()  # noqa: E501  # type: ignore\n", ["no error code", "no reason"]),
    ],
)
def test_the_rule_tells_a_justified_ignore_from_a_bare_one(line: str, problems: list[str]) -> None:
    found = [problem for _, problem in ignore_problems(line)]
    assert len(found) == len(problems)
    for problem, expected in zip(found, problems, strict=True):
        assert problem.startswith(expected)


def test_every_type_ignore_names_its_code_and_its_reason() -> None:
    files = _checked_files()
    assert len(files) > 100  # the whole package, not an empty glob
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {problem}"
        for path in files
        for line, problem in ignore_problems(path.read_text(encoding="utf-8"))
    ]
    assert bad == [], "\n".join(bad)


def test_every_module_is_strict() -> None:
    """Every module passed `mypy --strict` by 2026-11-26 (the last exemptions went with issue 28): one override,
    the strict flags for the whole package, and no section turning them off again."""
    (strict,) = _mypy_config()["overrides"]
    assert strict["module"] == ["aimate_memory", "aimate_memory.*"]
    flags = {key for key in strict if key != "module"}
    assert len(flags) >= 10
    # `implicit_reexport` is the one flag strict mode turns off.
    assert all(strict[key] is (key != "implicit_reexport") for key in flags)
