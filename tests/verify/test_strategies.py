from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxkeep.verify import (
    TRUNCATION_NOTICE,
    CtxkeepCompaction,
    RoundGroupTruncation,
    guard,
    output_messages,
    sequence_problems,
    strategy_name,
)
from tests.verify.sessions import incident_session, openai_session


def native_session(rounds: int) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"type": "message", "seq": 1, "role": "user", "text": "go"}]
    for k in range(rounds):
        seq = 2 + 2 * k
        events.append({"type": "tool/call", "seq": seq, "call_id": f"k{k}", "name": "ls"})
        events.append(
            {"type": "tool/result", "seq": seq + 1, "call_id": f"k{k}", "text": "x " * 50}
        )
    return events


def test_truncation_keeps_about_the_fraction_asked_and_the_system_prompt() -> None:
    session = openai_session(rounds=30)
    out = RoundGroupTruncation(keep_fraction=0.5)(session)
    assert out[0] == session[0]
    assert out[1] == {"role": "user", "content": TRUNCATION_NOTICE}
    assert out[-1] == session[-1]
    assert 0.4 * len(session) <= len(out) <= 0.6 * len(session)
    assert sequence_problems(out, "openai") == ()


def test_truncation_of_ctxkeep_events_keeps_seqs_increasing() -> None:
    events = native_session(rounds=10)
    result = guard(RoundGroupTruncation(), fallbacks=())(events)
    assert result.success
    notice = next(e for e in result.messages if e.get("injected") == "ctxkeep-notice")
    assert notice["text"] == TRUNCATION_NOTICE
    seqs = [e["seq"] for e in result.messages]
    assert seqs == sorted(set(seqs))
    assert sequence_problems(result.messages, "ctxkeep") == ()


def test_truncation_with_no_usable_cut_is_an_honest_noop() -> None:
    one_round = incident_session()[:3]  # task, call, result: no cut leaves a valid tail
    assert RoundGroupTruncation()(one_round) == one_round
    result = guard(RoundGroupTruncation(), fallbacks=())(one_round)
    assert result.attempts[0].outcome == "noop"


def test_what_a_compactor_may_return() -> None:
    listed = [{"role": "user", "content": "x"}]
    assert output_messages(listed) == listed
    assert output_messages(tuple(listed)) == listed
    assert output_messages({"messages": listed, "success": True}) == listed
    assert output_messages(None) is None
    assert output_messages("text") is None
    assert strategy_name(RoundGroupTruncation()) == "truncate-at-round-groups"
    assert strategy_name(lambda m: m) == "<lambda>"


def test_a_log_that_cannot_be_written_is_reported_not_raised(tmp_path: Path) -> None:
    result = guard(RoundGroupTruncation(), fallbacks=(), event_log=tmp_path)(
        openai_session(rounds=12)
    )
    assert result.success
    (problem,) = result.problems
    assert problem.startswith(f"event log {tmp_path} not written:")


def test_a_fraction_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="keep_fraction must be between 0 and 1"):
        RoundGroupTruncation(keep_fraction=1.5)
    with pytest.raises(ValueError, match="keep_fraction must be between 0 and 1"):
        CtxkeepCompaction(keep_fraction=0)
