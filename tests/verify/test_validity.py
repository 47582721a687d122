from __future__ import annotations

from typing import Any

import pytest

from ctxkeep.verify import Api, detect_api, new_problems, sequence_problems
from tests.verify.sessions import anthropic_round, incident_session, openai_session


def oa_call(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
        ],
    }


def oa_result(call_id: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


def an_call(*ids: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": i, "name": "f", "input": {}} for i in ids],
    }


def an_result(*ids: str) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": i, "content": "ok"} for i in ids],
    }


USER = {"role": "user", "content": "hi"}
ASSISTANT = {"role": "assistant", "content": "hello"}


def ev(seq: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "seq": seq, **fields}


@pytest.mark.parametrize(
    ("api", "messages", "codes"),
    [
        ("openai", openai_session(), set()),
        ("openai", [USER, oa_call("a", "b"), oa_result("b"), oa_result("a"), ASSISTANT], set()),
        ("openai", [], {"empty"}),
        ("openai", [USER, "just text"], {"not-a-message"}),
        ("openai", [USER, {"role": "robot", "content": "x"}], {"unknown-role"}),
        ("openai", [USER, oa_call("a"), ASSISTANT], {"unanswered-call"}),
        ("openai", [USER, oa_result("a")], {"orphan-result"}),
        (
            "openai",
            [USER, oa_call("a"), USER, oa_result("a")],
            {"unanswered-call", "result-not-adjacent"},
        ),
        (
            "openai",
            [USER, oa_call("a"), oa_result("a"), oa_result("a")],
            {"duplicate-result", "result-not-adjacent"},
        ),
        ("openai", [USER, oa_call("a"), oa_result("a"), oa_call("a"), oa_result("a")], set()),
        ("anthropic", incident_session(), set()),
        ("anthropic", [{"role": "system", "content": "be brief"}, USER, ASSISTANT], set()),
        ("anthropic", [ASSISTANT, USER], {"first-not-user"}),
        ("anthropic", [USER, USER], {"same-role-twice"}),
        ("anthropic", [USER, ASSISTANT, ASSISTANT], {"same-role-twice"}),
        ("anthropic", [USER, {"role": "system", "content": "x"}], {"system-not-leading"}),
        ("anthropic", [USER, {"role": "tool", "content": "x"}], {"unknown-role"}),
        ("anthropic", [USER, an_call("a"), USER], {"unanswered-call"}),
        ("anthropic", [USER, an_call("a", "b"), an_result("a", "b")], set()),
        (
            "anthropic",
            [USER, an_call("a"), USER, ASSISTANT, an_result("a")],
            {"unanswered-call", "result-not-adjacent"},
        ),
        ("anthropic", [an_result("a")], {"orphan-result"}),
        ("ctxkeep", [ev(1, "tool/call", call_id="k"), ev(2, "tool/result", call_id="k")], set()),
        ("ctxkeep", [ev(2, "message", role="user"), ev(2, "message", role="user")], {"seq-order"}),
        ("ctxkeep", [ev(1, "tool/call", call_id="k")], {"unanswered-call"}),
        ("ctxkeep", [ev(1, "tool/result", call_id="k")], {"orphan-result"}),
        ("ctxkeep", [ev(1, "tool/call", call_id="k"), ev(2, "tool/call", call_id="k")], None),
    ],
)
def test_each_problem_the_api_would_reject(
    api: Api, messages: list[Any], codes: set[str] | None
) -> None:
    found = {p.code for p in sequence_problems(messages, api)}
    if codes is None:
        assert "duplicate-call" in found
    else:
        assert found == codes


def test_problems_name_the_message_and_the_call() -> None:
    (problem,) = sequence_problems([USER, oa_call("call_9"), ASSISTANT], "openai")
    assert problem.index == 1
    assert problem.subject == "call_9"
    assert str(problem) == "message 1: tool call 'call_9' has no result after it"


def test_problems_the_input_already_had_are_not_blamed_on_the_compactor() -> None:
    pending = [USER, *anthropic_round(1), an_call("waiting")]  # a call still pending
    compacted = [USER, an_call("waiting")]
    before = sequence_problems(pending, "anthropic")
    after = sequence_problems(compacted, "anthropic")
    assert {p.code for p in before} == {"unanswered-call"}
    assert new_problems(before, after) == ()
    broken = [USER, an_call("other")]
    assert [p.subject for p in new_problems(before, sequence_problems(broken, "anthropic"))] == [
        "other"
    ]


def test_the_api_is_read_from_the_messages() -> None:
    assert detect_api(incident_session()) == "anthropic"
    assert detect_api(openai_session()) == "openai"
    assert detect_api([USER, ASSISTANT]) == "openai"
    assert detect_api([ev(1, "message", role="user")]) == "ctxkeep"
