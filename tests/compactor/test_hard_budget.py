"""budget="hard": the target is never exceeded (or fits=False with the mandatory part)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ctxkeep import compact, replay
from ctxkeep.base.messages import message_role, message_text, tool_call_ids, tool_result_ids
from ctxkeep.base.tokens import count_tokens
from ctxkeep.compactor.hard import mandatory_messages
from ctxkeep.compactor.segment import read_segments
from tests.compactor.conversations import Turn, invalid_reason, render, turns

_counter = itertools.count()
TASK = "fix the parser config loader"


def size(messages: Sequence[Any]) -> int:
    return sum(len(message_text(m).encode()) for m in messages)


def tokens(messages: Sequence[Any]) -> int:
    return sum(count_tokens(message_text(m)) for m in messages)


def tool_log(lines: int) -> str:
    body = [f"step {i}: checked entry {i * 7} of the index" for i in range(lines)]
    body[lines // 2] = "ERROR: config key 'timeout' is not an integer"
    trace = [
        "Traceback (most recent call last):",
        '  File "src/app/config.py", line 88, in load',
        "    value = int(raw)",
        "ValueError: invalid literal for int() with base 10: '5s'",
    ]
    return "\n".join([*body, *trace])


def session() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the config loader. Do not touch src/app/cli.py ever."},
        {"role": "assistant", "content": "I will read the config module first. " * 10},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "run", "arguments": json.dumps({"cmd": "pytest -q"})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": tool_log(400)},
        {"role": "assistant", "content": "The loader reads '5s' as an int. " * 6},
        {"role": "user", "content": "Go on, and keep the error message."},
    ]


def test_a_long_tool_output_keeps_head_tail_and_the_lines_that_matter() -> None:
    messages = session()
    result = compact(messages, TASK, target_bytes=3000, budget="hard")
    assert result.stats.bytes_after <= 3000
    assert result.stats.bytes_after == size(result.messages)
    assert result.fits
    tool = next(m for m in result.messages if m.get("role") == "tool")
    assert tool is not messages[4]  # a shortened copy; the caller's message is unchanged
    assert messages[4]["content"] == tool_log(400)
    text = tool["content"]
    assert text.startswith("step 0: checked entry 0 of the index\n")
    assert "lines elided …]" in text
    assert "ERROR: config key 'timeout' is not an integer" in text
    assert text.endswith("ValueError: invalid literal for int() with base 10: '5s'")
    assert tool["tool_call_id"] == "c1"  # identity kept
    decision = result.decisions[4]
    assert decision.kept
    assert decision.spans
    original = message_text(messages[4])
    for start, end in decision.spans:  # kept text is verbatim
        assert original[start:end] in text
    assert invalid_reason(list(result.messages)) is None
    assert result.stats.shortened >= 1


def test_pinned_messages_keep_their_pinned_spans_and_the_summary_the_instruction() -> None:
    messages = session()
    messages[1] = {
        "role": "user",
        "content": "Some background about the loader and how we got here. " * 8
        + "Do not touch src/app/cli.py ever. "
        + "More chatter about nothing in particular. " * 8,
    }
    result = compact(messages, TASK, target_bytes=900, budget="hard", keep_recent=2)
    assert result.stats.bytes_after <= 900
    kept_user = next(m for m in result.messages if "src/app/cli.py" in message_text(m))
    assert "Do not touch src/app/cli.py ever." in message_text(kept_user)
    assert "elided …]" in message_text(kept_user)


def test_when_the_mandatory_part_is_over_it_is_kept_alone_and_says_so() -> None:
    messages = session()
    messages[-1] = {"role": "user", "content": "x" * 500}
    result = compact(messages, TASK, target_bytes=300, budget="hard")
    assert not result.fits
    assert result.messages == (messages[0], messages[-1])
    assert result.stats.over_budget_bytes == size(result.messages) - 300
    assert any("hard budget cannot hold" in p for p in result.problems)
    assert result.decisions[-1].reason in ("recent", "mandatory")


def test_the_summary_keeps_instructions_verbatim_and_the_newer_value() -> None:
    chat: list[dict[str, Any]] = [{"role": "system", "content": "You are a helpful assistant."}]
    chat.append({"role": "user", "content": "My flight to Lisbon is on March 12 at 9:40."})
    for k in range(30):
        chat.append({"role": "assistant", "content": f"Here is tip {k} about packing light. " * 5})
        chat.append({"role": "user", "content": "ok thanks"})
    chat.append({"role": "user", "content": "Please never book me a window seat."})
    chat.append({"role": "assistant", "content": "Understood."})
    chat.append({"role": "user", "content": "My flight to Lisbon is on March 15 at 9:40."})
    chat.append({"role": "assistant", "content": "Noted."})
    chat.append({"role": "user", "content": "What should I pack?"})
    result = compact(chat, "help", target_bytes=400, budget="hard", keep_recent=1)
    assert result.stats.bytes_after <= 400
    context = "\n".join(message_text(m) for m in result.messages)
    assert "never book me a window seat" in context
    assert "March 15" in message_text(result.summary)
    assert "March 12" not in context  # the same fact with an older value


def test_chinese_facts_are_found() -> None:
    chat = [{"role": "user", "content": "我妹妹上周搬到了里斯本。我对花生过敏，请不要推荐花生。"}]
    chat += [{"role": "assistant", "content": "好的，明白了。" * 20} for _ in range(10)]
    chat.append({"role": "user", "content": "我的航班是3月15日上午9点。"})
    chat += [{"role": "assistant", "content": "这里是一些一般性的建议。" * 20} for _ in range(10)]
    chat.append({"role": "user", "content": "帮我准备行李清单"})
    result = compact(chat, "行李", target_bytes=400, budget="hard", keep_recent=1)
    assert result.stats.bytes_after <= 400
    text = "\n".join(message_text(m) for m in result.messages)
    assert "请不要推荐花生" in text
    assert "3月15日" in text


params = st.fixed_dictionaries(
    {
        "dialect": st.sampled_from(["openai", "anthropic", "ctxkeep"]),
        "fraction": st.sampled_from([0.001, 0.01, 0.05, 0.2]) | st.floats(0.0, 1.1),
        "keep_recent": st.integers(0, 6),
        "scorer": st.sampled_from(["lexical", "recency"]),
        "enable_pinning": st.booleans(),
        "tokens": st.booleans(),
    }
)


def _run(turn_list: list[Turn], p: dict[str, Any], receipt: Path | None = None) -> Any:
    messages = render(turn_list, p["dialect"])
    if p["tokens"]:
        target = int(tokens(messages) * p["fraction"])
        options: dict[str, Any] = {"target_tokens": target}
    else:
        target = int(size(messages) * p["fraction"])
        options = {"target_bytes": target}
    result = compact(
        messages, TASK, budget="hard", keep_recent=p["keep_recent"], scorer=p["scorer"],
        enable_pinning=p["enable_pinning"], receipt_path=receipt, **options,
    )  # fmt: skip
    return messages, target, result


def _long(turn_list: list[Turn]) -> list[Turn]:
    """Some tool results made long, so shortening has work to do."""
    out: list[Turn] = []
    for kind, payload in turn_list:
        if kind == "tools":
            out.append((kind, [(args, "\n".join([result] * 30)) for args, result in payload]))
        else:
            out.append((kind, payload))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns(), params, st.booleans())
def test_the_hard_budget_holds_or_only_the_mandatory_part_is_left(
    turn_list: list[Turn], p: dict[str, Any], lengthen: bool
) -> None:
    turn_list = _long(turn_list) if lengthen else turn_list
    messages, target, result = _run(turn_list, p)
    assert invalid_reason(list(result.messages)) is None
    measure = tokens if p["tokens"] else size
    assert len(result.decisions) == len(messages)
    if result.fits:
        assert measure(result.messages) <= target
    else:
        mandatory = [messages[i] for i in mandatory_messages(read_segments(messages))]
        assert list(result.messages) == mandatory
        assert measure(mandatory) > target
    for message in result.messages:  # identity of every kept message
        if message is result.summary:
            continue
        original = next(
            (m for m in messages if m is message or (
                message_role(m) == message_role(message)
                and tool_call_ids(m) == tool_call_ids(message)
                and tool_result_ids(m) == tool_result_ids(message)
            )),
            None,
        )  # fmt: skip
        assert original is not None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns(), params, st.booleans())
def test_replay_reproduces_the_hard_output(
    tmp_path_factory: pytest.TempPathFactory, turn_list: list[Turn], p: dict[str, Any],
    lengthen: bool,
) -> None:  # fmt: skip
    turn_list = _long(turn_list) if lengthen else turn_list
    receipt = tmp_path_factory.getbasetemp() / f"hard-{next(_counter)}.jsonl"
    messages, _, original = _run(turn_list, p, receipt)
    if not original.compacted:
        return
    replayed = replay(messages, receipt)
    assert [(d.kept, d.reason, d.spans) for d in replayed.decisions] == [
        (d.kept, d.reason, d.spans) for d in original.decisions
    ]
    assert replayed.messages == original.messages
