"""Step 5 of the compactor: the summary that stands in for what was dropped.

A compact record of the dropped part, packed to the bytes it is given:

1. a header (how many messages, how many bytes went);
2. the user's standing instructions, verbatim, as the auditor's extractor
   (:func:`ctxkeep.extract.extract_constraints`) finds them, oldest first;
3. the facts (:mod:`ctxkeep.compactor.facts`), best first until the room is spent, then
   shown grouped by message in conversation order: ``- 12 user: fact; fact``.

Deterministic: it reads only the dropped texts, their roles and the values the scorer
gave them (which receipts record), so ``replay`` writes the same summary.

The seam for other summarisers: :func:`extractive_summary` is a :data:`Summarizer`, a
function of a :class:`SummaryRequest` that returns the text (or None). The compactor
calls the summariser in one place and then holds the text to the request's caps with
:func:`held_to_caps`, so whatever writes the text, the budget holds. An abstractive
summariser's text is audited and repaired first (:mod:`ctxkeep.compactor.repair`).

The summary is a message in the caller's own dialect. Anthropic messages have no
``system`` role (the system prompt is a separate request field), so there the summary is
a ``user`` message unless ``summary_role`` is ``user`` or ``assistant``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ctxkeep.base.messages import Dialect
from ctxkeep.base.tokens import count_tokens
from ctxkeep.compactor.facts import Fact, FactSource, collect_facts, select_facts
from ctxkeep.compactor.text import cut_utf8, utf8_size
from ctxkeep.extract import extract_constraints
from ctxkeep.extract._text import squash

__all__ = [
    "SCAN_BYTES",
    "Summarizer",
    "SummaryRequest",
    "conversation_dialect",
    "dropped_instructions",
    "extractive_summary",
    "held_to_caps",
    "is_harness_text",
    "scan_limit",
    "summary_message",
    "users_words",
]

SCAN_BYTES = 256 * 1024
"""The most dropped text read for facts (sources in the request's order): bounds the
summary's cost on huge compactions (less for a small summary: 64 times its cap, at least
32 KB). Instructions are read from every dropped user text."""
_MIN_FACT_BYTES = 12
_MIN_SCAN_BYTES = 32 * 1024


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    """What a summariser is given.

    ``sources`` are the dropped texts (and the elided parts of shortened messages) in the
    order they should be read: the user's words first (all of them), then by the scorer's
    value, up to what a summary of ``cap_bytes`` reads (:func:`scan_limit`).
    ``total`` is the number of messages of the conversation (a source's index over it is
    its place in time). The summary must fit ``cap_bytes`` UTF-8 bytes and, when set,
    ``cap_tokens`` o200k tokens. ``task`` is empty on replay.
    """

    sources: tuple[FactSource, ...]
    dropped_count: int
    dropped_bytes: int
    total: int
    cap_bytes: int
    cap_tokens: int | None
    task: str = ""


Summarizer = Callable[[SummaryRequest], "str | None"]
"""A function that writes the summary for a request (None: no summary)."""


def _header(request: SummaryRequest, room: int) -> str:
    n = request.dropped_count
    long = (
        f"[ctxkeep] {n} earlier message{'s' if n != 1 else ''} ({request.dropped_bytes} bytes) "
        "were compacted away; what they established, by message number:"
    )
    if utf8_size(long) * 4 <= room:
        return long
    return f"[ctxkeep] {n} message{'s' if n != 1 else ''} compacted; by message number:"


def is_harness_text(text: str) -> bool:
    """User-role text a harness wrote, not the user: it opens with an injection tag that
    the log readers mark as injected -- Claude Code's ``<system-reminder>``,
    ``<local-command-caveat>``, ``<command-name>``..., Codex's ``<environment_context>``,
    ``# AGENTS.md instructions``... (docs/formats.md). An agent's API messages carry
    them as user messages as its transcript does.

    Real case (benchmarks/real-logs/claude-code-91_b42542f24f_0, its compaction): the
    replaced history holds 16 ``<system-reminder>`` user messages and a
    ``<local-command-caveat>``; read as the user's words, the repair added "you MUST
    refuse to improve or augment the code" and "DO NOT respond to these messages ..." to
    the summary as lost standing instructions.
    """
    claude_code_kind, codex_kind, openings = _injection_checks()
    head = text.lstrip()
    return (
        claude_code_kind(head) is not None
        or codex_kind(head) is not None
        or head.startswith(openings)
    )


@functools.cache
def _injection_checks() -> tuple[
    Callable[[str], str | None], Callable[[str], str | None], tuple[str, ...]
]:
    """The log readers' tests for injected user text, imported on first use (the
    compactor does not otherwise load the adapters) and once, not per text: 1,840 user
    messages took 12.4 ms with the imports per call, 3.7 ms so."""
    from ctxkeep.log.adapters import claude_code, codex
    from ctxkeep.log.adapters._arrays import INJECTED_OPENINGS

    return (
        claude_code.injected_kind_of_user_text,
        codex.injected_kind_of_user_text,
        tuple(opening for opening, _kind in INJECTED_OPENINGS),
    )


def users_words(sources: Sequence[FactSource]) -> list[FactSource]:
    """The sources the user wrote: harness text left out, and the ``<system-reminder>``
    blocks Claude Code appends to a user message cut out of it."""
    from ctxkeep.log.adapters.claude_code import split_system_reminders

    out: list[FactSource] = []
    for source in sources:
        if source.role != "user":
            continue
        text, reminders = split_system_reminders(source.text)
        if not text.strip() or is_harness_text(text):
            continue
        out.append(replace(source, text=text, instructions=None) if reminders else source)
    return out


def dropped_instructions(sources: Sequence[FactSource]) -> list[str]:
    """The standing instructions in the dropped user texts, verbatim, oldest first, once
    (extracted here only for the sources that do not carry them already); text a harness
    wrote as the user is not the user's (:func:`users_words`)."""
    users = sorted(users_words(sources), key=lambda s: s.index)
    extracted = {
        s.index: tuple(c.text for c in extract_constraints(s.text))
        for s in users
        if s.instructions is None
    }
    seen: set[str] = set()
    out: list[str] = []
    for source in users:
        texts = source.instructions if source.instructions is not None else extracted[source.index]
        for text in texts:
            key = squash(text)
            if key and key not in seen:
                seen.add(key)
                out.append(text)
    return out


