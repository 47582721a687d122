from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from ctxkeep import CompactionResult, compact, replay
from ctxkeep.base.messages import message_text
from ctxkeep.compactor import read_receipts
from ctxkeep.scorers import Score, ScoreRequest, ScorerError, ScorerUnavailable
from ctxkeep.scorers.http import HttpScorer
from tests.compactor.conversations import invalid_reason
from tests.scorers._server import json_answer, score_server

TASK = "fix the config loader in the parser"


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def tool_turn(*pairs: tuple[str, str]) -> list[dict[str, Any]]:
    """One assistant message calling every tool in ``pairs``, then each result."""
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": "run", "arguments": "{}"}}
                for cid, _ in pairs
            ],
        },
        *({"role": "tool", "tool_call_id": cid, "content": out} for cid, out in pairs),
    ]


def filler(n: int, size: int = 200) -> list[dict[str, Any]]:
    return [assistant(f"step {i} " + "lorem ipsum " * (size // 12)) for i in range(n)]


def size(messages: Sequence[Any]) -> int:
    return sum(len(message_text(m).encode()) for m in messages)


class ListScorer:
    """Scores from a table by text; counts calls; optional failures by batch number."""

    name = "table"

    def __init__(
        self,
        table: dict[str, Score],
        *,
        remote: bool = False,
        fail_batches: Sequence[int] = (),
        unavailable: bool = False,
    ) -> None:
        self.table = table
        self.remote = remote
        self.fail_batches = set(fail_batches)
        self.unavailable = unavailable
        self.calls = 0

    def score(self, request: ScoreRequest) -> Sequence[Score]:
        self.calls += 1
        if self.unavailable:
            raise ScorerUnavailable("no key")
        if self.calls in self.fail_batches:
            raise ScorerError("boom")
        return [self.table.get(c.text, Score(0.5, 1.0)) for c in request.candidates]

    def describe(self) -> dict[str, object]:
        return {"name": self.name, "api_key": "SECRET-IN-DESCRIBE"}


def test_under_budget_changes_nothing(tmp_path: Path) -> None:
    messages = [user("hi"), assistant("hello")]
    receipt = tmp_path / "r.jsonl"
    result = compact(messages, TASK, target_bytes=10_000, receipt_path=receipt)
    assert result.messages == tuple(messages)
    assert all(a is b for a, b in zip(result.messages, messages, strict=True))
    assert not result.compacted
    assert {d.reason for d in result.decisions} == {"under-budget"}
    assert not receipt.exists()
    assert compact(messages, TASK).messages == tuple(messages)  # no target: nothing to fit


def test_keeps_what_matters_not_what_is_newest() -> None:
    messages = [
        {"role": "system", "content": "You are a coding agent."},
        user("Do not change the public API of the parser."),
        assistant("The config loader reads the parser settings twice. " * 3),
        *filler(10),
        user("ok sounds good"),
        *filler(4),
    ]
    result = compact(messages, TASK, target_bytes=1400, keep_recent=2)
    kept = {id(m) for m in result.kept}
    assert id(messages[0]) in kept  # system
    assert id(messages[1]) in kept  # pinned constraint
    assert id(messages[2]) in kept  # relevant to the task
    reasons = {d.index: d.reason for d in result.decisions}
    assert reasons[0] == "system"
    assert reasons[1] == "pinned:constraint"
    assert reasons[2] == "selected"
    assert reasons[len(messages) - 1] == "recent"
    assert result.decisions[2].score == 1.0
    assert result.decisions[13].score == 0.0  # "ok sounds good"
    # what a truncating harness does: the old, relevant message goes
    truncated = compact(messages, TASK, target_bytes=1400, keep_recent=2, scorer="recency")
    assert truncated.decisions[2].reason == "budget"
    assert truncated.decisions[13].kept
    assert result.stats.bytes_after <= 1400
    assert result.stats.bytes_after == size(result.messages)


def test_an_assistant_turn_and_all_its_results_go_together() -> None:
    turn = tool_turn(("a", "lorem " * 40), ("b", "the parser config loader fails"))
    messages = [user("start"), *turn, *filler(6), user("next")]
    result = compact(messages, TASK, target_bytes=900, keep_recent=1)
    decisions = result.decisions[1:4]
    assert len({d.kept for d in decisions}) == 1
    assert {d.unit for d in decisions} == {1}
    assert decisions[1].reason.startswith("paired:")
    assert invalid_reason(list(result.messages)) is None


def test_summary_takes_the_place_of_the_first_dropped_message() -> None:
    messages = [user("Do not touch the CLI."), *filler(12), user("now")]
    result = compact(messages, TASK, target_bytes=1600, keep_recent=1, summary_bytes=400)
    assert result.summary is not None
    first_dropped = min(d.index for d in result.decisions if not d.kept)
    kept_before = sum(1 for d in result.decisions[:first_dropped] if d.kept)
    assert result.summary_index == kept_before
    assert result.messages[kept_before] is result.summary
    assert result.summary["role"] == "system"
    text = result.summary["content"]
    assert text.startswith("[ctxkeep] ")
    assert len(text.encode()) <= 400
    assert result.stats.summary_bytes == len(text.encode())
    assert "lorem ipsum" in text  # extractive: it quotes dropped messages


def test_summary_is_at_most_a_quarter_of_the_remaining_budget() -> None:
    messages = [*filler(30), user("now")]
    target = 2000
    result = compact(messages, TASK, target_bytes=target, keep_recent=1, summary_bytes=10_000)
    protected = sum(d.bytes for d in result.decisions if d.reason == "recent")
    assert result.stats.summary_bytes <= (target - protected) // 4
    assert result.stats.summary_bytes > 0


def test_summary_speaks_the_callers_dialect() -> None:
    anthropic: list[dict[str, Any]] = [
        {"role": "user", "content": "start"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"p": "x"}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "lorem " * 80}],
        },
        *({"role": "assistant", "content": "lorem ipsum " * 20} for _ in range(8)),
        {"role": "user", "content": "go"},
    ]
    result = compact(anthropic, TASK, target_bytes=1200, keep_recent=1)
    assert result.summary is not None
    assert result.summary["role"] == "user"  # Anthropic has no system role in messages
    assert isinstance(result.summary["content"], str)

    events = [
        {"type": "message", "seq": 1, "role": "user", "text": "start"},
        *(
            {"type": "message", "seq": i, "role": "assistant", "text": "lorem ipsum " * 20}
            for i in range(2, 12)
        ),
        {"type": "message", "seq": 12, "role": "user", "text": "go"},
    ]
    result = compact(events, TASK, target_bytes=1200, keep_recent=1)
    assert result.summary is not None
    first_dropped = next(d.index for d in result.decisions if not d.kept)
    assert result.summary == {
        "type": "message",
        "seq": events[first_dropped]["seq"],
        "role": "system",
        "text": result.summary["text"],
    }


