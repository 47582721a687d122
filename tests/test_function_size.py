"""No function in src/, tests/ or benchmarks/ is longer than 100 lines.

A function's lines run from its ``def`` to its last line, blank lines, comments and
docstring included; the decorators above the ``def`` (a click command's options) are
declarations applied to it and do not count, as in the line-count checkers of flake8's
plugins. Cyclomatic complexity (at most 25) is ruff's ``C901``, set in pyproject.toml.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MAX_LINES = 100


def long_functions(source: str, limit: int = MAX_LINES) -> list[tuple[str, int, int]]:
    """``(name, first line, length)`` of every function (nested ones too) over ``limit``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                found.append((node.name, node.lineno, length))
    return found


def test_no_function_is_longer_than_100_lines() -> None:
    offenders = [
        f"{path.relative_to(REPO)}:{line} {name} ({length} lines)"
        for folder in ("src", "tests", "benchmarks")
        for path in sorted((REPO / folder).rglob("*.py"))
        for name, line, length in long_functions(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "split these into named steps: " + "; ".join(offenders)


def test_the_count_starts_at_def_and_sees_nested_functions() -> None:
    body = "".join(f"    x = {i}\n" for i in range(99))
    assert long_functions(f"@decorator\n@another\ndef f():\n{body}") == []
    assert long_functions(f"def f():\n{body}    x = 99\n") == [("f", 1, 101)]
    nested = "class C:\n    async def g(self):\n" + body.replace("    ", "        ") * 2
    assert long_functions(nested) == [("g", 2, 199)]
