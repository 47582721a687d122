"""Abstractive summarisers for ``compact(..., summarizer=...)``.

A summariser is any :data:`~ctxkeep.compactor.summary.Summarizer`: a function of a
:class:`~ctxkeep.compactor.summary.SummaryRequest` that returns the summary's text.
:class:`OpenAIChatSummarizer` is one that asks an OpenAI-compatible
``/v1/chat/completions`` server (llama.cpp, vLLM, Ollama, a hosted API) over the
``openai-chat`` scorer's HTTP code (:func:`ctxkeep.scorers._transport.post_json`: one
deadline for the whole request, no redirect followed, a key that is not a valid header
value refused before any request and never quoted in a message).

:class:`AbstractiveStep` is how the compactor uses one: called once per distinct set of
replaced messages (a hard budget plans several times over the same ones), never raising
(a failure, an answer that is no text, a text that does not fit: the extractive summary
stands in and the result says why), its text repaired by
:func:`~ctxkeep.compactor.repair.repair_summary` before use. On replay it is built from
what the receipt recorded and calls no model.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ctxkeep.base.secrets import mask_secrets
from ctxkeep.compactor.receipts import without_credentials
from ctxkeep.compactor.repair import repair_summary, sources_digest
from ctxkeep.compactor.result import SummaryRepair
from ctxkeep.compactor.summary import SummaryRequest
from ctxkeep.compactor.text import cut_utf8, utf8_size
from ctxkeep.extract import SourceIndex

__all__ = [
    "DEFAULT_SUMMARY_TIMEOUT",
    "SUMMARIZERS",
    "AbstractiveStep",
    "OpenAIChatSummarizer",
    "SummarizerOptions",
    "describe_summarizer",
    "make_summarizer",
    "summary_prompt",
]

DEFAULT_SUMMARY_TIMEOUT = 60.0
"""Seconds for the whole summary request: a summary is hundreds of tokens, not one word."""
SUMMARIZERS = ("extractive", "openai-chat")
"""What ``ctxkeep compact --summarizer`` accepts."""
MAX_INPUT_BYTES = 200_000
"""The most conversation text sent to the model (sources in conversation order)."""

SYSTEM_PROMPT = (
    "You compress the earlier part of a conversation between a user and a coding agent. "
    "Your summary replaces the messages you are given: the agent continues with only your "
    "summary and the later messages. Keep every standing instruction of the user verbatim, "
    "the decisions made, the state of the work, and the exact file paths, identifiers, "
    "commands and errors that matter. Name nothing the messages do not name. Write plain "
    "text, one short line per point, no preamble. At most {limit} bytes (about {words} "
    "words)."
)


@dataclass(frozen=True, slots=True)
class SummarizerOptions:
    """Where the ``openai-chat`` summariser asks; the key is never written out."""

    url: str | None = None
    key: str | None = None
    model: str | None = None
    timeout: float = DEFAULT_SUMMARY_TIMEOUT

    @classmethod
    def from_env(
        cls,
        *,
        url: str | None = None,
        model: str | None = None,
        timeout: float | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> SummarizerOptions:
        """Explicit values first, then ``CTXKEEP_SUMMARY_URL``, ``CTXKEEP_SUMMARY_MODEL``,
        ``CTXKEEP_SUMMARY_TIMEOUT``; the key only from ``CTXKEEP_SUMMARY_KEY``."""
        from ctxkeep.scorers.base import timeout_from_env

        env = os.environ if environ is None else environ
        return cls(
            url=url or env.get("CTXKEEP_SUMMARY_URL") or None,
            key=env.get("CTXKEEP_SUMMARY_KEY") or None,
            model=model or env.get("CTXKEEP_SUMMARY_MODEL") or None,
            timeout=timeout_from_env(
                timeout, env, "CTXKEEP_SUMMARY_TIMEOUT", DEFAULT_SUMMARY_TIMEOUT
            ),
        )


def summary_prompt(request: SummaryRequest) -> list[dict[str, str]]:
    """The chat messages that ask for a summary of the request's sources: the messages in
    conversation order, numbered as in the conversation, up to :data:`MAX_INPUT_BYTES`."""
    blocks: list[str] = []
    size = 0
    for source in sorted(request.sources, key=lambda s: s.index):
        block = cut_utf8(f"message {source.index} ({source.role or 'message'}):\n{source.text}",
                         MAX_INPUT_BYTES - size)  # fmt: skip
        if not block:
            break
        blocks.append(block)
        size += utf8_size(block) + 2
    limit = request.cap_bytes
    return [
        {"role": "system", "content": SYSTEM_PROMPT.format(limit=limit, words=max(1, limit // 6))},
        {"role": "user", "content": "The messages to summarise:\n\n" + "\n\n".join(blocks)},
    ]


class OpenAIChatSummarizer:
    """A summary from an OpenAI-compatible chat-completions server (one request)."""

    name = "openai-chat"

    def __init__(
        self,
        url: str | None,
        key: str | None = None,
        *,
        model: str | None = None,
        timeout: float = DEFAULT_SUMMARY_TIMEOUT,
    ) -> None:
        self.url = url
        self.key = key
        self.model = model or "default"
        self.timeout = timeout

    def __call__(self, request: SummaryRequest) -> str | None:
        """The model's summary; raises ScorerError (the transport's one error) on failure."""
        from ctxkeep.scorers._transport import post_json, safe_url
        from ctxkeep.scorers.base import ScorerUnavailable
        from ctxkeep.scorers.openai_chat import chat_endpoint, completion_text

        if not self.url:
            raise ScorerUnavailable(
                "no summary endpoint: give --summary-url or set CTXKEEP_SUMMARY_URL"
            )
        endpoint = chat_endpoint(self.url)
        body = {
            "model": self.model,
            "messages": summary_prompt(request),
            "max_tokens": max(16, request.cap_bytes // 2),
            "temperature": 0,
        }
        answer = post_json(
            endpoint, body, key=self.key, timeout=self.timeout, key_name="CTXKEEP_SUMMARY_KEY"
        )
        return completion_text(answer, safe_url(endpoint))

    def describe(self) -> dict[str, Any]:
        from ctxkeep.scorers._transport import safe_url
        from ctxkeep.scorers.openai_chat import chat_endpoint

        return {
            "name": self.name,
            "url": safe_url(chat_endpoint(self.url)) if self.url else None,
            "model": self.model,
            "timeout": self.timeout,
        }


def make_summarizer(name: str, options: SummarizerOptions | None = None) -> Any:
    """The summariser called ``name`` (None for ``extractive``: the compactor's own);
    raises ``KeyError`` listing the known names."""
    if name == "extractive":
        return None
    if name == "openai-chat":
        o = options if options is not None else SummarizerOptions.from_env()
        return OpenAIChatSummarizer(o.url, o.key, model=o.model, timeout=o.timeout)
    raise KeyError(f"unknown summarizer {name!r}; known: {', '.join(SUMMARIZERS)}")


def describe_summarizer(summarizer: Any) -> dict[str, Any]:
    """The summariser's self-description (``describe()`` when it has one) without anything
    that looks like a credential, with at least its ``name``."""
    described: Any = {}
    describe = getattr(summarizer, "describe", None)
    if callable(describe):
        try:
            described = describe()
        except Exception:  # a caller's summariser may fail here too; the name is enough
            described = {}
    safe = without_credentials(described)
    name = getattr(summarizer, "name", None) or getattr(summarizer, "__name__", None)
    safe.setdefault("name", name if isinstance(name, str) and name else type(summarizer).__name__)
    return safe


class AbstractiveStep:
    """One compaction's use of a summariser (see the module docstring).

    ``recorded`` (replay): the texts a receipt recorded by sources digest, used instead
    of calling anything; ``recorded_failure`` why the recorded run had none.
    """

    def __init__(
        self,
        summarizer: Callable[[SummaryRequest], Any] | None,
        described: Mapping[str, Any],
        *,
        recorded: Mapping[str, str] | None = None,
        recorded_failure: str | None = None,
    ) -> None:
        self._call = summarizer
        self.described = dict(described)
        self.name = str(self.described.get("name") or "summarizer")
        model = self.described.get("model")
        self.model = model if isinstance(model, str) else None
        self._recorded = recorded
        self._recorded_failure = recorded_failure
        self._written: dict[str, tuple[str | None, str | None]] = {}
        self._conversation: SourceIndex | None = None

    def _write(self, request: SummaryRequest, digest: str) -> tuple[str | None, str | None]:
        """The summariser's text for ``request`` and, when there is none, why."""
        if self._recorded is not None:
            text = self._recorded.get(digest)
            if text is not None:
                return text, None
            why = self._recorded_failure or (
                "the receipt's summary was written for other messages (no model is called "
                "on replay)"
            )
            return None, why
        if self._call is None:
            return None, "no summarizer"
        try:
            text = self._call(request)
        except Exception as exc:  # a summariser may fail any way; the extractive one stands in
            why = str(exc) if _is_own(exc) else f"{type(exc).__name__}: {exc}"
            return None, mask_secrets(why)[0]
        if not isinstance(text, str):
            return None, f"it answered {type(text).__name__}, not a text"
        if not text.strip():
            return None, "it answered an empty text"
        return text, None

    def summarise(
        self, request: SummaryRequest, conversation: Sequence[str]
    ) -> tuple[str | None, SummaryRepair]:
        """The repaired summary (None: use the extractive one) and the record of it."""
        digest = sources_digest(request)
        if digest not in self._written:
            self._written[digest] = self._write(request, digest)
        written, failed = self._written[digest]
        if written is None:
            return None, SummaryRepair(
                self.name, self.model, False, None, failed, sources_sha256=digest
            )
        if self._conversation is None:  # built once: a hard budget repairs several times
            self._conversation = SourceIndex(conversation)
        try:
            repaired = repair_summary(written, request, self._conversation)
        except Exception as exc:  # model text is arbitrary; an audit that fails uses none of it
            why = f"its summary could not be audited ({type(exc).__name__}: {exc})"
            return None, SummaryRepair(
                self.name, self.model, False, written, why, sources_sha256=digest
            )
        if repaired.text is None:
            why = f"its summary does not fit the summary's {request.cap_bytes} bytes"
            return None, SummaryRepair(
                self.name, self.model, False, written, why, sources_sha256=digest
            )
        return repaired.text, SummaryRepair(
            self.name,
            self.model,
            True,
            written,
            None,
            repaired.appended,
            repaired.removed,
            repaired.instructions_cut,
            digest,
        )


def _is_own(exc: Exception) -> bool:
    """The transport's errors already say what failed, with the endpoint and no key."""
    from ctxkeep.scorers.base import ScorerError

    return isinstance(exc, ScorerError)