def test_protected_alone_over_budget_is_reported_not_dropped() -> None:
    messages = [{"role": "system", "content": "x" * 500}, *filler(3), user("y" * 500)]
    result = compact(messages, TASK, target_bytes=600, keep_recent=1)
    assert result.stats.over_budget
    assert result.stats.over_budget_bytes == 1000 - 600
    assert result.decisions[0].kept
    assert result.decisions[-1].kept
    assert [d.reason for d in result.decisions[1:4]] == ["over-budget"] * 3
    assert result.summary is None


def test_unsure_messages_are_kept() -> None:
    messages = [user("a " * 100), user("b " * 100), user("c " * 100), user("end")]
    table = {"a " * 100: Score(0.0, 0.1)}  # low value, but the scorer is unsure
    result = compact(messages, TASK, target_bytes=260, keep_recent=1, scorer=ListScorer(table))
    assert result.decisions[0].reason == "unsure"
    assert result.decisions[0].kept
    assert result.decisions[0].confidence == 0.1


def test_a_failed_batch_is_scored_by_recency_and_marked_degraded() -> None:
    messages = [*filler(8), user("end")]
    scorer = ListScorer({}, remote=True, fail_batches=[2])
    result = compact(messages, TASK, target_bytes=800, keep_recent=1, batch_size=3, scorer=scorer)
    assert scorer.calls == 3
    assert result.stats.degraded
    assert result.stats.degraded_reason == "1 of 3 batches failed: scored by recency"
    assert result.stats.requests == 3
    assert result.stats.failed_requests == 1
    assert [d.score for d in result.decisions[3:6]] == [4 / 9, 5 / 9, 6 / 9]
    assert any("batch 2 failed: boom" in p for p in result.problems)


def test_every_batch_failed_or_no_key_means_recency_for_the_run() -> None:
    messages = [*filler(8), user("end")]
    failing = ListScorer({}, remote=True, fail_batches=range(1, 10))
    result = compact(messages, TASK, target_bytes=800, keep_recent=1, batch_size=3, scorer=failing)
    assert result.stats.degraded_reason == "every batch failed: the whole run is scored by recency"
    recency = compact(messages, TASK, target_bytes=800, keep_recent=1, scorer="recency")
    assert [d.kept for d in result.decisions] == [d.kept for d in recency.decisions]

    keyless = ListScorer({}, remote=True, unavailable=True)
    result = compact(messages, TASK, target_bytes=800, keep_recent=1, batch_size=3, scorer=keyless)
    assert keyless.calls == 1  # it stops asking at once
    assert result.stats.degraded_reason == "unavailable: no key"
    assert [d.kept for d in result.decisions] == [d.kept for d in recency.decisions]


