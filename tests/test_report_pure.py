"""Formatters are pure, as bandit's are: the audit result holds everything a report shows.

No module of ``ctxkeep.report`` reads a file or calls back into the engine: the imports
each one makes at run time are held to a list (type-only imports under
``TYPE_CHECKING`` are free), and every format renders the same bytes once the logs it
was audited from are gone.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from ctxkeep.engine import audit, sweep
from ctxkeep.report import render, report_named, report_names
from tests.conftest import EXAMPLES

REPORT = Path(__file__).resolve().parents[1] / "src" / "ctxkeep" / "report"

# What a format may import at run time: text and data tools, the finding and log-model
# types, the secret mask, and its own package. Not the engine, the rules, the readers or
# anything that touches the file system (os, io, pathlib.Path, gzip...).
ALLOWED = {
    "json": None,
    "html": {"escape"},
    "dataclasses": {"dataclass"},
    "typing": {"TYPE_CHECKING", "Any"},
    "collections.abc": {"Iterable", "Sequence"},
    "functools": {"cache"},
    "urllib.parse": {"quote"},
    "pathlib": {"PurePath"},  # path arithmetic for SARIF's URIs; it touches no file
    "importlib": None,  # the registry imports the format it renders
    "ctxkeep._version": {"__version__"},
    "ctxkeep.base.findings": {"FINGERPRINT_SCHEME", "Confidence", "Finding", "Severity"},
    "ctxkeep.log.model": {"located"},
    "ctxkeep.base.secrets": {"mask_secrets"},
}
# The page's own style sheet and script ship inside the package, beside the module that
# reads them: package data, not a log.
OWN_ASSETS = {"html_assets.py": {"importlib.resources": {"files"}}}
FILE_CALLS = {"open", "read_text", "read_bytes", "read"}


def _type_only(tree: ast.Module) -> set[ast.AST]:
    """The nodes under ``if TYPE_CHECKING:`` blocks."""
    hidden: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for child in node.body:
                hidden.update(ast.walk(child))
    return hidden


def _runtime_imports(path: Path) -> list[tuple[str, str | None]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = _type_only(tree)
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(tree):
        if node in hidden:
            continue
        if isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__":
            found.extend((node.module, alias.name) for alias in node.names)
    return found


def _file_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name in FILE_CALLS:
                calls.append(ast.unparse(func))
    return calls


def _modules() -> list[Path]:
    modules = sorted(REPORT.glob("*.py"))
    assert {m.name for m in modules} >= {"__init__.py", "html.py", "json.py", "sarif.py"}
    return modules


@pytest.mark.parametrize("module", _modules(), ids=lambda p: p.name)
def test_a_format_imports_nothing_that_reads_or_audits(module: Path) -> None:
    allowed = {**ALLOWED, **OWN_ASSETS.get(module.name, {})}
    for name, member in _runtime_imports(module):
        if name == "ctxkeep.report" or name.startswith("ctxkeep.report."):
            continue
        assert name in allowed, f"{module.name} imports {name} at run time"
        members = allowed[name]
        assert members is None or member in members, f"{module.name}: from {name} {member}"


@pytest.mark.parametrize("module", _modules(), ids=lambda p: p.name)
def test_a_format_opens_no_file(module: Path) -> None:
    calls = _file_calls(module)
    if module.name in OWN_ASSETS:
        # exactly one read, of its own asset in the package
        assert calls == ["(files('ctxkeep.report') / 'assets' / name).read_text"]
    else:
        assert calls == []


def test_every_format_renders_the_same_once_the_logs_are_gone(tmp_path: Path) -> None:
    logs = tmp_path / "examples"
    shutil.copytree(EXAMPLES, logs)
    results = {detail: sweep([logs], jobs=1, detail=detail) for detail in (False, True)}
    before = {name: render(name, results[report_named(name).detail]) for name in report_names()}
    shutil.rmtree(logs)
    after = {name: render(name, results[report_named(name).detail]) for name in report_names()}
    assert after == before
    # the page holds each compaction's detail, read from nowhere but the result
    assert before["html"].count('class="ck-compaction"') == sum(
        s.compactions.started for s in results[True].sessions
    )


def test_a_detailed_audit_differs_from_a_plain_one_only_by_its_detail() -> None:
    plain = audit(EXAMPLES)
    detailed = audit(EXAMPLES, detail=True)
    assert all(s.detail is None for s in plain.sessions)
    assert all(s.detail is not None for s in detailed.sessions)
    for name in ("text", "json", "sarif"):
        assert render(name, plain) == render(name, detailed)
