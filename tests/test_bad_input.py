"""Bad input, for every registered adapter, forced and sniffed.

Each case is a file holding good records of a format around one kind of damage. Whatever
the adapter: no exception escapes (``read_session`` turns an adapter crash into an
"internal error" problem, which these tests treat as a failure), every problem has a line
and a reason, the good records are still read, and the file is not written to. Formats
registered later without a good-record factory below are still fed every case; only the
"the rest is read" checks need to know what a good record of the format looks like.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxkeep import Session, read_session
from ctxkeep.log.adapters import format_names
from tests.conftest import run_cli

Record = dict[str, Any]
Factory = Callable[[str, int], Record]

# A good record of each format carrying ``text`` (the i-th of the file).
GOOD: dict[str, Factory] = {
    "ctxkeep": lambda text, i: {"type": "message", "seq": i, "role": "user", "text": text},
    "claude-code": lambda text, i: {
        "type": "user",
        "uuid": f"u-{i}",
        "parentUuid": f"u-{i - 1}" if i > 1 else None,
        "sessionId": "s-1",
        "isSidechain": False,
        "timestamp": "2026-11-29T10:00:00Z",
        "message": {"role": "user", "content": text},
    },
    "codex": lambda text, i: {
        "timestamp": "2026-11-29T10:00:00Z",
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": text}],
        },
    },
    "openhands": lambda text, i: {
        "id": i,
        "timestamp": "2026-11-29T10:00:00",
        "source": "user",
        "message": text,
        "action": "message",
        "args": {"content": text},
    },
    "anthropic": lambda text, i: {
        "role": "assistant",
        "content": [
            {"type": "text", "text": text},
            {"type": "tool_use", "id": f"toolu_{i}", "name": "bash", "input": {"c": "ls"}},
        ],
    },
    "openai": lambda text, i: {"role": "user", "content": text},
}

FORMATS = format_names()

HUGE_LINE_BYTES = 100 * 1024 * 1024


def _line(record: Record) -> bytes:
    return json.dumps(record).encode("utf-8") + b"\n"


def _good(fmt: str, text: str, i: int) -> bytes:
    return _line(GOOD[fmt](text, i))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_both_ways(path: Path, fmt: str) -> Iterator[Session]:
    """Read forced to ``fmt`` and sniffed; check what holds for every read."""
    before = _sha256(path) if path.is_file() else None
    for forced in (fmt, None):  # one at a time: a 100 MB session is not kept twice
        session = read_session(path, format=forced)
        for p in session.problems:
            assert "internal error" not in p.reason, p.reason
            assert isinstance(p.line, int)
            assert p.line >= 0
            assert p.reason.strip()
        yield session
    if before is not None:
        assert _sha256(path) == before, "ctxkeep wrote to a file it read"


def _texts(session: Session) -> str:
    return "\n".join(e.text for e in session.events)


def _assert_rest_read(session: Session, fmt: str, *texts: str) -> None:
    if fmt not in GOOD or session.format != fmt:
        # A format registered later, or a sniffer that claimed the file for a format the
        # records also fit: only "no exception, every problem located" is checked.
        return
    joined = _texts(session)
    for text in texts:
        assert text in joined, f"{session.format}: {text!r} was not read"


def _problem_lines(session: Session) -> set[int]:
    return {p.line for p in session.problems}


@pytest.mark.parametrize("fmt", FORMATS)
def test_invalid_utf8_is_located_and_the_rest_read(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "log.jsonl"
    bad = _good(fmt, "BROKEN-TEXT", 2) if fmt in GOOD else b'{"text": "BROKEN-TEXT"}\n'
    bad = bad.replace(b"BROKEN-TEXT", b"caf\xe9 \xff\xfe")
    body = _good(fmt, "first good", 1) + bad + _good(fmt, "last good", 3)
    path.write_bytes(body if fmt in GOOD else bad)
    for s in _read_both_ways(path, fmt):
        _assert_rest_read(s, fmt, "first good", "last good")
        if fmt in GOOD and s.format == fmt:
            (problem,) = [p for p in s.problems if p.line == 2]
            assert "UTF-8" in problem.reason


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_truncated_last_line_is_reported(tmp_path: Path, fmt: str) -> None:
    if fmt not in GOOD:
        pytest.skip(f"no good-record factory for {fmt}")
    path = tmp_path / "log.jsonl"
    last = _good(fmt, "cut off here", 3)
    path.write_bytes(
        _good(fmt, "first good", 1) + _good(fmt, "second good", 2) + last[: len(last) // 2]
    )
    for s in _read_both_ways(path, fmt):
        _assert_rest_read(s, fmt, "first good", "second good")
        assert 3 in _problem_lines(s)
        assert any("truncated" in p.reason for p in s.problems if p.line == 3)


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_empty_file_is_one_problem(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    for s in _read_both_ways(path, fmt):
        assert s.events == ()
        assert [p.reason for p in s.problems] == ["empty file"]
        assert not s.readable


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_folder_is_a_problem_not_a_crash(tmp_path: Path, fmt: str) -> None:
    folder = tmp_path / "not-a-log"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello\n", encoding="utf-8")
    for s in _read_both_ways(folder, fmt):
        assert s.events == ()
        assert s.problems
        assert any("director" in p.reason or "folder" in p.reason for p in s.problems)
    assert sorted(os.listdir(folder)) == ["notes.txt"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_binary_file_is_named_binary(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "image.jsonl"
    path.write_bytes(bytes(range(256)) * 64)
    for s in _read_both_ways(path, fmt):
        assert s.events == ()
        assert any("binary" in p.reason for p in s.problems)
        assert not any(p.reason.startswith("message") for p in s.problems)  # not per message


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_100_mb_line_is_read_or_reported_and_the_rest_read(tmp_path: Path, fmt: str) -> None:
    if fmt not in GOOD:
        pytest.skip(f"no good-record factory for {fmt}")
    path = tmp_path / "huge.jsonl"
    marker = "@@PAD@@"
    huge = _good(fmt, marker, 2)
    head, tail = huge.split(marker.encode(), 1)
    tail = tail.replace(marker.encode(), b"")  # formats that repeat the text keep one copy
    with path.open("wb") as fh:
        fh.write(_good(fmt, "before the huge line", 1))
        fh.write(head)
        pad = b"x" * (1 << 20)
        for _ in range(HUGE_LINE_BYTES // len(pad)):
            fh.write(pad)
        fh.write(tail)
        fh.write(_good(fmt, "after the huge line", 3))
    assert path.stat().st_size > HUGE_LINE_BYTES
    for s in _read_both_ways(path, fmt):
        _assert_rest_read(s, fmt, "before the huge line", "after the huge line")
        huge_read = any(len(e.text) >= HUGE_LINE_BYTES for e in s.events)
        assert huge_read or 2 in _problem_lines(s)
    path.unlink()


@pytest.mark.parametrize("fmt", FORMATS)
def test_json_nested_100000_deep_is_reported(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "deep.jsonl"
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    deep_object = b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n"
    if fmt in GOOD:
        body = _good(fmt, "first good", 1) + deep + deep_object + _good(fmt, "last good", 4)
    else:
        body = deep + deep_object
    path.write_bytes(body)
    for s in _read_both_ways(path, fmt):
        _assert_rest_read(s, fmt, "first good", "last good")
        if s.format == fmt and fmt in GOOD:
            nested = {p.line for p in s.problems if "nested too deeply" in p.reason}
            assert {2, 3} <= nested
    # A whole document nested that deep: nothing to read, and said so.
    only = tmp_path / "deep.json"
    only.write_bytes(deep)
    for s in _read_both_ways(only, fmt):
        assert s.events == ()
        assert s.problems


def _wrong_typed_variants(record: Record) -> Iterator[Record]:
    """``record`` with each field, at every depth, replaced by a value of each wrong type."""
    wrong: list[Any] = [None, True, -1, 2.5, "text", [], {}, [1, "a"], {"x": None}]
    for key, value in record.items():
        for bad in wrong:
            if type(bad) is not type(value):
                yield {**record, key: bad}
        if isinstance(value, dict):
            for inner in _wrong_typed_variants(value):
                yield {**record, key: inner}
        if isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, dict):
                    for inner in _wrong_typed_variants(item):
                        changed = list(value)
                        changed[index] = inner
                        yield {**record, key: changed}


@pytest.mark.parametrize("fmt", FORMATS)
def test_fields_of_the_wrong_type_never_crash(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "types.jsonl"
    lines = [_good(fmt, "first good", 1)] if fmt in GOOD else []
    for name, factory in GOOD.items():  # every format's shapes, to every adapter
        lines.extend(_line(v) for v in _wrong_typed_variants(factory(f"{name} text", 2)))
    if fmt in GOOD:
        lines.append(_good(fmt, "last good", 10_000))
    path.write_bytes(b"".join(lines))
    for s in _read_both_ways(path, fmt):
        _assert_rest_read(s, fmt, "first good", "last good")
        assert all(p.line <= len(lines) for p in s.problems)


@pytest.mark.parametrize("fmt", FORMATS)
def test_records_of_unknown_types_are_skipped(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "future.jsonl"
    unknown: list[Record] = [
        {"type": "hologram", "seq": 2, "payload": {"x": 1}},
        {"role": "wizard", "content": "abracadabra"},
        {"kind": "TeleportEvent", "id": "e-1"},
        {"type": "response_item", "payload": {"type": "quantum_call"}},
        {"id": 9, "source": "oracle", "action": "divine", "args": {}},
    ]
    body = b"".join(_line(r) for r in unknown)
    if fmt in GOOD:
        body = _good(fmt, "first good", 1) + body + _good(fmt, "last good", 7)
    path.write_bytes(body)
    for s in _read_both_ways(path, fmt):
        _assert_rest_read(s, fmt, "first good", "last good")


def _mixed_folder(root: Path) -> Path:
    folder = root / "logs"
    (folder / "nested").mkdir(parents=True)
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "binary.jsonl").write_bytes(b"\x00\x01\x02" * 100)
    (folder / "deep.json").write_bytes(b"[" * 100_000 + b"]" * 100_000)
    (folder / "nested" / "chat.jsonl").write_bytes(
        _good("openai", "Do not edit migrations.", 1)
        + b"{broken\n"
        + _good("openai", "ok", 2)[:-10]
    )
    return folder


def _snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): (_sha256(p) if p.is_file() else "dir")
        for p in sorted(folder.rglob("*"))
    }


@pytest.mark.parametrize("output", ["text", "json"])
def test_show_reads_what_it_can_and_never_writes(tmp_path: Path, output: str) -> None:
    folder = _mixed_folder(tmp_path)
    before = _snapshot(folder)
    proc = run_cli("show", "--format", output, str(folder))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    if output == "json":
        data = {Path(d["path"]).name: d for d in json.loads(proc.stdout)}
        assert data["chat.jsonl"]["events"] == 1
        assert [p["line"] for p in data["chat.jsonl"]["problems"]] == [2, 3]
        assert data["empty.jsonl"]["problems"] == [{"line": 0, "reason": "empty file"}]
        assert "binary" in data["binary.jsonl"]["problems"][0]["reason"]
        assert "nested too deeply" in str(data["deep.json"]["problems"])
    else:
        chat = folder / "nested" / "chat.jsonl"
        problems = [ln for ln in proc.stdout.splitlines() if f"problem: {chat}:" in ln]
        assert len(problems) == 2
        assert f"{chat}:2: " in problems[0]
        assert "invalid JSON" in problems[0]
        assert f"{chat}:3: " in problems[1]
        assert "truncated last line" in problems[1]
    assert _snapshot(folder) == before


@pytest.mark.parametrize("content", [b"", b"\x00\x00binary", b"[" * 100_000, b"{not json at all\n"])
def test_show_exits_2_only_when_nothing_could_be_read(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    proc = run_cli("show", str(path))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"problem: {path}:" in proc.stdout
    assert path.read_bytes() == content
    if b"\x00" in content:
        return  # a file with NUL bytes is binary as a whole: nothing after them is read
    path.write_bytes(content + b"\n" + _good("openai", "one good message", 1))
    proc = run_cli("show", "--log-format", "openai", str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("problem" in proc.stdout) == bool(content.strip())


def test_show_exits_2_on_an_empty_folder(tmp_path: Path) -> None:
    proc = run_cli("show", str(tmp_path))
    assert proc.returncode == 2
    assert "no *.jsonl or *.json" in proc.stdout
    assert list(tmp_path.iterdir()) == []


class _CrashingAdapter:
    """An adapter with a bug: what read_session does when one slips through."""

    name = "crashing"

    def sniff(self, head: object) -> bool:
        raise KeyError("sniff bug")

    def read(self, path: Path, display_path: str, options: object) -> Session:
        raise TypeError("read bug")


def test_a_crashing_adapter_becomes_a_located_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ctxkeep.log import adapters, reader

    crashing = _CrashingAdapter()
    names = adapters.format_names()
    monkeypatch.setattr(reader, "format_names", lambda: ("crashing", *names))  # sniffed first
    named = adapters.adapter_named
    monkeypatch.setattr(
        reader, "adapter_named", lambda n: crashing if n == "crashing" else named(n)
    )
    path = tmp_path / "chat.jsonl"
    path.write_bytes(_good("openai", "hello", 1))
    assert read_session(path).format == "openai"  # the broken sniffer said no
    s = read_session(path, format="crashing")
    assert s.events == ()
    (problem,) = s.problems
    assert problem.line == 0
    assert "internal error in the crashing adapter (TypeError: read bug)" in problem.reason
