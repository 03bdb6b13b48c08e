"""The package's boundaries, read from its source (an AST walk; docs/architecture.md, "The facade"):

- no module imports a private name (`_x`, or a name from a `_x` module) of another top-level package of
  aimate_memory — what a package offers others is its public names;
- outside `system/`, nothing reads a private attribute of the facade or of one of its collaborators
  (`system._x`, `memory._x`, `system.store._x`): the faces and the lower layers get what they need from a
  public method (`Store.record`, `Store.has_index`, …) or a Protocol (`lifecycle.maintenance.MaintenanceHost`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "aimate_memory"
# Names the facade is held by in the code that calls it.
FACADE_NAMES = frozenset({"system", "memory", "_system"})
# What the facade holds (`system/facade.py`): a private read through one of them is a read of the facade's.
COLLABORATORS = frozenset(
    {"store", "perf", "retrieval", "memories", "capture", "sessions", "context", "git", "transfer", "upkeep"}
)


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_of(path: Path) -> list[str]:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def _imported_module(node: ast.ImportFrom, importer: list[str], is_package: bool) -> list[str]:
    if node.level == 0:
        return (node.module or "").split(".")
    base = importer if is_package else importer[:-1]
    base = base[: len(base) - (node.level - 1)]
    return [*base, *(node.module.split(".") if node.module else [])]


def private_imports(source: str, module: list[str], is_package: bool = False) -> list[tuple[int, str]]:
    """(line, what) for each private name `module` imports from another top-level package of aimate_memory."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            target = _imported_module(node, module, is_package)
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name.split(".")
                if target[0] == "aimate_memory" and target[1:2] != module[1:2] and any(map(_private, target)):
                    found.append((node.lineno, f"imports the private module {alias.name}"))
            continue
        else:
            continue
        if target[:1] != ["aimate_memory"] or target[1:2] == module[1:2]:
            continue
        dotted = ".".join(target)
        if any(map(_private, target)):
            found.append((node.lineno, f"imports from the private module {dotted}"))
        found += [(node.lineno, f"imports the private name {name} from {dotted}") for name in names if _private(name)]
    return found


def _held_facade(node: ast.expr) -> str | None:
    """`system`, `memory`, `self.system`, `system.store` …: the dotted name when it names the facade or one
    of its collaborators."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    holder = [part for part in parts if part != "self"]
    if not holder or holder[0] not in FACADE_NAMES or not set(holder[1:]) <= COLLABORATORS:
        return None  # not the facade, or something it hands out (`system.config`: the config's own business)
    return ".".join(parts)


def private_facade_reads(source: str) -> list[tuple[int, str]]:
    """(line, what) for each read of a private attribute of the facade or of a collaborator it holds."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            holder = _held_facade(node.value)
            if holder is not None:
                found.append((node.lineno, f"reads {holder}.{node.attr}"))
    return found


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_imports_a_private_name_of_another_package() -> None:
    violations = [
        Violation(str(path.relative_to(PACKAGE.parent)), line, what)
        for path in _modules()
        for line, what in private_imports(
            path.read_text(encoding="utf-8"), _module_of(path), is_package=path.name == "__init__.py"
        )
    ]
    assert not violations, "\n".join(map(str, violations))


def test_nothing_outside_the_facade_reads_its_private_attributes() -> None:
    """The package, and the tests and scripts too: a test that pokes `system._x` breaks with every refactor."""
    root = PACKAGE.parent
    paths = [*_modules(), *sorted((root / "tests").rglob("*.py")), *sorted((root / "scripts").rglob("*.py"))]
    violations = [
        Violation(str(path.relative_to(root)), line, what)
        for path in paths
        if path.parent != PACKAGE / "system"
        for line, what in private_facade_reads(path.read_text(encoding="utf-8"))
    ]
    assert not violations, "\n".join(map(str, violations))


@pytest.mark.parametrize(
    ("source", "module", "expected"),
    [
        ("from aimate_memory.index.textproc import _split\n", ["aimate_memory", "capture", "x"], 1),
        ("from aimate_memory.index._impl import run\n", ["aimate_memory", "capture", "x"], 1),
        ("import aimate_memory.index._impl\n", ["aimate_memory", "capture", "x"], 1),
        ("from ..index.textproc import _split\n", ["aimate_memory", "capture", "x"], 1),
        ("from .textproc import _split\n", ["aimate_memory", "index", "x"], 0),  # its own package
        ("from aimate_memory.index.textproc import script_of\n", ["aimate_memory", "capture", "x"], 0),
        ("from aimate_memory.system import __getattr__\n", ["aimate_memory", "cli", "x"], 0),  # a dunder
    ],
)
def test_the_import_check_catches_a_private_import(source: str, module: list[str], expected: int) -> None:
    assert len(private_imports(source, module)) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("system._record(vault, changes, automatic=True)\n", 1),  # what lifecycle/maintenance.py did
        ("self.system._indexes.clear()\n", 1),
        ("memory._kind_reader\n", 1),
        ("system.store._embedder\n", 1),
        ("system.store.record(vault, changes, automatic=True)\n", 0),
        ("index._conn\n", 0),  # not the facade
        ("system.__class__\n", 0),
        ("system.config._values\n", 0),  # the config's own private, not the facade's
    ],
)
def test_the_attribute_check_catches_a_private_read(source: str, expected: int) -> None:
    assert len(private_facade_reads(source)) == expected
