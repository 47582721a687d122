"""iter_records with a typed decoder: the fields an adapter reads, same problems as untyped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from ctxkeep.log.adapters.base import SessionBuilder, iter_fields
from ctxkeep.log.model import ParseProblem
from ctxkeep.log.source import Record, iter_records


class _Fields(msgspec.Struct):
    type: Any = None
    message: Any = None


LINES = (
    b'{"type": "user", "message": {"content": "hi"}, "toolUseResult": {"file": "x"}}\n'
    b"[1, 2]\n"
    b'{"type": \n'
    b"\n"
    b'{"message": "no type"}\n'
    b'{"type": "assistant"'
)


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_bytes(LINES)
    return path


def test_typed_and_untyped_reading_report_the_same_lines_and_problems(tmp_path: Path) -> None:
    path = _write(tmp_path)
    plain = list(iter_records(path))
    typed = list(iter_records(path, msgspec.json.Decoder(_Fields)))
    assert [type(x) for x in typed] == [type(x) for x in plain]
    assert [x for x in typed if isinstance(x, ParseProblem)] == [
        ParseProblem(3, "invalid JSON (Input data was truncated)"),
        ParseProblem(6, "truncated last line (no newline, incomplete JSON)"),
    ]
    # a record of another shape than the fields comes through untyped
    assert [x.value for x in typed if isinstance(x, Record)][1] == [1, 2]


def test_iter_fields_decodes_only_the_fields_asked_for(tmp_path: Path) -> None:
    path = _write(tmp_path)
    builder = SessionBuilder(str(path), "test")
    objects = list(iter_fields(path, builder, _Fields))
    assert objects == [
        (1, _Fields(type="user", message={"content": "hi"})),
        (5, _Fields(type=None, message="no type")),
    ]
    assert [(p.line, p.reason) for p in builder.problems] == [
        (2, "record is not a JSON object"),
        (3, "invalid JSON (Input data was truncated)"),
        (6, "truncated last line (no newline, incomplete JSON)"),
    ]
