"""Step 5 with an abstractive summariser: its summary audited and repaired before use.

A model's summary of the replaced messages may lose what the user asked and state what
nobody said. Before it stands in the output it is judged with the auditor's own
extractors, against what it replaced:

1. **invented items**: every item or claim of the summary (paths, identifiers, URLs,
   versions, counts, line numbers, quotes...) that no message of the conversation holds,
   as CK002 judges it (:func:`~ctxkeep.rules.summary_hallucination.invented_in`), is
   replaced by a marker, ``[unverified path removed]``, when the judgement is of high
   confidence (a low one, a near miss say, stays);
2. **lost instructions**: every standing instruction of the replaced user messages (the
   ones the extractive summary would list,
   :func:`~ctxkeep.compactor.summary.dropped_instructions`: never text a harness wrote
   as the user, :func:`~ctxkeep.compactor.summary.is_harness_text`) that the summary no longer
   carries, verbatim or reworded (CK003's survival judgement,
   :func:`~ctxkeep.extract.survival.still_carried`), is added verbatim, before the
   model's text;
3. **the budget**: the whole is held to the summary's caps with the instructions first:
   the model's lines go from the end before any instruction does.

Deterministic: the same text for the same request gives the same repair, so a replay
that reuses the text a receipt recorded writes the same summary without the model.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from ctxkeep.base.findings import Confidence
from ctxkeep.compactor.result import RemovedItem
from ctxkeep.compactor.summary import SummaryRequest, dropped_instructions, held_to_caps
from ctxkeep.extract import SourceIndex

__all__ = [
    "LOST_HEADING",
    "Repaired",
    "marker",
    "repair_summary",
    "sources_digest",
]

LOST_HEADING = "[ctxkeep] standing instructions the summary below had lost, verbatim:"
_ROUNDS = 3
"""Judgements of the edited text: an item spelt two ways is found again after the first
spelling is removed."""


@dataclass(frozen=True, slots=True)
class Repaired:
    """The repaired summary (None: not even its first line fits the caps) and what changed."""

    text: str | None
    appended: tuple[str, ...]
    removed: tuple[RemovedItem, ...]
    instructions_cut: int


def sources_digest(request: SummaryRequest) -> str:
    """SHA-256 of what a request asks to summarise (its sources in conversation order):
    a replay reuses a recorded summary only for the same sources."""
    digest = hashlib.sha256()
    for source in sorted(request.sources, key=lambda s: s.index):
        record = f"{source.index}\x00{source.role}\x00{source.text}\x01"
        digest.update(record.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def marker(kind: str) -> str:
    """What stands where an invented item was."""
    return f"[unverified {kind} removed]"


def _occurrences(item: str) -> re.Pattern[str]:
    """``item`` where it stands alone: not the tail of a longer path or name (``a.py`` in
    ``data.py``, ``src/a.py`` in ``lib/src/a.py``) nor the head of one."""
    before = r"(?<![\w./\\-])" if re.match(r"[\w./\\-]", item) else ""
    after = r"(?![\w/\\])" if re.search(r"[\w/\\]$", item) else ""
    return re.compile(before + re.escape(item) + after)


def _without_invented(summary: str, conversation: SourceIndex) -> tuple[str, list[RemovedItem]]:
    """``summary`` with its high-confidence invented items replaced by markers."""
    from ctxkeep.rules.summary_hallucination import invented_in  # the auditor, when used

    removed: list[RemovedItem] = []
    for _round in range(_ROUNDS):
        found = [i for i in invented_in(summary, conversation) if i.confidence is Confidence.HIGH]
        edited = summary
        for item in found:
            edited = _occurrences(item.text).sub(marker(item.kind), edited)
        if edited == summary:
            break
        removed.extend(
            RemovedItem(i.text, i.kind, i.why)
            for i in found
            if i.text not in {r.text for r in removed}
        )
        summary = edited
    return summary, removed


def repair_summary(written: str, request: SummaryRequest, conversation: SourceIndex) -> Repaired:
    """``written`` (a summariser's text for ``request``) audited against ``conversation``,
    an index of the texts of every message (what was replaced and what stays), and
    repaired, held to the request's caps (see the module docstring)."""
    from ctxkeep.extract.survival import still_carried  # the auditor, when used

    text, removed = _without_invented(written.strip(), conversation)
    asked = dropped_instructions(request.sources)
    lost = [t for t in asked if not still_carried(t, text)]
    lines = [LOST_HEADING, *(f"- {t}" for t in lost)] if lost else []
    held = held_to_caps("\n".join([*lines, text]), request.cap_bytes, request.cap_tokens)
    if held == LOST_HEADING:  # a heading over nothing is no summary
        held = None
    kept_lines = held.split("\n") if held is not None else []
    appended = tuple(t for t, line in zip(lost, kept_lines[1:], strict=False) if line == f"- {t}")
    return Repaired(held, appended, tuple(removed), len(lost) - len(appended))
