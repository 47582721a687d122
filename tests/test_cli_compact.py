"""The compactor's commands as a user runs them: score, compact, receipts, replay, doctor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.compactor.conversations import invalid_reason
from tests.conftest import run_cli
from tests.scorers._server import json_answer, score_server

KEY = "sk-cli-test-ABCDEFGHIJKLMN"


def _conversation() -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the config loader. Do not change the public API."},
    ]
    for i in range(12):
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{i}", "type": "function",
                     "function": {"name": "run", "arguments": "{}"}}
                ],
            }
        )  # fmt: skip
        body = "config loader output " if i % 4 == 0 else "lorem ipsum dolor "
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": body * 12})
        messages.append({"role": "assistant", "content": f"step {i} done " * 5})
    messages.append({"role": "user", "content": "continue"})
    return messages


@pytest.fixture
def conversation_file(tmp_path: Path) -> Path:
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(_conversation()))
    return path


def _jsonl(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_compact_writes_jsonl_to_stdout_and_stats_to_stderr(conversation_file: Path) -> None:
    proc = run_cli("compact", str(conversation_file), "--target-bytes", "2000")
    assert proc.returncode == 0, proc.stderr
    out = _jsonl(proc.stdout)
    original = _conversation()
    assert len(out) < len(original)
    assert invalid_reason(out) is None
    assert out[0] == original[0]
    assert "ctxkeep: 39 -> " in proc.stderr
    assert "scorer lexical" in proc.stderr
    # it pipes: the output is valid input
    again = run_cli("compact", "-", "--target-bytes", "1500", stdin=proc.stdout)
    assert again.returncode == 0, again.stderr
    assert len(_jsonl(again.stdout)) <= len(out)


def test_compact_by_tokens_and_anthropic_object(tmp_path: Path) -> None:
    path = tmp_path / "req.json"
    messages = [{"role": "user", "content": "start " * 50}] + [
        {"role": "assistant" if i % 2 else "user", "content": "lorem ipsum " * 30}
        for i in range(10)
    ]
    path.write_text(json.dumps({"system": "be brief", "messages": messages}))
    proc = run_cli("compact", str(path), "--target-tokens", "300", "--keep-recent", "1")
    assert proc.returncode == 0, proc.stderr
    out = _jsonl(proc.stdout)
    summaries = [m for m in out if str(m.get("content", "")).startswith("[ctxkeep]")]
    assert summaries
    assert summaries[0]["role"] == "user"  # no system role inside Anthropic messages
    assert "tokens" in proc.stderr


def test_bad_jsonl_lines_are_located_and_the_rest_is_compacted(tmp_path: Path) -> None:
    path = tmp_path / "conv.jsonl"
    lines = [json.dumps(m) for m in _conversation()]
    lines.insert(2, '{"role": "user", "content": ')
    lines.insert(5, "[1, 2]")
    path.write_text("\n".join(lines) + "\n")
    proc = run_cli("compact", str(path), "--target-bytes", "2500")
    assert proc.returncode == 2
    assert f"{path}:3: message 2: invalid JSON" in proc.stderr
    assert f"{path}:6: message 5: expected a JSON object, got a number" in proc.stderr
    assert len(_jsonl(proc.stdout)) > 3


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("not json at all", ["--target-bytes", "10"], ":1: message 0: truncated last line"),
        (
            '[{"role": "user"},\n  {"role": ]',
            ["--target-bytes", "10"],
            ":2: message 1: truncated: the document ends inside it",
        ),
        ('{"nothing": 1}', ["--target-bytes", "10"], ":1: message 0: expected a message"),
        ("", ["--target-bytes", "10"], "empty file"),
        ("[]", [], "give --target-bytes N or --target-tokens N"),
    ],
)
def test_bad_input_is_a_clear_located_error(
    tmp_path: Path, content: str, args: list[str], message: str
) -> None:
    path = tmp_path / "in.json"
    path.write_text(content)
    proc = run_cli("compact", str(path), *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    # what could be read is compacted and written (the whole messages of a cut document)
    assert proc.stdout == ('{"role": "user"}\n' if "truncated:" in message else "")


def test_missing_file_and_receipt_over_the_input_are_refused(conversation_file: Path) -> None:
    proc = run_cli("compact", str(conversation_file.parent / "nope.json"), "--target-bytes", "9")
    assert proc.returncode == 2
    assert "cannot read" in proc.stderr
    before = conversation_file.read_bytes()
    proc = run_cli(
        "compact", str(conversation_file), "--target-bytes", "900",
        "--receipt", str(conversation_file),
    )  # fmt: skip
    assert proc.returncode == 2
    assert "would be written while being read" in proc.stderr
    assert conversation_file.read_bytes() == before


def test_receipt_summary_and_replay(conversation_file: Path, tmp_path: Path) -> None:
    receipt = tmp_path / "receipts.jsonl"
    proc = run_cli(
        "compact", str(conversation_file), "--target-bytes", "1500", "--receipt", str(receipt)
    )
    assert proc.returncode == 0, proc.stderr
    assert "receipt appended" in proc.stderr
    summary = run_cli("receipts", str(receipt))
    assert summary.returncode == 0, summary.stderr
    assert "1 trusted run" in summary.stdout
    assert "scorer lexical, target 1500 bytes" in summary.stdout
    as_json = json.loads(run_cli("receipts", str(receipt), "--format", "json").stdout)
    assert as_json["runs"][0]["messages"] == 39

    same = run_cli("replay", str(conversation_file), "--scores", str(receipt))
    assert same.returncode == 0, same.stderr
    assert same.stdout == proc.stdout  # the recorded decisions, reproduced
    assert "scorer replay:lexical" in same.stderr
    wider = run_cli(
        "replay", str(conversation_file), "--scores", str(receipt), "--target-bytes", "3000"
    )
    assert wider.returncode == 0, wider.stderr
    assert len(_jsonl(wider.stdout)) > len(_jsonl(proc.stdout))

    receipt.write_bytes(receipt.read_bytes()[:-40])  # torn by a crash
    torn = run_cli("receipts", str(receipt))
    assert torn.returncode == 2
    assert "0 trusted runs" in torn.stdout
    assert "torn last line" in torn.stdout
    refused = run_cli("replay", str(conversation_file), "--scores", str(receipt))
    assert refused.returncode == 2
    assert "no trusted run to replay" in refused.stderr


def test_score_shows_a_value_table(conversation_file: Path) -> None:
    proc = run_cli("score", str(conversation_file), "--task", "config loader")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:5] == ["#", "role", "bytes", "score", "conf"]
    assert "system" in lines[1]
    assert "pinned:constraint" in lines[2]
    assert "recent" in lines[-1]
    rows = json.loads(
        run_cli(
            "score", str(conversation_file), "--task", "config loader", "--format", "json"
        ).stdout
    )["messages"]
    scored = [r for r in rows if r["status"] == "scored"]
    assert max(r["score"] for r in scored) == 1.0
    assert rows[0]["score"] is None


def test_doctor_without_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CTXKEEP_SCORE_URL", raising=False)
    monkeypatch.delenv("CTXKEEP_SCORE_KEY", raising=False)
    proc = run_cli("doctor")
    assert proc.returncode == 0, proc.stdout
    assert "not set (CTXKEEP_SCORE_URL)" in proc.stdout
    assert "key:       not set" in proc.stdout
    assert run_cli("doctor", "--probe").returncode == 1


def test_doctor_probe_against_a_real_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXKEEP_SCORE_KEY", KEY)
    with score_server(lambda body: json_answer({"probabilities": [0, 0, 0, 1, 1]})) as srv:
        monkeypatch.setenv("CTXKEEP_SCORE_URL", srv.url + "/score")
        proc = run_cli("doctor", "--probe")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "reachable: yes" in proc.stdout
    assert "probe:     score 0.875, confidence 0.50" in proc.stdout
    assert KEY not in proc.stdout + proc.stderr
    assert "sk-…KLMN" in proc.stdout
    assert srv.requests[-1]["headers"]["Authorization"] == f"Bearer {KEY}"

    monkeypatch.setenv("CTXKEEP_SCORE_URL", srv.url)  # the server is gone now
    proc = run_cli("doctor", "--timeout", "2")
    assert proc.returncode == 1
    assert "reachable: NO" in proc.stdout


def test_compact_with_the_http_scorer_from_the_environment(
    conversation_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CTXKEEP_SCORE_KEY", KEY)
    receipt = tmp_path / "r.jsonl"

    def answer(body: Any) -> tuple[int, bytes, float]:
        n = len(body["question"]) if isinstance(body["question"], list) else 1
        return json_answer([{"level": "medium"}] * n)

    with score_server(answer) as srv:
        proc = run_cli(
            "compact", str(conversation_file), "--target-bytes", "1500", "--scorer", "http",
            "--url", srv.url, "--receipt", str(receipt),
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "requests" in proc.stderr
    assert "DEGRADED" not in proc.stderr
    assert KEY not in receipt.read_text()

    monkeypatch.delenv("CTXKEEP_SCORE_KEY")
    proc = run_cli(
        "compact", str(conversation_file), "--target-bytes", "1500", "--scorer", "http",
        "--url", "http://127.0.0.1:9",
    )  # fmt: skip
    assert proc.returncode == 0
    assert "DEGRADED: unavailable: no key" in proc.stderr
