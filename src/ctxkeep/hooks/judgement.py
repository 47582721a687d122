"""The one place the hooks ask the auditor what a compaction did.

The hooks need three answers, and only these: what the newest compaction of a session
lost (the user's standing instructions its summary does not carry) and invented (items
of the summary found in no source, each with a confidence); whether a given summary
still carries an instruction ctxkeep restored earlier; and which standing instructions
are in the session's context right now (for the pre-compact directive). Everything
else in :mod:`ctxkeep.hooks` works on the plain values returned here, so a change to the
auditor's judgement changes this module alone.

Only what these answers need is imported: the session reader, the per-compaction view
the rules share, the constraint extractor and CK002's identifier check. No tokenizer,
no compactor, and no other rule runs on the hook's path (docs/hooks.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ctxkeep.extract import extract_constraints
from ctxkeep.extract.survival import normal_form
from ctxkeep.log.ledger import SessionLedger
from ctxkeep.log.model import Compaction, CompactionStatus, Session
from ctxkeep.rules.context import CompactionView, RuleContext, is_user_instruction
from ctxkeep.rules.summary_hallucination import invented_items

__all__ = [
    "CompactionVerdict",
    "Instruction",
    "UnsupportedItem",
    "judge_compaction",
    "newest_compaction",
    "standing_instructions",
    "unique",
]


@dataclass(frozen=True, slots=True)
class Instruction:
    """A standing instruction of the user, verbatim, and the transcript line it is on."""

    text: str
    kind: str
    line: int


@dataclass(frozen=True, slots=True)
class UnsupportedItem:
    """An item of a summary that no source holds; ``why`` explains a low confidence."""

    text: str
    kind: str
    confidence: str
    why: str = ""

    @property
    def high(self) -> bool:
        return self.confidence == "high"


@dataclass(frozen=True, slots=True)
class CompactionVerdict:
    """What one compaction lost and invented; ``auditable`` False says why not in ``reason``."""

    index: int
    auditable: bool
    reason: str = ""
    lost: tuple[Instruction, ...] = ()
    unsupported: tuple[UnsupportedItem, ...] = ()
    summary: str | None = None


def newest_compaction(session: Session) -> Compaction | None:
    """The session's last compaction in log order, whatever became of it."""
    return session.compactions[-1] if session.compactions else None


def _unsupported(view: CompactionView) -> tuple[UnsupportedItem, ...]:
    """CK002's items with their own confidence and why (docs/judgement-items.md)."""
    return tuple(
        UnsupportedItem(i.text, i.kind, i.confidence.value, i.why) for i in invented_items(view)
    )


def judge_compaction(
    session: Session, compaction: Compaction, ledger: SessionLedger | None = None
) -> CompactionVerdict:
    """What ``compaction`` (one of ``session``'s) lost and invented, as the auditor judges
    with ``ledger``, the session's records in the restore ledger: what the hooks put in
    context before it is a source, and their own trace in the transcript hides nothing."""
    index = compaction.index
    if compaction.status is not CompactionStatus.SUMMARISED:
        return CompactionVerdict(index, False, f"the compaction is {compaction.status.value}")
    view = RuleContext(session, ledger).view(compaction)
    summary = view.summary
    if summary is None:
        why = "its summary is opaque (encrypted)" if compaction.opaque else "it has no summary"
        return CompactionVerdict(index, False, why)
    if not view.has_history:
        return CompactionVerdict(index, False, "the history it replaced is not in the log")
    lost = tuple(
        Instruction(j.constraint.text, j.constraint.kind, j.line)
        for j in view.constraints
        if not j.kept
    )
    return CompactionVerdict(index, True, "", lost, _unsupported(view), summary)


def standing_instructions(session: Session) -> tuple[Instruction, ...]:
    """The user's standing instructions in the session's current context, oldest first.

    Those the newest summary carried (judged kept), then those said since it (the text
    the next compaction will replace); every user instruction when nothing was compacted
    yet. Text only a hook put in context (ctxkeep's restores) is not in the transcript:
    the caller adds it from the ledger.
    """
    newest = newest_compaction(session)
    after = 0
    found: list[Instruction] = []
    if newest is not None:
        after = newest.end_seq or newest.start_seq
        view = RuleContext(session).view(newest)
        found.extend(
            Instruction(j.constraint.text, j.constraint.kind, j.line)
            for j in view.constraints
            if j.kept
        )
    for event in session.events:
        if event.seq > after and is_user_instruction(event):
            found.extend(
                Instruction(c.text, c.kind, event.line) for c in extract_constraints(event.text)
            )
    return unique(found)


def unique(instructions: Iterable[Instruction]) -> tuple[Instruction, ...]:
    """Each instruction once (by :func:`normal_form`), at its first appearance."""
    seen: set[str] = set()
    out: list[Instruction] = []
    for instruction in instructions:
        key = normal_form(instruction.text)
        if key not in seen:
            seen.add(key)
            out.append(instruction)
    return tuple(out)
