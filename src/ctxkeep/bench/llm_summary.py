"""The fact-survival benchmark's LLM row: a summary written by a model, of the same size.

Any OpenAI-compatible ``/v1/chat/completions`` server will do (llama.cpp, vLLM, Ollama, a
hosted API). The replaced part of the chat goes to the model as a transcript with the
instruction to summarise it for the conversation to continue, keeping the facts, within
the byte budget; what it writes is then held to the budget (whole lines dropped from the
end, the first line cut at a character), as a harness would have to. A transcript larger
than ``max_input_bytes`` is cut at message boundaries into parts that are summarised
separately, each given its share of the budget, and the parts joined: the way a harness
summarises a history longer than the model's window.

Configured by ``CTXKEEP_BENCH_LLM_URL`` (the server), ``CTXKEEP_BENCH_LLM_MODEL`` and
``CTXKEEP_BENCH_LLM_KEY`` (optional: local servers need none); without a URL the row
says "not configured".
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxkeep.base.messages import message_role, message_text
from ctxkeep.compactor.text import cut_utf8, utf8_size
from ctxkeep.scorers._transport import post_json, safe_url
from ctxkeep.scorers.openai_chat import chat_endpoint, completion_text

__all__ = ["LLMEndpoint", "llm_summary", "summary_prompt", "transcript"]

SYSTEM_PROMPT = (
    "You compress the earlier part of a conversation between a user and an assistant. "
    "Your summary replaces it: the assistant will continue the conversation with only your "
    "summary. Keep every fact the user established about themselves and their plans "
    "(names, places, numbers with their units, dates, preferences; where a fact changed, "
    "only its newest value) and every standing instruction the user gave. Write plain "
    "text, no preamble. Your summary must not exceed {limit} bytes (about {words} words)."
)


@dataclass(frozen=True, slots=True)
class LLMEndpoint:
    """Where the summaries are written, and how."""

    url: str
    model: str = "default"
    key: str | None = None
    timeout: float = 300.0
    max_input_bytes: int = 200_000

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LLMEndpoint | None:
        """The endpoint ``CTXKEEP_BENCH_LLM_URL`` names, or None when it is not set."""
        env = os.environ if environ is None else environ
        url = env.get("CTXKEEP_BENCH_LLM_URL", "").strip()
        if not url:
            return None
        return cls(
            url,
            env.get("CTXKEEP_BENCH_LLM_MODEL", "").strip() or "default",
            env.get("CTXKEEP_BENCH_LLM_KEY") or None,
        )

    def describe(self) -> str:
        return f"{self.model} at {safe_url(chat_endpoint(self.url))}"


def transcript(messages: Sequence[Any]) -> list[str]:
    """One ``role: text`` block per message."""
    return [f"{message_role(m) or 'message'}: {message_text(m)}" for m in messages]


def _parts(blocks: Sequence[str], limit: int) -> list[str]:
    """The blocks joined into parts of at most ``limit`` bytes (a longer block is a part
    of its own, cut to the limit)."""
    parts: list[str] = []
    current: list[str] = []
    size = 0
    for block in blocks:
        cost = utf8_size(block) + 2
        if current and size + cost > limit:
            parts.append("\n\n".join(current))
            current, size = [], 0
        current.append(cut_utf8(block, limit))
        size += cost
    if current:
        parts.append("\n\n".join(current))
    return parts


def summary_prompt(part: str, limit: int) -> list[dict[str, str]]:
    """The chat messages that ask for a summary of ``part`` within ``limit`` bytes."""
    return [
        {"role": "system", "content": SYSTEM_PROMPT.format(limit=limit, words=max(1, limit // 6))},
        {"role": "user", "content": f"The conversation so far:\n\n{part}"},
    ]


def held_to_bytes(text: str, limit: int) -> str:
    """``text`` within ``limit`` UTF-8 bytes: whole lines dropped from the end, and a first
    line longer than the limit cut at a character."""
    lines = text.split("\n")
    while lines and utf8_size("\n".join(lines)) > limit:
        if len(lines) == 1:
            return cut_utf8(lines[0], limit)
        lines.pop()
    return "\n".join(lines)


def llm_summary(endpoint: LLMEndpoint, zone: Sequence[Any], target_bytes: int) -> list[Any]:
    """The zone replaced by the model's summary, held to ``target_bytes`` (one ``user``
    message; none when the budget is too small for a word). Raises ScorerError when the
    server fails: the benchmark records it as that run's error."""
    if target_bytes < 8:
        return []
    url = chat_endpoint(endpoint.url)
    parts = _parts(transcript(zone), endpoint.max_input_bytes)
    total = sum(utf8_size(p) for p in parts)
    written: list[str] = []
    for part in parts:
        share = max(8, target_bytes * utf8_size(part) // max(total, 1))
        body = {
            "model": endpoint.model,
            "messages": summary_prompt(part, share),
            "max_tokens": max(16, share // 2),
            "temperature": 0,
        }
        answer = post_json(url, body, key=endpoint.key, timeout=endpoint.timeout)
        written.append(completion_text(answer, safe_url(url)))
    text = held_to_bytes("\n".join(t for t in written if t), target_bytes)
    return [{"role": "user", "content": text}] if text else []
