"""Rules spelled in one place only (issue 28 §6): the `state/` folder's name is vault/roots.py's."""

from __future__ import annotations

import ast
from pathlib import Path

import aimate_memory
from aimate_memory.vault.roots import STATE_DIR

PACKAGE = Path(aimate_memory.__file__).parent


def _spells_the_state_folder(node: ast.AST) -> bool:
    """`home / "state"`, or a string starting `state/` (a path built by hand)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return any(isinstance(side, ast.Constant) and side.value == STATE_DIR for side in (node.left, node.right))
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(f"{STATE_DIR}/")


def test_only_roots_names_the_state_folder() -> None:
    spelled = sorted(
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in PACKAGE.rglob("*.py")
        if path.name != "roots.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if _spells_the_state_folder(node)
    )
    assert spelled == []