def test_http_scorer_end_to_end_with_receipt_that_never_holds_the_key(tmp_path: Path) -> None:
    key = "sk-live-ABCDEFGHIJKLMNOP"
    messages = [*filler(6), user("end")]

    def answer(body: Any) -> tuple[int, bytes, float]:
        questions = body["question"] if isinstance(body["question"], list) else [body["question"]]
        return json_answer({"answers": [{"level": "low"} for _ in questions]})

    receipt = tmp_path / "receipts.jsonl"
    with score_server(answer) as srv:
        scorer = HttpScorer(f"{srv.url}/score?key={key}", key)
        result = compact(
            messages, TASK, target_bytes=700, keep_recent=1, batch_size=4, scorer=scorer,
            receipt_path=receipt,
        )  # fmt: skip
    assert len(srv.requests) == 2
    assert result.stats.requests == 2
    assert result.stats.scorer_tokens > 0
    assert not result.stats.degraded
    assert srv.requests[0]["body"]["state"].startswith(f"Task: {TASK}")
    data = receipt.read_text()
    assert key not in data
    run = json.loads(data.splitlines()[-1])
    assert run["kind"] == "run"
    assert run["scorer"]["url"] == f"{srv.url}/score"


def test_receipt_drops_credential_fields_of_a_callers_describe(tmp_path: Path) -> None:
    receipt = tmp_path / "r.jsonl"
    compact([*filler(5), user("x")], TASK, target_bytes=300, scorer=ListScorer({}),
            receipt_path=receipt)  # fmt: skip
    assert "SECRET-IN-DESCRIBE" not in receipt.read_text()


def test_orphans_are_dropped_and_a_pending_call_at_the_end_is_kept() -> None:
    messages = [
        {"role": "tool", "tool_call_id": "gone", "content": "result of a call that was cut"},
        user("hi"),
        *tool_turn(("a", "out")),
        *tool_turn(("p", "never answered"))[:1],
    ]
    result = compact(messages, TASK)
    assert result.decisions[0].reason == "orphan"
    assert not result.decisions[0].kept
    assert result.decisions[-1].kept
    assert result.decisions[-1].reason in ("pending-call", "under-budget")
    assert result.messages[0] is messages[1]


def test_token_budget_counts_o200k_tokens() -> None:
    messages = [*filler(10), user("end")]
    result = compact(messages, TASK, target_tokens=200, keep_recent=1)
    assert result.stats.token_method == "o200k"
    assert result.stats.tokens_after <= 200
    assert result.compacted
    assert compact(messages, TASK, target_bytes=500).stats.token_method == "estimate"


def _junk() -> Iterator[Any]:
    yield {"role": "user", "content": "x"}
    raise RuntimeError("a generator that breaks")


@pytest.mark.parametrize(
    "messages",
    [
        None,
        5,
        "a string",
        {"messages": []},
        _junk(),
        [None, 3, "text", [], {"content": {"deep": [1, 2]}}, {"role": 5, "tool_calls": "x"}],
        [{"role": "tool", "tool_call_id": 7, "content": [{"type": "tool_result"}]}],
    ],
)
def test_never_raises_on_junk(messages: Any) -> None:
    junk_task: Any = object()
    result = compact(messages, junk_task, target_bytes=1)
    assert isinstance(result, CompactionResult)


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"target_bytes": -1}, "target_bytes"),
        ({"target_bytes": "10"}, "target_bytes"),
        ({"min_confidence": 5}, "min_confidence"),
        ({"pin_patterns": ["("]}, "pin_patterns[0]"),
        ({"pin_flags": "q"}, "unknown flag"),
        ({"scorer": object()}, "not a Scorer"),
        ({"scorer": "nonexistent"}, "unknown scorer"),
        ({"keep_recent": -3}, "keep_recent"),
    ],
)
def test_bad_options_are_problems(options: dict[str, Any], problem: str) -> None:
    result = compact([user("a"), user("b")], TASK, **options)
    assert any(problem in p for p in result.problems), result.problems


def test_receipts_append_one_block_per_run_and_replay_needs_no_scorer(tmp_path: Path) -> None:
    receipt = tmp_path / "r.jsonl"
    messages = [*filler(12), user("end")]
    scorer = ListScorer({m["content"]: Score(i / 12, 1.0) for i, m in enumerate(messages)})
    first = compact(messages, TASK, target_bytes=1500, keep_recent=1, scorer=scorer,
                    receipt_path=receipt)  # fmt: skip
    compact(messages, TASK, target_bytes=900, keep_recent=1, scorer=scorer, receipt_path=receipt)
    file = read_receipts(receipt)
    assert len(file.runs) == 2
    assert file.problems == ()
    assert len(receipt.read_text().splitlines()) == 2 * (len(messages) + 1)
    calls = scorer.calls
    again = replay(messages, receipt, target_bytes=1500)
    assert scorer.calls == calls
    assert [d.kept for d in again.decisions] == [d.kept for d in first.decisions]
    looser = replay(messages, receipt, target_bytes=3000)
    assert looser.stats.kept > first.stats.kept


