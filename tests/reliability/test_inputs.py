"""Issue 14, inputs: one reader of message lists, one answer everywhere; problems capped."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ctxkeep.log.reader import read_session
from tests.conftest import run_cli

MAX_PROBLEMS_PER_FILE = 20  # ctxkeep.log.source.MAX_PROBLEMS_PER_FILE (a test holds them equal)

_COMMANDS = {
    "compact": ["--target-bytes", "100"],
    "score": [],
    "check-messages": [],
}


def _receipts(tmp_path: Path) -> Path:
    """A receipts file with one trusted run (for replay)."""
    conv = tmp_path / "conv.json"
    messages = [{"role": "user", "content": f"message {i} " + "x" * 200} for i in range(12)]
    conv.write_text(json.dumps(messages))
    receipt = tmp_path / "r.jsonl"
    done = run_cli("compact", str(conv), "--target-bytes", "800", "--receipt", str(receipt))
    assert done.returncode == 0, done.stderr
    return receipt


@pytest.mark.parametrize("command", [*_COMMANDS, "replay"])
def test_numbers_are_not_messages_anywhere(tmp_path: Path, command: str) -> None:
    # `compact` accepted [1, 2, "three"] and exited 0; check-messages rejected it
    path = tmp_path / "in.json"
    path.write_text('[1, 2, "three"]')
    extra = ["--scores", str(_receipts(tmp_path))] if command == "replay" else _COMMANDS[command]
    done = run_cli(command, str(path), *extra)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"{path}:1: message 0: expected a JSON object, got a number" in done.stderr
    assert f"{path}:1: message 2: expected a JSON object, got a string" in done.stderr
    assert done.stdout == ""


def test_the_message_reader_and_the_adapter_read_the_same_messages(tmp_path: Path) -> None:
    from ctxkeep.log.message_list import read_message_list
    from ctxkeep.log.source import MAX_PROBLEMS_PER_FILE as LIMIT

    assert LIMIT == MAX_PROBLEMS_PER_FILE
    path = tmp_path / "in.jsonl"
    lines = [
        '{"role": "user", "content": "a"}',
        "not json",
        '{"role": "assistant", "content": "b"}',
    ]
    path.write_text("\n".join(lines) + "\n")
    loaded = read_message_list(str(path))
    assert [m["content"] for m in loaded.messages] == ["a", "b"]
    assert loaded.problems == [
        f"{path}:2: message 1: invalid JSON (JSON is malformed: invalid character (byte 4))"
    ]
    session = read_session(path)
    assert [p.line for p in session.problems] == [2]


def _garbage(path: Path, lines: int) -> None:
    """Binary-looking bytes with no NUL (so not caught as binary by the first kilobytes)
    and many line breaks: every line is a decode problem."""
    rng = random.Random(14)
    alphabet = bytes(range(1, 256)).replace(b"\n", b"")
    body = b"\n".join(bytes(rng.choice(alphabet) for _ in range(20)) for _ in range(lines))
    path.write_bytes(body + b"\n")


@pytest.mark.parametrize("command", [*_COMMANDS, "receipts", "replay"])
def test_a_garbage_file_gives_a_screenful_not_thousands_of_lines(
    tmp_path: Path, command: str
) -> None:
    # a binary file given to compact, score, receipts or replay printed 10,769 lines
    path = tmp_path / "garbage.jsonl"
    _garbage(path, 3000)
    if command == "replay":
        extra = ["--scores", str(path)]
        target = tmp_path / "ok.json"
        target.write_text('[{"role": "user", "content": "hi"}]')
    else:
        extra = _COMMANDS.get(command, [])
        target = path
    done = run_cli(command, str(target), *extra)
    said = (done.stdout + done.stderr).splitlines()
    assert len(said) <= MAX_PROBLEMS_PER_FILE + 5, said[:5]
    assert any("more problems in this file" in line for line in said), said[-3:]


def test_an_audit_of_a_garbage_file_is_capped_too(tmp_path: Path) -> None:
    path = tmp_path / "garbage.jsonl"
    _garbage(path, 3000)
    session = read_session(path, format="openai")
    assert len(session.problems) == MAX_PROBLEMS_PER_FILE + 1
    assert "2980 more problems" in session.problems[-1].reason


def test_a_400_digit_count_is_no_crash(tmp_path: Path) -> None:
    # found by the fuzzer: {"type": "usage", "context_tokens": 10**400} in a ctxkeep log
    # made CK005's float arithmetic raise OverflowError out of audit
    path = tmp_path / "huge.jsonl"
    lines = [
        {"type": "session", "v": 1, "id": "s"},
        {"seq": 1, "type": "message", "role": "user", "text": "Never push to main."},
        {"seq": 2, "type": "usage", "context_tokens": 10**400},
        {"seq": 3, "type": "compaction/start", "compaction_id": "c", "tokens_before": 10**400},
        {"seq": 4, "type": "compaction/end", "compaction_id": "c", "status": "summarised",
         "summary": "We worked.", "shadowed_seqs": [[1, 2]], "tokens_after": -(10**400)},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    for fmt in ("text", "json", "sarif", "html"):
        done = run_cli("audit", str(path), "--format", fmt)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode in (0, 1)