def scan_limit(cap_bytes: int) -> int:
    """How much source text a summary of ``cap_bytes`` reads for facts: ``SCAN_BYTES``, or
    64 times the cap when that is less (a 1 KB summary has no use for 256 KB of text)."""
    return min(SCAN_BYTES, max(_MIN_SCAN_BYTES, 64 * cap_bytes))


def _candidate_facts(request: SummaryRequest) -> list[Fact]:
    """The facts of the sources, read in order up to :func:`scan_limit`."""
    limit = scan_limit(request.cap_bytes)
    chosen: list[FactSource] = []
    scanned = 0
    for source in request.sources:
        room = limit - scanned
        if len(source.text) > room:
            # The source the limit cuts keeps its whole lines only (else up to its last
            # space): a fact cut mid-word names what no source holds. Real case: make
            # bench's quality run, "read_file {"path":"src/netkit/cach" in a summary.
            cut = source.text[:room]
            end = cut.rfind("\n") + 1 or cut.rfind(" ") + 1
            if cut[:end].strip():
                chosen.append(replace(source, text=cut[:end]))
            break
        scanned += len(source.text)
        chosen.append(source)
    return collect_facts(chosen, request.total)


class _Packer:
    """Lines added while they fit ``cap`` bytes (joined by newlines)."""

    def __init__(self, header: str, cap: int) -> None:
        self.cap = cap
        self.size = utf8_size(header)
        self.instructions: list[str] = []
        self.facts: list[Fact] = []
        self._groups: set[int] = set()
        self._keys: list[str] = []

    def add_instruction(self, text: str) -> None:
        cost = 1 + utf8_size(f"- {text}")
        if not self.instructions:
            cost += 1 + utf8_size("Instructions (verbatim):")
        if self.size + cost <= self.cap:
            self.instructions.append(text)
            self.size += cost
            self._keys.append(squash(text))

    def add_fact(self, fact: Fact) -> None:
        if fact.source in self._groups:
            cost = 2 + fact.bytes
        else:
            cost = 1 + utf8_size(f"- {fact.source} {fact.role or 'message'}: ") + fact.bytes
        if not self.facts:
            cost += 1 + utf8_size("Facts:")
        if self.size + cost > self.cap:
            return
        if any(fact.key in key or key in fact.key for key in self._keys):
            return  # said already, or inside what is said
        self.facts.append(fact)
        self._groups.add(fact.source)
        self._keys.append(fact.key)
        self.size += cost

    def room(self) -> int:
        return self.cap - self.size

    def text(self, header: str, facts: Sequence[Fact] | None = None) -> str:
        chosen = self.facts if facts is None else facts
        lines = [header]
        if self.instructions:
            lines.append("Instructions (verbatim):")
            lines.extend(f"- {text}" for text in self.instructions)
        if chosen:
            lines.append("Facts:")
            groups: dict[int, list[Fact]] = {}
            for fact in chosen:
                groups.setdefault(fact.source, []).append(fact)
            for index in sorted(groups):
                group = groups[index]
                said = "; ".join(f.text for f in group)
                lines.append(f"- {index} {group[0].role or 'message'}: {said}")
        return "\n".join(lines)


