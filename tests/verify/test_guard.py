from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxkeep.verify import (
    TRUNCATION_NOTICE,
    CtxkeepCompaction,
    GuardedResult,
    RoundGroupTruncation,
    Size,
    guard,
    measure,
    sequence_problems,
    settle,
    split_points,
)
from tests.verify.sessions import (
    agent_sessions,
    chatty_session,
    incident_session,
    narrow_split_points,
    openai_session,
)


@dataclass(frozen=True)
class NaiveResult:
    """What the incident's compaction function handed back: its input and a flag."""

    messages: list[Any]
    success: bool


def naive_compactor(messages: list[Any]) -> NaiveResult:
    """The incident's compactor: cuts only at the narrow split points, and when none is
    usable (not index 0, not inside the recent tail) silently returns its input."""
    keep_recent = 10
    usable = [i for i in narrow_split_points(messages) if 0 < i < len(messages) - keep_recent]
    if not usable:
        return NaiveResult(messages, success=True)
    cut = usable[-1]
    summary = {"role": "user", "content": "Summary of the conversation so far."}
    return NaiveResult([summary, *messages[cut:]], success=True)


def drop_first_tool_result(messages: list[Any]) -> list[Any]:
    """A compactor that forgets a tool result but keeps its call."""
    for index, message in enumerate(messages):
        if message.get("role") == "tool":
            return messages[:index] + messages[index + 1 :]
    return messages


def test_incident_rebuilt_naive_noop_is_a_failure_and_the_fallback_really_compacts() -> None:
    session = incident_session()
    assert narrow_split_points(session) == [0, 150]  # the narrow rule: nothing usable
    assert naive_compactor(session).messages is session  # returns its input ...
    assert naive_compactor(session).success is True  # ... and says it succeeded
    assert len(split_points(session)) >= 53  # round-group boundaries: plenty

    guarded = guard(naive_compactor, fallbacks=(RoundGroupTruncation(),))
    result = guarded(session)

    first, taken = result.attempts
    assert first.strategy == "naive_compactor"
    assert first.outcome == "noop"
    assert "did not shrink" in first.reason
    assert taken.outcome == "compacted"
    assert result.success
    assert result.strategy == "truncate-at-round-groups"
    assert result.before == measure(session) == Size(156, result.before.tokens)
    assert 100 <= result.after.messages <= 108  # the incident's real cut: 156 -> 104
    assert result.after == measure(result.messages)
    assert result.after.tokens < result.before.tokens
    assert sequence_problems(result.messages, "anthropic") == ()
    assert result.messages[0] == {"role": "user", "content": TRUNCATION_NOTICE}
    assert result.messages[-1] == session[-1]
    settlement = result.settle()
    assert settlement.compacted
    assert "156 -> " in settlement.user_notice
    assert settlement.model_notice is not None


def test_incident_without_fallback_reports_failure_and_tells_the_model_nothing() -> None:
    session = incident_session()
    result = guard(naive_compactor, fallbacks=())(session)
    assert not result.success
    assert result.messages == session
    assert result.after == result.before
    assert result.strategy is None
    assert "did not shrink" in result.reason
    settlement = settle(result)
    assert not settlement.compacted
    assert settlement.model_notice is None
    assert "unchanged" in settlement.user_notice
    assert "ompacted the conversation" not in settlement.user_notice


def test_result_that_drops_a_tool_result_is_rolled_back_with_the_reason() -> None:
    session = openai_session()
    result = guard(drop_first_tool_result, fallbacks=())(session)
    assert not result.success
    assert result.messages == session
    (attempt,) = result.attempts
    assert attempt.outcome == "invalid"
    assert "call_0" in attempt.reason
    assert "openai API rejects" in attempt.reason
    assert {p.code for p in attempt.problems} == {"unanswered-call"}
    assert "rolled back" in result.reason


def test_invalid_result_falls_through_to_the_next_strategy() -> None:
    session = openai_session(rounds=12)
    result = guard(drop_first_tool_result, fallbacks=(RoundGroupTruncation(),))(session)
    assert result.success
    assert [a.outcome for a in result.attempts] == ["invalid", "compacted"]
    assert sequence_problems(result.messages, "openai") == ()
    assert result.messages[0] == session[0]  # the system prompt stays


