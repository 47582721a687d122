"""The import graph of src/ctxkeep against the layer table of docs/design.md ("Layers").

The table is read from the document itself, so the code and the prose cannot drift: every
unit (a top-level module, or a subpackage as one unit) has a row; a module imports only
from its own unit or from a lower layer, never from a unit beside it or above it; and no
modules import each other in a cycle. Every import counts: at the top of a module, inside
a function, and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
DESIGN = REPO / "docs" / "design.md"

_ROW = re.compile(r"^\|\s*(\d+)\s*\|([^|]*)\|")
_UNIT = re.compile(r"`([^`]+)`")


def layer_table(text: str) -> dict[str, int]:
    """``{unit: layer}`` from the table of the "Layers" section: ``rules/`` is the
    subpackage, ``tokens`` the module, ``ctxkeep`` the package's ``__init__``."""
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    table: dict[str, int] = {}
    for line in section.splitlines():
        row = _ROW.match(line)
        if row is None:
            continue
        for unit in _UNIT.findall(row.group(2)):
            assert unit not in table, f"{unit} has two rows"
            table[unit] = int(row.group(1))
    assert table, "docs/design.md has no layer table under '## Layers'"
    return table


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted((SRC / "ctxkeep").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def unit_of(module: str) -> str:
    """The unit a dotted module name belongs to, as the table writes it."""
    parts = module.split(".")
    if len(parts) == 1:
        return "ctxkeep"
    return f"{parts[1]}/" if (SRC / "ctxkeep" / parts[1]).is_dir() else parts[1]


def imports_of(module: str) -> set[str]:
    """The ctxkeep modules ``module`` imports, wherever the import stands."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            # ``from ctxkeep.rules import base`` imports the module ctxkeep.rules.base
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                for alias in node.names
            ]
        else:
            continue
        found.update(name for name in names if name == "ctxkeep" or name.startswith("ctxkeep."))
    return found


TABLE = layer_table(DESIGN.read_text(encoding="utf-8"))


def test_every_unit_has_a_row_and_every_row_a_unit() -> None:
    units = {unit_of(m) for m in MODULES}
    assert sorted(units - TABLE.keys()) == [], "units missing from the table in docs/design.md"
    assert sorted(TABLE.keys() - units) == [], "rows of docs/design.md naming no unit"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_imports_only_its_own_unit_or_lower_layers(module: str) -> None:
    unit = unit_of(module)
    wrong = []
    for target in sorted(imports_of(module)):
        other = unit_of(target)
        if other != unit and TABLE[other] >= TABLE[unit]:
            wrong.append(f"{target} ({other}, layer {TABLE[other]})")
    assert wrong == [], f"{module} ({unit}, layer {TABLE[unit]}) imports {', '.join(wrong)}"


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` as ``[a, b, ..., a]``, or ``[]`` when there is none."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str]:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return []
        for target in sorted(graph.get(module, ())):
            cycle = visit(target, [*path, module])
            if cycle:
                return cycle
        done.add(module)
        return []

    for module in sorted(graph):
        cycle = visit(module, [])
        if cycle:
            return cycle
    return []


def test_no_modules_import_each_other_in_a_cycle() -> None:
    graph = {m: imports_of(m) & MODULES.keys() for m in MODULES}
    assert find_cycle(graph) == [], "import cycle: " + " -> ".join(find_cycle(graph))


def test_the_checks_see_an_upward_import_and_a_cycle() -> None:
    """The reader of the table and of imports is itself right (so the tests above can fail)."""
    assert TABLE[unit_of("ctxkeep.cli.main")] > TABLE[unit_of("ctxkeep.engine")]
    assert unit_of("ctxkeep.rules.base") == "rules/"
    assert unit_of("ctxkeep") == "ctxkeep"
    # report/ imports the engine only for types, which counts: the engine sits below it
    assert "ctxkeep.engine" in imports_of("ctxkeep.report.html")
    table = "x\n## Layers\n| 0 | `a`, `b/` | bottom |\n| 2 | `c` | top |\n## Next\n"
    assert layer_table(table) == {"a": 0, "b/": 0, "c": 2}
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
