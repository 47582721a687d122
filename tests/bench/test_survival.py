"""The fact-survival benchmark on the smoke corpus, and its LLM row against a real HTTP
server on 127.0.0.1. Values are what the benchmark is for; the tests check that each is
computed as documented and that every hard-budget run holds its target."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ctxkeep.base.messages import message_text
from ctxkeep.bench.fact_corpus import CHAT_CORPORA, ChatSpec, FactChat, generate_chat
from ctxkeep.bench.llm_summary import LLMEndpoint, held_to_bytes, llm_summary
from ctxkeep.bench.render import fact_table, fact_zone_table
from ctxkeep.bench.survival import (
    BUDGETS,
    METHOD_NAMES,
    ZONES,
    FactReport,
    Method,
    fact_methods,
    judge_replacement,
    recency_truncation,
    run_facts,
    to_json,
    zone_end,
)
from tests.conftest import run_cli
from tests.scorers._server import json_answer, score_server

SPEC = CHAT_CORPORA["smoke"][0]


def size(messages: Any) -> int:
    return sum(len(message_text(m).encode()) for m in messages)


@pytest.fixture(scope="module")
def report() -> FactReport:
    return run_facts("smoke")


@pytest.fixture(scope="module")
def smoke_chat() -> FactChat:
    return generate_chat(SPEC)


def test_every_method_and_budget_has_a_row(report: FactReport) -> None:
    assert [(r.method, r.budget) for r in report.rows] == [
        (m, b) for m in METHOD_NAMES for b in BUDGETS
    ]
    ran = {r.method for r in report.rows if r.unavailable is None}
    assert {"recency-truncation", "ctxkeep/soft", "ctxkeep/hard"} <= ran
    llm = [r for r in report.rows if r.method == "llm-summary"]
    assert all(r.unavailable == "not configured" and r.runs == 0 for r in llm)
    assert report.facts_planted > 0
    assert report.instructions_planted > 0
    assert 0 <= report.instructions_found <= report.instructions_planted


def test_every_hard_run_holds_its_target_and_soft_runs_say_how_far_over(
    report: FactReport,
) -> None:
    hard = [r for r in report.runs if r.method == "ctxkeep/hard"]
    assert len(hard) == len(CHAT_CORPORA["smoke"]) * len(ZONES) * len(BUDGETS)
    for run in hard:
        assert run.error is None
        assert run.bytes_out <= run.target_bytes or run.fits is False, run
    soft = [r for r in report.runs if r.method == "ctxkeep/soft"]
    assert any(r.bytes_out > r.target_bytes for r in soft)  # protected messages kept whole
    for row in report.rows:
        if row.unavailable is None and row.method == "ctxkeep/hard":
            assert row.within_target + row.not_fits >= row.runs


def test_runs_are_consistent(report: FactReport) -> None:
    for run in report.runs:
        assert run.error is None, run
        assert 0 <= run.facts_kept <= run.facts_total
        assert run.facts_total == sum(t for t, _ in run.kinds.values())
        assert 0 <= run.changed_kept <= run.changed_total
        assert 0 <= run.instructions_kept <= run.instructions_total
        assert run.target_bytes == max(1, int(run.zone_bytes * run.budget))
    for method in ("recency-truncation", "langchain-trim"):
        assert all(r.bytes_out <= r.target_bytes for r in report.runs if r.method == method)


def test_the_report_renders_and_round_trips_as_json(report: FactReport) -> None:
    text = fact_table(report, markdown=True)
    assert text.count("\n") == len(report.rows) + 1
    assert "| llm-summary | 1% | not configured |" in text
    zones = fact_zone_table(report, 0.01)
    assert "zone 98%" in zones
    assert "ctxkeep/hard" in zones
    data = json.loads(to_json(report))
    assert len(data["runs"]) == len(report.runs)
    assert to_json(report) == to_json(run_facts("smoke"))  # deterministic


def test_the_zone_ends_before_a_user_message(smoke_chat: FactChat) -> None:
    messages = smoke_chat.messages
    for share in (0.05, 0.5, 0.98, 1.0):
        end = zone_end(messages, share)
        assert 1 <= end < len(messages)
        assert messages[end]["role"] == "user"
    assert zone_end(messages, 0.5) < zone_end(messages, 0.75)


def test_a_fact_is_kept_by_its_keywords_and_a_changed_one_by_its_newer_value() -> None:
    generated = generate_chat(ChatSpec(12, "en", 800))
    changed = next(f for f in generated.facts if f.kind == "changed")
    assert changed.old_index is not None
    end = changed.message_index + 1
    while generated.messages[end]["role"] != "user":
        end += 1
    newer = [{"role": "user", "content": changed.text}]
    older = [{"role": "user", "content": generated.messages[changed.old_index]["content"]}]
    _kinds, total, kept, stale, _it, _ik = judge_replacement(generated, end, newer)
    assert total >= 1
    assert kept >= 1
    assert stale == 0
    _kinds, total, kept_old, stale_old, _it, _ik = judge_replacement(generated, end, older)
    assert kept_old == kept - 1
    assert stale_old == 1


def test_recency_truncation_keeps_the_zones_last_bytes(smoke_chat: FactChat) -> None:
    zone = smoke_chat.messages[:20]
    produced = recency_truncation(zone, smoke_chat.messages[20], 1000)
    assert 996 < size(produced.messages) <= 1000  # at most a cut character short
    joined = "".join(message_text(m) for m in zone)
    assert joined.endswith("".join(message_text(m) for m in produced.messages))


def _summariser(body: Any) -> tuple[int, bytes, float]:
    """A server that answers like a model asked for a summary: the lines of the
    conversation that say "my", and one line more than it was asked for."""
    part = body["messages"][-1]["content"]
    lines = [line for line in part.split("\n") if " my " in line.lower()]
    text = "\n".join([*lines, "An extra line the budget has no room for. " * 20])
    return json_answer({"choices": [{"message": {"role": "assistant", "content": text}}]})


def test_the_llm_summary_asks_a_real_server_and_holds_the_budget(smoke_chat: FactChat) -> None:
    zone = smoke_chat.messages[:40]
    with score_server(_summariser) as server:
        endpoint = LLMEndpoint(server.url, "tiny-model", key="sk-test")
        out = llm_summary(endpoint, zone, 600)
    assert size(out) <= 600
    assert out
    assert out[0]["role"] == "user"
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    body = request["body"]
    assert body["model"] == "tiny-model"
    assert "600 bytes" in body["messages"][0]["content"]
    assert body["max_tokens"] == 300
    assert message_text(zone[0]) in body["messages"][1]["content"]


def test_a_long_zone_is_summarised_in_parts_each_with_its_share(smoke_chat: FactChat) -> None:
    zone = smoke_chat.messages[:40]
    with score_server(_summariser) as server:
        endpoint = LLMEndpoint(server.url, max_input_bytes=8000)
        out = llm_summary(endpoint, zone, 2000)
    assert size(out) <= 2000
    assert len(server.requests) >= size(zone) // 8000
    limits = [r["body"]["max_tokens"] for r in server.requests]
    assert sum(limits) <= 2000 // 2 + 16 * len(limits)


def test_a_failing_server_is_that_runs_error_not_a_crash() -> None:
    with score_server(lambda body: json_answer({"error": "overloaded"}, 503)) as server:
        methods = [m for m in fact_methods(LLMEndpoint(server.url)) if m.name == "llm-summary"]
        report = run_facts(specs=[SPEC], zones=(0.5,), budgets=(0.05,), methods=methods)
    [run] = report.runs
    assert run.error is not None
    assert "HTTP 503" in run.error
    [row] = report.rows
    assert row.errors == 1
    assert row.fact_survival is None


def test_held_to_bytes_drops_whole_lines_then_cuts_the_first() -> None:
    assert held_to_bytes("alpha\nbeta\ngamma", 10) == "alpha\nbeta"
    assert held_to_bytes("éééé", 5) == "éé"


def test_methods_that_cannot_run_say_why() -> None:
    rows = {m.name: m for m in fact_methods(None)}
    assert rows["llm-summary"] == Method("llm-summary", None, "not configured")


def test_the_cli_runs_the_benchmark_against_a_real_server(tmp_path: Any) -> None:
    out = tmp_path / "facts.json"
    with score_server(_summariser) as server:
        result = run_cli(
            "bench", "facts", "--zones", "50", "--budgets", "1,5",
            "--method", "recency-truncation", "--method", "ctxkeep/hard",
            "--method", "llm-summary", "--llm-url", server.url, "--json", str(out),
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "ctxkeep/hard" in result.stdout
    assert "llm-summary" in result.stdout
    assert "facts kept at 5% of the zone, by zone" in result.stdout
    data = json.loads(out.read_text(encoding="utf-8"))
    assert {r["method"] for r in data["runs"]} == {
        "recency-truncation",
        "ctxkeep/hard",
        "llm-summary",
    }
    assert all(r["bytes_out"] <= r["target_bytes"] for r in data["runs"])
    assert len(server.requests) == 2 * len(CHAT_CORPORA["smoke"])


def test_the_cli_rejects_a_bad_share() -> None:
    result = run_cli("bench", "facts", "--budgets", "1,abc")
    assert result.returncode == 2
    assert "expected percentages" in result.stderr
