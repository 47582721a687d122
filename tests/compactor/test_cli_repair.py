"""``ctxkeep compact --summarizer openai-chat`` as a subprocess against a real chat server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ctxkeep.base.messages import message_text
from ctxkeep.compactor.repair import LOST_HEADING
from tests.compactor.test_repair import (
    CONSTRAINT,
    INVENTED,
    KEY,
    completion,
    model_server,
    session,
)
from tests.conftest import run_cli
from tests.scorers._server import json_answer, score_server


def _file(tmp_path: Path) -> str:
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session()))
    return str(path)


def _summary(stdout: str) -> str:
    messages: list[Any] = [json.loads(line) for line in stdout.splitlines()]
    (summary,) = [m for m in messages if message_text(m).startswith(("[ctxkeep]", "The user"))]
    return message_text(summary)


COMPACT = ("compact", "--target-bytes", "2500", "--no-pins")


def test_the_cli_repairs_the_models_summary_and_replay_reproduces_it(tmp_path: Path) -> None:
    file = _file(tmp_path)
    receipt = str(tmp_path / "r.jsonl")
    with model_server() as srv:
        proc = run_cli(
            *COMPACT, file, "--summarizer", "openai-chat", "--summary-url", srv.url,
            "--summary-model", "summ-1", "--receipt", receipt,
            env={"CTXKEEP_SUMMARY_KEY": KEY},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert len(srv.requests) == 1
        again = run_cli("replay", file, "--scores", receipt)
        assert len(srv.requests) == 1  # replay calls no model
    text = _summary(proc.stdout)
    assert text.startswith(LOST_HEADING)
    assert f"- {CONSTRAINT}" in text.split("\n")
    assert INVENTED not in text
    assert (
        "ctxkeep: summary by openai-chat (model summ-1), audited: 2 lost instruction(s) "
        "appended, 1 invented item(s) removed"
    ) in proc.stderr
    assert KEY not in proc.stderr + Path(receipt).read_text()
    assert again.returncode == 0, again.stderr
    assert again.stdout == proc.stdout
    assert "summary by replay:openai-chat (model summ-1)" in again.stderr
    listed = run_cli("receipts", receipt)
    assert listed.returncode == 0, listed.stderr
    assert (
        "    summary by openai-chat (model summ-1), audited: 2 lost instruction(s) appended, "
        "1 invented item(s) removed"
    ) in listed.stdout
    (run,) = json.loads(run_cli("receipts", receipt, "--format", "json").stdout)["runs"]
    assert run["summary"]["removed"] == [INVENTED]
    assert CONSTRAINT in run["summary"]["appended"]


def test_the_endpoint_comes_from_the_environment_as_the_scorers_does(tmp_path: Path) -> None:
    file = _file(tmp_path)
    with model_server() as srv:
        proc = run_cli(
            *COMPACT, file, "--summarizer", "openai-chat",
            env={"CTXKEEP_SUMMARY_URL": srv.url, "CTXKEEP_SUMMARY_MODEL": "env-model"},
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert srv.requests[0]["body"]["model"] == "env-model"
    assert "Authorization" not in srv.requests[0]["headers"]
    assert CONSTRAINT in _summary(proc.stdout)


def test_a_failing_endpoint_warns_and_writes_the_extractive_summary(tmp_path: Path) -> None:
    file = _file(tmp_path)
    plain = run_cli(*COMPACT, file)
    assert plain.returncode == 0, plain.stderr
    with score_server(lambda body: json_answer({"error": "down"}, status=503)) as srv:
        proc = run_cli(*COMPACT, file, "--summarizer", "openai-chat", "--summary-url", srv.url)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout
    assert (
        f"ctxkeep: warning: summarizer openai-chat failed ({srv.url}/v1/chat/completions "
        "answered HTTP 503): the extractive summary was used"
    ) in proc.stderr
    assert "audited" not in proc.stderr
    with score_server(lambda body: json_answer(completion("late"), delay=3.0)) as srv:
        late = run_cli(
            *COMPACT, file, "--summarizer", "openai-chat", "--summary-url", srv.url,
            "--summary-timeout", "0.5",
        )  # fmt: skip
    assert late.returncode == 0, late.stderr
    assert late.stdout == plain.stdout
    assert "did not answer within 0.5 s" in late.stderr


def test_help_explains_the_summarizer() -> None:
    proc = run_cli("compact", "--help")
    assert proc.returncode == 0
    out = " ".join(proc.stdout.split())
    for needle in (
        "--summarizer [extractive|openai-chat]",
        "CTXKEEP_SUMMARY_URL",
        "CTXKEEP_SUMMARY_KEY",
        "--summary-model",
        "--summary-timeout",
        "lost standing instructions added verbatim",
    ):
        assert needle in out


def test_the_cli_offers_every_summarizer_the_compactor_knows() -> None:
    from ctxkeep.cli.compact import SUMMARIZER_NAMES
    from ctxkeep.compactor.abstractive import SUMMARIZERS

    assert SUMMARIZER_NAMES == SUMMARIZERS