def test_replay_after_the_list_changed_matches_by_hash(tmp_path: Path) -> None:
    receipt = tmp_path / "r.jsonl"
    messages = [*filler(10), user("end")]
    compact(messages, TASK, target_bytes=1200, keep_recent=1, receipt_path=receipt)
    changed = [user("a new first message"), *messages[2:], user("and a new last one")]
    result = replay(changed, receipt, target_bytes=1200)
    assert result.problems == ()
    assert invalid_reason(list(result.messages)) is None
    assert result.stats.scorer == "replay:lexical"
    # the recorded scores travel with their messages to their new places
    recorded = {d.hash: d.score for d in read_receipts_decisions(receipt)}
    matched = [d for d in result.decisions if recorded.get(d.hash) is not None]
    assert len(matched) >= 8
    for d in matched:
        assert d.score == recorded[d.hash]


def read_receipts_decisions(path: Path) -> list[Any]:
    run = read_receipts(path).run()
    assert run is not None

    class D:
        def __init__(self, rec: Any) -> None:
            self.hash, self.score = rec["hash"], rec["score"]

    return [D(r) for r in run.records]


def test_a_torn_receipt_is_never_trusted(tmp_path: Path) -> None:
    receipt = tmp_path / "r.jsonl"
    messages = [*filler(10), user("end")]
    compact(messages, TASK, target_bytes=1500, keep_recent=1, receipt_path=receipt)
    good = receipt.read_bytes()
    compact(messages, TASK, target_bytes=800, keep_recent=1, receipt_path=receipt)
    full = receipt.read_bytes()
    second_block = full[len(good) :]
    for cut in (len(second_block) - 2, len(second_block) // 2, 10):
        receipt.write_bytes(good + second_block[:cut])  # a crash mid-write
        file = read_receipts(receipt)
        assert len(file.runs) == 1, cut  # only the whole first run is trusted
        assert file.problems
        assert file.runs[0].settings["target_bytes"] == 1500
        # a later run appends after the torn bytes on a fresh line and is trusted
        compact(messages, TASK, target_bytes=700, keep_recent=1, receipt_path=receipt)
        after = read_receipts(receipt)
        assert [r.settings["target_bytes"] for r in after.runs] == [1500, 700]
    receipt.write_bytes(good[: len(good) // 3])
    result = replay(messages, receipt, target_bytes=1500)
    assert not result.compacted
    assert any("no trusted run" in p for p in result.problems)


def test_a_tampered_receipt_line_breaks_its_run(tmp_path: Path) -> None:
    receipt = tmp_path / "r.jsonl"
    compact([*filler(10), user("end")], TASK, target_bytes=900, receipt_path=receipt)
    lines = receipt.read_text().splitlines(keepends=True)
    lines[2] = (
        lines[2].replace('"kept":true', '"kept":false').replace('"kept":false', '"kept":true', 1)
    )
    lines[3] = lines[3].replace('"score":', '"score":0.999,"x":')
    receipt.write_text("".join(lines))
    assert read_receipts(receipt).runs == ()


def test_an_internal_error_returns_the_input_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(segments: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr("ctxkeep.compactor.core.group_units", broken)
    messages = [user("a"), user("b")]
    result = compact(messages, TASK, target_bytes=1)
    assert result.messages == tuple(messages)
    assert result.problems[-1] == "internal error (RuntimeError: a bug): input unchanged"
    assert not result.compacted


def test_the_cyclic_collector_is_resumed_or_left_paused() -> None:
    import gc

    assert gc.isenabled()
    compact([*filler(5), user("x")], TASK, target_bytes=300)
    assert gc.isenabled()
    gc.disable()
    try:
        compact([*filler(5), user("x")], TASK, target_bytes=300)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_scorer_that_keeps_failing_is_not_asked_again() -> None:
    messages = [*filler(30), user("end")]
    down = ListScorer({}, remote=True, fail_batches=range(1, 100))
    result = compact(messages, TASK, target_bytes=2000, keep_recent=1, batch_size=3, scorer=down)
    assert down.calls == 3  # not one timeout per batch for all 10 batches
    assert result.stats.degraded_reason == "every batch failed: the whole run is scored by recency"
    assert result.stats.requests == 3

    flaky = ListScorer({}, remote=True, fail_batches=[2, 3, 4])
    result = compact(messages, TASK, target_bytes=2000, keep_recent=1, batch_size=3, scorer=flaky)
    assert flaky.calls == 4
    assert result.stats.degraded_reason == (
        "3 batches failed in a row: 9 of 10 batches scored by recency"
    )
