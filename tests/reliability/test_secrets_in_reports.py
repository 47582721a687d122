"""Issue 14, secrets: a key in a log is in no report, diff or receipt (reproducers; the
detectors themselves are tested in test_secrets.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.rules.build import write_log

OPENAI_KEY = "sk-proj-Q7vL2mX9kR4tW8pZ3nB6yC1dF5gH0jK"


def _log_with_a_key(tmp_path: Path) -> Path:
    steps: list[list[object]] = [
        ["user", f"Never commit the key {OPENAI_KEY}. Do not touch src/db.py."],
        ["call", "t1", "Bash", {"command": f"export OPENAI_API_KEY={OPENAI_KEY}"}],
        ["result", "t1", "ok"],
        ["compact", {"summary": "We set up the environment."}],
        ["user", "go on"],
    ]
    return write_log(tmp_path / "keyed.jsonl", steps)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "html"])
def test_a_key_in_the_log_is_in_no_report(tmp_path: Path, fmt: str) -> None:
    # secrets were repeated verbatim as evidence (64 times in one HTML page)
    log = _log_with_a_key(tmp_path)
    done = run_cli("audit", str(log), "--format", fmt)
    assert done.returncode in (0, 1), done.stderr
    assert OPENAI_KEY not in done.stdout
    assert "REDACTED:openai-api-key" in done.stdout
    assert "masked in the report (--show-secrets shows them)" in done.stderr
    shown = run_cli("audit", str(log), "--format", fmt, "--show-secrets")
    assert OPENAI_KEY in shown.stdout


def test_a_key_is_in_no_diff(tmp_path: Path) -> None:
    log = _log_with_a_key(tmp_path)
    for fmt in ("text", "json"):
        done = run_cli("diff", str(log), "-c", "1", "--format", fmt)
        assert done.returncode == 0, done.stderr
        assert OPENAI_KEY not in done.stdout
        assert (
            OPENAI_KEY
            in run_cli("diff", str(log), "-c", "1", "--format", fmt, "--show-secrets").stdout
        )


def test_pins_and_run_id_are_masked_in_receipts(tmp_path: Path) -> None:
    # --pin values and --run-id went verbatim into receipts
    conv = tmp_path / "c.json"
    conv.write_text(
        json.dumps([{"role": "user", "content": f"m{i} " + "x" * 200} for i in range(12)])
    )
    receipt = tmp_path / "r.jsonl"
    done = run_cli(
        "compact",
        str(conv),
        "--target-bytes",
        "800",
        "--receipt",
        str(receipt),
        "--pin",
        OPENAI_KEY,
        "--run-id",
        f"run-with-{OPENAI_KEY}",
    )
    assert done.returncode == 0, done.stderr
    written = receipt.read_text()
    assert OPENAI_KEY not in written
    assert "REDACTED:openai-api-key" in written
    assert run_cli("receipts", str(receipt)).returncode == 0  # still a trusted run
