"""Conversations for compactor tests, in the three dialects, and the validity check."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ctxkeep.base.messages import tool_call_ids, tool_result_ids

PLAIN = [
    "parser", "config", "loader", "ok", "sounds", "good", "the", "fix", "test", "value",
    "plain", "words", "配置", "加载", "we", "then", "run", "again", "looks", "fine", "next",
    "step", "check", "output", "result", "more", "text", "here",
]  # fmt: skip
PINNED = [
    "src/app/main.py", "Do not change the API.", "HTTP 429", "ENOENT", "https://x.example/a",
    "必须保留行号", "Traceback (most recent call last):",
]  # fmt: skip
WORDS = PLAIN * 30 + PINNED  # a pin in roughly one message of five

Turn = tuple[str, Any]


def texts(min_words: int = 1, max_words: int = 60) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(WORDS), min_size=min_words, max_size=max_words).map(" ".join)


def turns() -> st.SearchStrategy[list[Turn]]:
    turn = st.one_of(
        st.tuples(st.just("user"), texts()),
        st.tuples(st.just("assistant"), texts()),
        st.tuples(st.just("system"), texts(1, 5)),
        st.tuples(
            st.just("tools"), st.lists(st.tuples(texts(1, 3), texts()), min_size=1, max_size=3)
        ),
    )
    return st.lists(turn, min_size=1, max_size=40)


def render(turn_list: list[Turn], dialect: str) -> list[dict[str, Any]]:
    """The turns as messages of ``dialect`` (openai, anthropic, ctxkeep)."""
    out: list[dict[str, Any]] = []
    call = 0
    for kind, payload in turn_list:
        if kind != "tools":
            role = kind
            if dialect == "ctxkeep":
                out.append({"type": "message", "seq": len(out) + 1, "role": role, "text": payload})
            elif dialect == "anthropic" and role == "system":
                out.append({"role": "user", "content": [{"type": "text", "text": payload}]})
            else:
                out.append({"role": role, "content": payload})
            continue
        ids = []
        for _args, _result in payload:
            call += 1
            ids.append(f"call_{call}")
        if dialect == "openai":
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": "run", "arguments": args},
                        }
                        for cid, (args, _) in zip(ids, payload, strict=True)
                    ],
                }
            )
            for cid, (_, result) in zip(ids, payload, strict=True):
                out.append({"role": "tool", "tool_call_id": cid, "content": result})
        elif dialect == "anthropic":
            out.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": cid, "name": "run", "input": {"a": args}}
                        for cid, (args, _) in zip(ids, payload, strict=True)
                    ],
                }
            )
            out.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": cid, "content": result}
                        for cid, (_, result) in zip(ids, payload, strict=True)
                    ],
                }
            )
        else:
            for cid, (args, _) in zip(ids, payload, strict=True):
                out.append(
                    {
                        "type": "tool/call",
                        "seq": len(out) + 1,
                        "call_id": cid,
                        "name": "run",
                        "input": {"a": args},
                    }
                )
            for cid, (_, result) in zip(ids, payload, strict=True):
                out.append(
                    {"type": "tool/result", "seq": len(out) + 1, "call_id": cid, "text": result}
                )
    return out


def invalid_reason(messages: list[Any]) -> str | None:
    """Why ``messages`` is not a valid sequence, or None: every result follows its call
    with only other results (or calls of the same turn) between them; no orphan call or
    result."""
    call_at: dict[str, int] = {}
    for i, message in enumerate(messages):
        for cid in tool_call_ids(message):
            call_at[cid] = i
        for rid in tool_result_ids(message):
            if rid not in call_at:
                return f"message {i}: result {rid} has no call before it"
            between = messages[call_at.pop(rid) + 1 : i]
            if any(not (tool_result_ids(m) or tool_call_ids(m)) for m in between):
                return f"message {i}: result {rid} is separated from its call"
    if call_at:
        return f"calls without results: {sorted(call_at)}"
    return None