def extractive_summary(request: SummaryRequest) -> str | None:
    """The instructions and the facts of the dropped part, packed to the caps."""
    header = _header(request, request.cap_bytes)
    if utf8_size(header) > request.cap_bytes:
        return None
    packer = _Packer(header, request.cap_bytes)
    for text in dropped_instructions(request.sources):
        packer.add_instruction(text)
    for fact in select_facts(_candidate_facts(request)):
        if packer.room() < _MIN_FACT_BYTES:
            break
        packer.add_fact(fact)
    # Within the bytes; for a token cap, drop the lowest-ranked facts until it fits.
    chosen = list(packer.facts)
    text = packer.text(header, chosen)
    while request.cap_tokens is not None and count_tokens(text) > request.cap_tokens:
        if not chosen:
            return header if count_tokens(header) <= request.cap_tokens else None
        chosen = chosen[: len(chosen) * 3 // 4]
        text = packer.text(header, chosen)
    return text


def held_to_caps(text: str | None, cap_bytes: int, cap_tokens: int | None) -> str | None:
    """``text`` within the caps: whole lines dropped from the end until it fits, None
    when not even its first line fits. What any summariser wrote passes through here."""
    if text is None:
        return None
    lines = text.split("\n")
    while lines:
        candidate = "\n".join(lines)
        if utf8_size(candidate) <= cap_bytes and (
            cap_tokens is None or count_tokens(candidate) <= cap_tokens
        ):
            return candidate
        if len(lines) == 1:
            first = cut_utf8(lines[0], cap_bytes)
            fits = cap_tokens is None or count_tokens(first) <= cap_tokens
            return first if first and fits and first == lines[0] else None
        lines.pop()
    return None


def conversation_dialect(dialects: Iterable[Dialect]) -> Dialect:
    """ctxkeep if any message is an event, else Anthropic if any message is recognisably
    Anthropic (tool_use / tool_result / thinking blocks), else OpenAI.

    A plain-text conversation reads the same in both APIs: it is taken as OpenAI, so an
    Anthropic caller without tool blocks passes ``summary_role="user"``.
    """
    found = set(dialects)
    if "ctxkeep" in found:
        return "ctxkeep"
    if "anthropic" in found:
        return "anthropic"
    return "openai"


def summary_message(text: str, dialect: Dialect, role: str, seq: Any) -> dict[str, Any]:
    """The summary as a message of ``dialect`` (``seq``: the place it takes, for events)."""
    if dialect == "ctxkeep":
        native_role = role if role in ("system", "user", "assistant") else "system"
        return {
            "type": "message",
            "seq": seq if isinstance(seq, int) and not isinstance(seq, bool) else 0,
            "role": native_role,
            "text": text,
        }
    if dialect == "anthropic":
        return {"role": role if role in ("user", "assistant") else "user", "content": text}
    return {"role": role, "content": text}
