"""Properties of compact() and replay() over generated conversations with tool calls."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ctxkeep import compact, replay
from ctxkeep.base.messages import message_role, message_text, tool_call_ids, tool_result_ids
from ctxkeep.compactor.pins import compile_pins
from ctxkeep.scorers import Score, ScoreRequest
from tests.compactor.conversations import Turn, invalid_reason, render, turns

_counter = itertools.count()


class HashScorer:
    """Deterministic pseudo-random values and confidences (some below the gate)."""

    name = "hash"
    remote = False

    def score(self, request: ScoreRequest) -> Sequence[Score]:
        out = []
        for c in request.candidates:
            h = hashlib.sha256(c.text.encode()).digest()
            out.append(Score(h[0] / 255, 0.2 + 0.8 * h[1] / 255))
        return out

    def describe(self) -> dict[str, object]:
        return {"name": self.name}


def _size(messages: Sequence[Any]) -> int:
    return sum(len(message_text(m).encode("utf-8")) for m in messages)


params = st.fixed_dictionaries(
    {
        "dialect": st.sampled_from(["openai", "anthropic", "ctxkeep"]),
        "fraction": st.floats(0.0, 1.2) | st.floats(0.4, 0.9),
        "keep_recent": st.integers(0, 6),
        "scorer": st.sampled_from(["lexical", "recency", "hash"]),
        "enable_pinning": st.booleans(),
    }
)


def _run(turn_list: list[Turn], p: dict[str, Any], receipt: Path | None = None) -> Any:
    messages = render(turn_list, p["dialect"])
    target = int(_size(messages) * p["fraction"])
    scorer = HashScorer() if p["scorer"] == "hash" else p["scorer"]
    result = compact(
        messages,
        "fix the parser config loader 配置",
        target_bytes=target,
        keep_recent=p["keep_recent"],
        enable_pinning=p["enable_pinning"],
        scorer=scorer,
        receipt_path=receipt,
    )
    return messages, target, result


def _words_of(message: Any) -> str:
    """What a message says in words for pinning: tool calls and results say nothing (only
    failures, traces and error codes, pin them; see ``PinSet.pins_of``)."""
    traffic = tool_call_ids(message) or tool_result_ids(message) or message_role(message) == "tool"
    return "" if traffic else message_text(message)


@settings(max_examples=150, deadline=None)
@given(turns(), params)
# Issue 14: a URL in a tool result is not a pin (tool traffic pins only on failures); the
# property's own idea of "protected" had pinned it.
@example(
    [("tools", [("parser", "https://x.example/a")])],
    {"dialect": "openai", "fraction": 0.0, "keep_recent": 0, "scorer": "lexical",
     "enable_pinning": True},
)  # fmt: skip
def test_output_is_valid_within_budget_and_keeps_protected(
    turn_list: list[Turn], p: dict[str, Any]
) -> None:
    messages, target, result = _run(turn_list, p)
    assert result.problems == ()
    assert invalid_reason(list(result.messages)) is None
    # kept messages are the caller's own objects, in order
    kept_ids = [id(m) for m in result.kept]
    assert kept_ids == [id(m) for m in messages if id(m) in set(kept_ids)]
    assert len(result.decisions) == len(messages)
    # protected messages are never dropped
    pins, _ = compile_pins(())
    n = len(messages)
    found = pins.pins_of([message_text(m) for m in messages], [_words_of(m) for m in messages])
    for i, m in enumerate(messages):
        protected = (
            message_role(m) == "system"
            or i >= n - p["keep_recent"]
            or (p["enable_pinning"] and found[i] is not None)
        )
        if protected:
            assert result.decisions[i].kept, (i, result.decisions[i])
    # within budget unless over_budget is reported (measured on the output itself)
    if result.compacted:
        assert result.stats.bytes_after == _size(result.messages)
        if not result.stats.over_budget:
            assert _size(result.messages) <= target
    else:
        assert result.messages == tuple(messages)


@settings(max_examples=60, deadline=None)
@given(turns(), params)
def test_same_input_same_output(turn_list: list[Turn], p: dict[str, Any]) -> None:
    _, _, first = _run(turn_list, p)
    _, _, second = _run(turn_list, p)
    assert first.messages == second.messages
    assert first.decisions == second.decisions
    assert first.stats == second.stats


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns(), params)
def test_replay_at_the_original_budget_reproduces_the_decisions(
    tmp_path_factory: pytest.TempPathFactory, turn_list: list[Turn], p: dict[str, Any]
) -> None:
    receipt = tmp_path_factory.getbasetemp() / f"receipt-{next(_counter)}.jsonl"
    messages, _, original = _run(turn_list, p, receipt)
    if not original.compacted:
        assert not receipt.exists()
        return
    assert original.receipt_path == str(receipt)
    replayed = replay(messages, receipt)
    assert replayed.problems == ()
    assert [(d.kept, d.reason, d.score) for d in replayed.decisions] == [
        (d.kept, d.reason, d.score) for d in original.decisions
    ]
    assert replayed.messages == original.messages


@settings(max_examples=40, deadline=None)
@given(turns(), params)
def test_token_budgets_hold_too(turn_list: list[Turn], p: dict[str, Any]) -> None:
    from ctxkeep.base.tokens import count_tokens

    messages = render(turn_list, p["dialect"])
    total = sum(count_tokens(message_text(m)) for m in messages)
    target = int(total * p["fraction"])
    result = compact(messages, "fix the parser", target_tokens=target, keep_recent=p["keep_recent"])
    assert invalid_reason(list(result.messages)) is None
    measured = sum(count_tokens(message_text(m)) for m in result.messages)
    assert result.stats.token_method == "o200k"
    if result.compacted:
        assert result.stats.tokens_after == measured
        if not result.stats.over_budget:
            assert measured <= target
