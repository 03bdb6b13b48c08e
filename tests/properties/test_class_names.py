"""One name per class in aimate_memory (issue 28 §7): `Memory` the record and `Memory` the hooks' router, or two
`Outcome`s, make every import, traceback and review ask "which one?"."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import aimate_memory

PACKAGE = Path(aimate_memory.__file__).parent


def class_definitions() -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                found[node.name].add(path.relative_to(PACKAGE).as_posix())
    return found


def test_no_two_classes_share_a_name() -> None:
    twice = {name: files for name, files in class_definitions().items() if len(files) > 1}
    assert twice == {}
