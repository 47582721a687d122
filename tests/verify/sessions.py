"""Message lists for the guard's tests, built in the dialects real harnesses send."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

TASK = (
    "Fix the flaky parser tests in src/parser.py. Do not modify tests/fixtures/. "
    "Never push to main."
)


def _output(k: int) -> str:
    # roughly equal sizes, so a share of tokens is a share of messages
    return "\n".join(f"src/parser.py:{k * 10 + i}: token stream line {i} ok" for i in range(8))


def anthropic_round(k: int) -> list[dict[str, Any]]:
    """One agent round: the assistant calls a tool, the user message carries its result."""
    call = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": f"Step {k}: reading the next part of the parser."},
            {"type": "tool_use", "id": f"toolu_{k:03d}", "name": "Read", "input": {"n": k}},
        ],
    }
    result = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{k:03d}", "content": _output(k)}
        ],
    }
    return [call, result]


def incident_session() -> list[dict[str, Any]]:
    """The 156-message agent session of the incident (Anthropic Messages).

    The only user messages that are not tool results are the task (index 0) and one
    instruction near the end (index 150): the narrow split rule finds nothing to cut.
    """
    messages: list[dict[str, Any]] = [{"role": "user", "content": TASK}]
    for k in range(74):
        messages.extend(anthropic_round(k))
    messages.append({"role": "assistant", "content": "The parser tests pass now."})
    messages.append({"role": "user", "content": "Good. Now run the linter; only touch src/."})
    for k in range(74, 76):
        messages.extend(anthropic_round(k))
    messages.append({"role": "assistant", "content": "The linter is clean."})
    assert len(messages) == 156
    return messages


def openai_session(rounds: int = 6) -> list[dict[str, Any]]:
    """An OpenAI chat agent session: system, task, then call/result rounds."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful coding agent."},
        {"role": "user", "content": TASK},
    ]
    for k in range(rounds):
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{k}",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": f'{{"n": {k}}}'},
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"call_{k}", "content": _output(k)})
    messages.append({"role": "assistant", "content": "Done reading."})
    messages.append({"role": "user", "content": "Now summarise what you found."})
    return messages


def narrow_split_points(messages: list[dict[str, Any]]) -> list[int]:
    """The incident's rule: only a user message holding no tool result is a safe cut."""
    return [
        i
        for i, m in enumerate(messages)
        if m.get("role") == "user"
        and not (
            isinstance(m.get("content"), list)
            and any(b.get("type") == "tool_result" for b in m["content"])
        )
    ]


def chatty_session(rounds: int = 20) -> list[dict[str, Any]]:
    """An OpenAI session whose tool output holds nothing a compactor pins (no paths,
    errors or constraints), so a relevance compactor is free to drop most of it."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful research assistant."},
        {"role": "user", "content": "Collect notes about the history of tea."},
    ]
    for k in range(rounds):
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{k}",
                        "type": "function",
                        "function": {"name": "search", "arguments": f'{{"page": {k}}}'},
                    }
                ],
            }
        )
        note = f"Page {k} of the notes about tea talks about plantations and trade routes. " * 6
        messages.append({"role": "tool", "tool_call_id": f"call_{k}", "content": note})
    messages.append({"role": "user", "content": "Which page mentioned trade routes first?"})
    return messages


@st.composite
def agent_sessions(draw: st.DrawFn) -> list[dict[str, Any]]:
    """OpenAI agent sessions: user turns, assistant turns with 0-3 parallel calls."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys"}]
    counter = 0
    for _ in range(draw(st.integers(1, 12))):
        messages.append({"role": "user", "content": "u"})
        for _ in range(draw(st.integers(0, 3))):
            ids = [f"c{counter + i}" for i in range(draw(st.integers(1, 3)))]
            counter += len(ids)
            messages.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"id": i, "function": {"name": "f"}} for i in ids],
                }
            )
            order = draw(st.permutations(ids))
            messages.extend({"role": "tool", "tool_call_id": i, "content": "r"} for i in order)
        messages.append({"role": "assistant", "content": "a"})
    return messages
