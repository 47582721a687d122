"""Package names imported on first use, listed once in the package's ``__init__.py``.

A package lists what it re-exports as explicit re-exports (``from ctxkeep.engine import
audit as audit``) inside its ``if TYPE_CHECKING:`` block: type checkers read them there,
and at run time :func:`attach` reads the same lines, so a name is imported when it is
first used and ``import ctxkeep`` or ``ctxkeep --help`` load nothing they do not need
(docs/design.md, "Start-up"). ``__all__`` is those names and the ones the package
defines itself (``own``), sorted. It is scientific-python's SPEC 1 (lazy loading), with
the list kept in the module instead of a ``.pyi`` stub so that the package may also
define functions. The source is parsed on the first lookup, not at import. A lazy name
must not also be the name of a submodule: importing the submodule would bind it in the
package first.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["attach", "lazy_exports"]


def lazy_exports(init_file: str | Path) -> dict[str, str]:
    """``name -> module`` for every ``from MODULE import NAME as NAME`` line inside the
    ``if TYPE_CHECKING:`` block of ``init_file``."""
    import ast

    exports: dict[str, str] = {}
    for block in ast.parse(Path(init_file).read_text(encoding="utf-8")).body:
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING":
            for node in block.body:
                if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    for alias in node.names:
                        if alias.asname == alias.name:
                            exports[alias.name] = node.module
    return exports


def attach(
    package: str, init_file: str, own: tuple[str, ...] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` (see the module docstring);
    ``own`` names what the package defines itself for its users."""
    exports: dict[str, str] = {}

    def table() -> dict[str, str]:
        if not exports:
            exports.update(lazy_exports(init_file))
        return exports

    def __getattr__(name: str) -> Any:
        if name == "__all__":
            value: Any = sorted(set(table()) | set(own))
        elif name in table():
            value = getattr(importlib.import_module(table()[name]), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)  # the next lookup is a plain attribute
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table()))

    return __getattr__, __dir__