def test_breaker_opens_after_three_failures_refuses_without_running_and_resets() -> None:
    calls: list[int] = []

    def broken(messages: list[Any]) -> list[Any]:
        calls.append(len(messages))
        raise RuntimeError("provider returned 529 overloaded")

    session = openai_session()
    guarded = guard(broken, fallbacks=(), max_failures=3)
    results = [guarded(session) for _ in range(3)]
    assert [r.breaker_open for r in results] == [False, False, True]
    assert results[2].settle().user_notice.endswith("switched off until a reset.")
    assert all(not r.success for r in results)
    assert "RuntimeError: provider returned 529 overloaded" in results[0].reason
    assert len(calls) == 3

    refused = guarded(session)
    assert refused.breaker_open
    assert not refused.success
    assert refused.messages == session
    assert refused.attempts == ()
    assert len(calls) == 3  # the compactor was not run
    assert "circuit breaker is open" in refused.reason
    assert "switched off" in refused.settle().user_notice

    guarded.reset()
    assert not guarded.breaker_open
    again = guarded(session)
    assert len(calls) == 4
    assert not again.breaker_open  # one failure after a reset does not reopen it


def test_a_success_closes_the_breaker_through_a_probe() -> None:
    outcomes = iter([False, False, True])

    def flaky(messages: list[Any]) -> list[Any]:
        if next(outcomes):
            return RoundGroupTruncation()(messages)
        return messages

    guarded = guard(flaky, fallbacks=(), max_failures=2, probe_every=2)
    session = openai_session(rounds=10)
    assert [guarded(session).breaker_open for _ in range(2)] == [False, True]
    assert guarded(session).attempts == ()  # refused: not a probe yet
    probe = guarded(session)  # the second refused call is a probe, and it succeeds
    assert probe.success
    assert not probe.breaker_open
    assert guarded.consecutive_failures == 0


def test_success_flag_is_ignored_and_a_compactor_that_raises_never_escapes() -> None:
    session = openai_session()

    def returns_none(messages: list[Any]) -> None:
        return None

    def claims(messages: list[Any]) -> dict[str, Any]:
        return {"messages": messages, "success": True, "compacted": True}

    result = guard(returns_none, fallbacks=(claims,))(session)
    assert [a.outcome for a in result.attempts] == ["not-a-list", "noop"]
    assert "returned NoneType, not a message list" in result.reason
    assert not result.success


def test_a_compactor_that_edits_its_input_cannot_spoil_the_rollback() -> None:
    session = openai_session()
    pristine = copy.deepcopy(session)

    def vandal(messages: list[Any]) -> list[Any]:
        for message in messages:
            message["content"] = ""
        messages.clear()
        return []

    result = guard(vandal, fallbacks=())(session)
    assert not result.success
    assert session == pristine
    assert result.messages == pristine
    assert result.attempts[0].outcome == "invalid"  # an empty list is no conversation


def test_a_result_that_loses_the_newest_message_is_rolled_back() -> None:
    session = openai_session(rounds=10)

    def forgets_the_question(messages: list[Any]) -> list[Any]:
        return RoundGroupTruncation()(messages)[:-1]

    result = guard(forgets_the_question, fallbacks=())(session)
    assert not result.success
    assert "newest message" in result.reason


def test_fewer_tokens_in_as_many_messages_is_not_compaction() -> None:
    session = openai_session()

    def shortens_in_place(messages: list[Any]) -> list[Any]:
        return [{**m, "content": "(cleared)"} if m.get("role") == "tool" else m for m in messages]

    result = guard(shortens_in_place, fallbacks=())(session)
    assert result.attempts[0].outcome == "noop"
    assert result.attempts[0].after is not None
    assert result.attempts[0].after.tokens < result.before.tokens
    assert not result.success


def test_a_result_cannot_declare_success_its_sizes_contradict() -> None:
    with pytest.raises(ValueError, match="contradicts the measurement"):
        GuardedResult(
            success=True,
            messages=[],
            before=Size(10, 100),
            after=Size(10, 100),
            strategy="claims",
            reason="",
        )


