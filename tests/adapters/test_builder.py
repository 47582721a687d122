"""Every adapter builds its events one way: through ``SessionBuilder.add``."""

from __future__ import annotations

import ast
from pathlib import Path

import ctxkeep.log.adapters as adapters_package
from ctxkeep.log.adapters.base import SessionBuilder, exit_code_failed, json_text, parts_text
from ctxkeep.log.model import Event, EventKind

ADAPTERS_DIR = Path(adapters_package.__file__).parent


def test_add_numbers_events_from_one_and_returns_them() -> None:
    b = SessionBuilder("s.jsonl", "test")
    first = b.add(EventKind.MESSAGE, line=3, role="user", text="hi")
    second = b.add(EventKind.TOOL_CALL, role="assistant", call_id="c1", tool_name="Read")
    assert first == Event(1, EventKind.MESSAGE, role="user", text="hi", line=3)
    assert second.seq == 2
    assert b.events == [first, second]


def test_a_seq_from_the_file_moves_the_counter_only_forward() -> None:
    b = SessionBuilder("s.jsonl", "ctxkeep")
    b.add(EventKind.MESSAGE, seq=10)
    b.add(EventKind.MESSAGE, seq=4)  # a broken log repeats or rewinds: kept as written
    assert [e.seq for e in b.events] == [10, 4]
    assert b.add(EventKind.MESSAGE).seq == 11


def test_set_text_replaces_only_the_text() -> None:
    b = SessionBuilder("s.jsonl", "test")
    b.add(EventKind.MESSAGE, role="assistant", text="part one", line=7, source_id="u1")
    b.set_text(1, "part one\n\npart two")
    assert b.build().events == (
        Event(1, EventKind.MESSAGE, role="assistant", text="part one\n\npart two", line=7,
              source_id="u1"),
    )  # fmt: skip


def test_shared_helpers() -> None:
    assert json_text({"b": 1, "a": [1, "x"]}) == '{"a":[1,"x"],"b":1}'
    assert [exit_code_failed(c) for c in (1, -1, 0, "1", True, None)] == [
        True, True, False, False, False, False,
    ]  # fmt: skip
    content = ["plain", {"type": "text", "text": "a"}, {"type": "image", "text": "b"}, {"x": 1}]
    assert parts_text(content) == "plain\na\nb"
    assert parts_text(content, frozenset({"text"})) == "plain\na"
    assert parts_text("whole") == "whole"
    assert parts_text(None) is None
    assert parts_text({"text": "not a list"}) is None


def _constructs_event(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name == "Event":
                lines.append(node.lineno)
    return lines


def test_no_adapter_builds_an_event_itself() -> None:
    found = {}
    for module in sorted(ADAPTERS_DIR.glob("*.py")):
        if module.name == "base.py":
            continue
        lines = _constructs_event(ast.parse(module.read_text(encoding="utf-8")))
        if lines:
            found[module.name] = lines
    assert found == {}, "build events with SessionBuilder.add, not Event(...)"


def test_the_builder_is_where_events_are_built() -> None:
    # The check above must be able to fail: base.py itself builds one.
    assert _constructs_event(ast.parse((ADAPTERS_DIR / "base.py").read_text(encoding="utf-8")))


def test_the_format_table_names_each_adapter_as_it_names_itself() -> None:
    from ctxkeep.log.adapters import ADAPTERS, adapter_named, format_names

    assert tuple(a.name for a in ADAPTERS) == format_names()
    for name in format_names():
        assert adapter_named(name).name == name
    assert {p.stem for p in ADAPTERS_DIR.glob("*.py")} >= {
        type(a).__module__.rsplit(".", 1)[1] for a in ADAPTERS
    }
