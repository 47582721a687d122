"""``openai-chat``: any OpenAI-compatible chat-completions server asked the typed question.

llama.cpp, vLLM, Ollama and hosted APIs all speak ``/v1/chat/completions``. Each message is
one request (a chat completion answers one question) asking for one word out of the score
levels. When the server offers ``logprobs``, the probabilities of the level words among the
first token's alternatives are the answer (expected value, confidence = peak); otherwise
the word it wrote is the chosen level. A key is optional: local servers need none.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ctxkeep.scorers._transport import post_json, safe_url
from ctxkeep.scorers.base import (
    LEVELS,
    Score,
    ScoreRequest,
    ScorerError,
    ScorerUnavailable,
    reduce_level,
    reduce_probabilities,
)
from ctxkeep.scorers.http import _finite

__all__ = [
    "OpenAIChatScorer",
    "chat_endpoint",
    "completion_text",
    "level_of_token",
    "parse_completion",
]

SYSTEM_PROMPT = (
    "You rate how much one message from an agent's conversation matters for continuing "
    "the task described in the state. Answer with exactly one word: {levels}."
)


def chat_endpoint(url: str) -> str:
    """The chat-completions URL for a server base URL (``http://h:8080`` or ``.../v1``)."""
    base = url.rstrip("/")
    if base.endswith("/chat/completions"):
        return base
    if base.endswith("/v1"):
        return base + "/chat/completions"
    return base + "/v1/chat/completions"


def completion_text(body: Any, where: str) -> str:
    """The text a chat completion wrote (stripped); ScorerError naming ``where`` when the
    answer holds none (the benchmark's LLM row and the compactor's summariser read it)."""
    choices = body.get("choices") if isinstance(body, Mapping) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise ScorerError(f"{where}: the completion holds no choices")
    message = choices[0].get("message")
    text = message.get("content") if isinstance(message, Mapping) else None
    if not isinstance(text, str):
        raise ScorerError(f"{where}: the completion holds no text")
    return text.strip()


def level_of_token(token: str, levels: Sequence[str] = LEVELS) -> int | None:
    """Which level a generated token starts to spell (``crit`` -> critical), if any.

    One-letter tokens are ignored: ``n`` or ``h`` begins too many ordinary words.
    """
    word = token.strip().strip("\"'.,:;!*`").lower()
    if len(word) < 2:
        return None
    for i, name in enumerate(levels):
        if name.startswith(word) or word.startswith(name):
            return i
    return None


def _from_logprobs(choice: Mapping[str, Any], levels: Sequence[str]) -> Score | None:
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, Mapping) else None
    if not isinstance(content, list) or not content or not isinstance(content[0], Mapping):
        return None
    alternatives = content[0].get("top_logprobs")
    if not isinstance(alternatives, list) or not alternatives:
        alternatives = [content[0]]
    probs = [0.0] * len(levels)
    for alt in alternatives:
        if not isinstance(alt, Mapping):
            continue
        token, logprob = alt.get("token"), alt.get("logprob")
        if not isinstance(token, str) or isinstance(logprob, bool):
            continue
        if not isinstance(logprob, int | float) or not _finite(logprob) or logprob > 0:
            continue
        index = level_of_token(token, levels)
        if index is not None:
            probs[index] += math.exp(logprob)
    if sum(probs) <= 0:
        return None
    return reduce_probabilities(probs)


def parse_completion(body: Any, levels: Sequence[str] = LEVELS) -> Score:
    """A chat-completions response -> Score (logprobs first, else the written word)."""
    choices = body.get("choices") if isinstance(body, Mapping) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise ScorerError("the completion holds no choices")
    choice = choices[0]
    from_logprobs = _from_logprobs(choice, levels)
    if from_logprobs is not None:
        return from_logprobs
    message = choice.get("message")
    text = message.get("content") if isinstance(message, Mapping) else None
    if not isinstance(text, str) or not text.split():
        raise ScorerError("the completion holds neither level logprobs nor an answer")
    index = level_of_token(text.split()[0], levels)
    if index is None:
        raise ScorerError(f"the completion answered {text[:40]!r}, not a level")
    return reduce_level(index, len(levels))


class OpenAIChatScorer:
    """One chat completion per message, read from logprobs when the server offers them."""

    name = "openai-chat"
    remote = True
    per_candidate = True
    """Each candidate is its own request (counted so in the stats)."""

    def __init__(
        self,
        url: str | None,
        key: str | None = None,
        *,
        model: str | None = None,
        timeout: float = 10.0,
        levels: Sequence[str] = LEVELS,
    ) -> None:
        self.url = url
        self.key = key
        self.model = model or "default"
        self.timeout = timeout
        self.levels = tuple(levels)

    def _body(self, state: str, text: str) -> dict[str, Any]:
        words = ", ".join(self.levels)
        return {
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT.format(levels=words)},
                {
                    "role": "user",
                    "content": f"State:\n{state}\n\nMessage:\n{text}\n\nOne word ({words}):",
                },
            ],
            "max_tokens": 3,
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": max(5, len(self.levels)),
        }

    def score(self, request: ScoreRequest) -> Sequence[Score]:
        if not self.url:
            raise ScorerUnavailable("no chat endpoint: give --url or set CTXKEEP_SCORE_URL")
        endpoint = chat_endpoint(self.url)
        return [
            parse_completion(
                post_json(
                    endpoint, self._body(request.state, c.text), key=self.key, timeout=self.timeout
                ),
                self.levels,
            )
            for c in request.candidates
        ]

    def describe(self) -> dict[str, object]:
        return {
            "name": self.name,
            "url": safe_url(chat_endpoint(self.url)) if self.url else None,
            "model": self.model,
            "timeout": self.timeout,
            "levels": list(self.levels),
        }