def test_default_chain_has_ctxkeep_compactor_then_truncation() -> None:
    guarded = guard(lambda m: m)
    names = [getattr(s, "strategy_name", None) for s in guarded.strategies]
    assert names == [None, "ctxkeep.compact", "truncate-at-round-groups"]
    # ctxkeep's compactor given as the compactor is not run again as a default fallback.
    chain = guard(CtxkeepCompaction(task="parser")).strategies
    assert [type(s).__name__ for s in chain] == ["CtxkeepCompaction", "RoundGroupTruncation"]
    # The same strategy given twice runs once.
    assert len(guard(RoundGroupTruncation(), fallbacks=(RoundGroupTruncation(),)).strategies) == 1


def test_anthropic_strict_alternation_is_enforced_when_asked() -> None:
    session: list[dict[str, Any]] = []
    for k in range(8):
        session.append({"role": "user", "content": f"question {k} " * 20})
        session.append({"role": "assistant", "content": f"answer {k} " * 20})
    session.append({"role": "user", "content": "last question"})

    def keeps_users_only(messages: list[Any]) -> list[Any]:
        users = [m for m in messages if m["role"] == "user"]
        return users[-3:]

    result = guard(keeps_users_only, fallbacks=(), api="anthropic")(session)
    assert not result.success
    assert "same-role-twice" in {p.code for p in result.attempts[0].problems}
    # Read as OpenAI (the default for plain lists) the same result is accepted.
    assert guard(keeps_users_only, fallbacks=())(session).success


def test_default_chain_falls_back_to_ctxkeeps_compactor() -> None:
    session = chatty_session()
    result = guard(naive_compactor)(session)
    assert [a.outcome for a in result.attempts] == ["noop", "compacted"]
    assert result.strategy == "ctxkeep.compact"
    assert result.success
    assert sequence_problems(result.messages, "openai") == ()
    assert result.messages[0] == session[0]
    assert result.messages[-1] == session[-1]


def test_whatever_ctxkeeps_compactor_returns_only_a_valid_anthropic_list_gets_through() -> None:
    # A plain user/assistant conversation: ctxkeep.compact (2026-11-29) keeps assistant
    # turns and drops user ones here, which Anthropic rejects; the guard must catch it.
    session: list[dict[str, Any]] = []
    for k in range(12):
        session.append({"role": "user", "content": f"Tell me about tea, part {k}. " * 10})
        session.append({"role": "assistant", "content": f"Tea facts, part {k}. " * 10})
    session.append({"role": "user", "content": "Which part was best?"})
    for role in (None, "user"):
        strategy = CtxkeepCompaction(task="tea", summary_role=role)
        result = guard(strategy, fallbacks=(), api="anthropic")(session)
        if result.success:
            assert sequence_problems(result.messages, "anthropic") == ()
        else:
            assert result.messages == session
            assert result.attempts[0].outcome in ("invalid", "noop")
            assert "rolled back" in result.reason or "did not shrink" in result.reason


@given(agent_sessions(), st.data())
@settings(max_examples=60, deadline=None)
def test_whatever_a_compactor_returns_the_guard_keeps_its_promises(
    session: list[dict[str, Any]], data: st.DataObject
) -> None:
    """Success means valid and smaller; anything else means the input, unchanged."""
    keep = data.draw(st.lists(st.booleans(), min_size=len(session), max_size=len(session)))
    extra = data.draw(st.sampled_from([None, {"role": "user", "content": "summary"}]))

    def random_compactor(messages: list[Any]) -> list[Any]:
        kept = [m for m, k in zip(messages, keep, strict=True) if k]
        return kept if extra is None else [extra, *kept]

    pristine = copy.deepcopy(session)
    result = guard(random_compactor, fallbacks=(), api="openai")(session)
    assert session == pristine
    if result.success:
        assert sequence_problems(result.messages, "openai") == ()
        assert measure(result.messages).smaller_than(measure(session))
        assert result.messages[-1] == session[-1]
        assert result.settle().compacted
    else:
        assert result.messages == session
        assert result.settle().model_notice is None
