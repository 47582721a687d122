"""What the hooks do: restore what a compaction lost, and ask the summariser to keep it.

``session_start`` runs when the harness has just built the window that follows a
compaction (``SessionStart`` with ``source: "compact"``). It audits the newest compaction
of the transcript and returns the ``additionalContext`` that puts back, verbatim, the
user's standing instructions the summary lost (with the transcript line of each), and a
caution naming the summary's high-confidence unsupported items. Nothing lost: nothing
printed. Instructions ctxkeep restored after an earlier compaction live only in the
harness's context (hook output is not in the transcript), so they are checked against
the new summary too, from the ledger.

``pre_compact`` runs before a compaction and returns a short directive listing the
session's standing instructions, to be preserved verbatim.

Both record what they did in the ledger (:mod:`ctxkeep.log.ledger`) and never write to
the transcript.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ctxkeep.extract.survival import still_carried
from ctxkeep.hooks.judgement import (
    CompactionVerdict,
    Instruction,
    UnsupportedItem,
    judge_compaction,
    newest_compaction,
    standing_instructions,
    unique,
)
from ctxkeep.hooks.protocol import (
    HookInput,
    fit_lines,
    log_hook_error,
    session_start_output,
)
from ctxkeep.log.ledger import (
    LedgerItem,
    LedgerRecord,
    SessionLedger,
    append_record,
    instruction_line,
    ledger_lock,
    read_ledger,
)
from ctxkeep.log.model import Compaction, Session
from ctxkeep.log.reader import read_session

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_WAIT_SECONDS",
    "Clock",
    "pre_compact",
    "restore_text",
    "session_start",
]

DEFAULT_MAX_BYTES = 2000
DEFAULT_WAIT_SECONDS = 2.0
_POLL_SECONDS = 0.1
_CAUTION_ITEMS = 8


@dataclass(frozen=True, slots=True)
class Clock:
    """Time as the hooks see it (tests pass a fake one): ``now`` for the ledger's
    timestamps, ``monotonic`` and ``sleep`` for the wait."""

    now: Callable[[], str] = lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    monotonic: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep


def _session_key(hook: HookInput) -> str:
    return hook.session_id or str(hook.transcript_path or "")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def _pending(session: Session, newest: Compaction | None, handled: set[int], expect: int) -> bool:
    """True while the compaction the hook was called for is not (all) in the file yet."""
    if newest is None or newest.index in handled or newest.index < expect:
        return True
    # Claude Code writes the boundary, then the summary record: between the two the
    # newest compaction has no summary yet. (Codex writes both in one record.)
    return session.format == "claude-code" and newest.summary is None and not newest.opaque


def _read_new_compaction(
    path: Path, handled: set[int], expect: int, wait: float, clock: Clock
) -> tuple[Session, Compaction] | None:
    """The transcript and its newest compaction, re-read while it is still pending.

    Gives up after ``wait`` seconds; then an unhandled newest compaction is still used
    (the expectation may be wrong, say after a resume), a handled one is not.
    """
    deadline = clock.monotonic() + wait
    session = read_session(path)
    size = _size(path)
    newest = newest_compaction(session)
    while _pending(session, newest, handled, expect) and clock.monotonic() < deadline:
        clock.sleep(_POLL_SECONDS)
        if _size(path) != size:
            session = read_session(path)
            size = _size(path)
            newest = newest_compaction(session)
    if newest is None or newest.index in handled:
        return None
    return session, newest


def _lost_again(records: list[LedgerRecord], verdict: CompactionVerdict) -> list[Instruction]:
    """Instructions ctxkeep restored earlier that the new summary does not carry."""
    summary = verdict.summary or ""
    restored = [
        Instruction(item.text, item.kind, item.line)
        for record in records
        if record.event == "session-start"
        for item in record.items
    ]
    return [i for i in unique(restored) if not still_carried(i.text, summary)]


def _instruction_line(instruction: Instruction) -> str:
    return instruction_line(instruction.text, instruction.line)


def _caution_text(items: list[UnsupportedItem]) -> str:
    named = ", ".join(f"`{i.text}` ({i.kind})" for i in items[:_CAUTION_ITEMS])
    if len(items) > _CAUTION_ITEMS:
        named += f" and {len(items) - _CAUTION_ITEMS} more"
    n = len(items)
    return (
        f"Caution: the summary names {n} item{'s' if n != 1 else ''} found nowhere in the "
        f"conversation it replaced; check before relying on {'them' if n != 1 else 'it'}: "
        f"{named}."
    )


def restore_text(
    lost: list[Instruction],
    cautions: list[UnsupportedItem],
    *,
    transcript: str,
    compaction: int,
    max_bytes: int,
) -> tuple[str, int, bool] | None:
    """The ``additionalContext`` for a compaction, bounded so its JSON fits ``max_bytes``.

    Returns the text, how many of ``lost`` it holds and whether it holds the caution
    (dropped first when space is short), or None when nothing fits or nothing is to say.
    """
    diff_hint = f"ctxkeep diff {transcript} {compaction}"
    caution = [_caution_text(cautions)] if cautions else []
    if not lost:
        if caution and len(session_start_output(caution[0]).encode()) <= max_bytes:
            return caution[0], 0, True
        return None
    what = "1 standing instruction" if len(lost) == 1 else f"{len(lost)} standing instructions"
    them = "it" if len(lost) == 1 else "them"
    head = (
        f"ctxkeep: the compaction that just happened lost {what} the user gave earlier in "
        f"this session; the summary above does not carry {them}, and the user still wants "
        f"{them} followed. Verbatim, with where the user said {them}:"
    )
    more = "- ... and {n} more: run `" + diff_hint + "` to see them all."
    lines = [_instruction_line(i) for i in lost]
    if caution:
        whole = "\n".join([head, *lines, *caution])
        if len(session_start_output(whole).encode()) <= max_bytes:
            return whole, len(lost), True
    # The full `ctxkeep diff` command helps, but not at the cost of an instruction.
    best: tuple[str, int] | None = None
    for tail in (more, "- ... and {n} more (`ctxkeep diff` lists them all)."):
        fitted = fit_lines(head, lines, tail, session_start_output, max_bytes)
        if fitted is not None and (best is None or fitted[1] > best[1]):
            best = fitted
    return None if best is None else (best[0], best[1], False)


def session_start(
    hook: HookInput,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    wait: float = DEFAULT_WAIT_SECONDS,
    clock: Clock | None = None,
    ledger: Path | None = None,
) -> str | None:
    """The hook's stdout after a compaction (None: print nothing). See the module doc."""
    if hook.source != "compact" or not hook.transcript_path:
        return None
    with ledger_lock(ledger):
        return _session_start(hook, hook.transcript_path, max_bytes, wait, clock or Clock(), ledger)


def _session_start(
    hook: HookInput, transcript: str, max_bytes: int, wait: float, clock: Clock, ledger: Path | None
) -> str | None:
    """:func:`session_start` under the ledger's lock."""
    key = _session_key(hook)
    records, _problems = read_ledger(ledger, session_id=key)
    handled = {r.compaction for r in records if r.event == "session-start"}
    expect = max((r.compaction for r in records if r.event == "pre-compact"), default=0)
    found = _read_new_compaction(Path(transcript), handled, expect, wait, clock)
    if found is None:
        log_hook_error(
            "session-start",
            f"note: no compaction to audit in {transcript} after waiting {wait:g} s "
            "(none in the file, or the newest was already handled); nothing printed",
        )
        return None
    session, compaction = found
    verdict = judge_compaction(session, compaction, SessionLedger(tuple(records)))
    record = LedgerRecord(
        event="session-start",
        session_id=key,
        transcript=transcript,
        compaction=compaction.index,
        status="not-auditable",
        time=clock.now(),
        extra={"format": session.format},
    )
    if not verdict.auditable:
        append_record(record, ledger)
        return None
    lost = list(unique([*verdict.lost, *_lost_again(records, verdict)]))
    cautions = [u for u in verdict.unsupported if u.high]
    fitted = restore_text(
        lost,
        cautions,
        transcript=transcript,
        compaction=compaction.index,
        max_bytes=max_bytes,
    )
    items: tuple[LedgerItem, ...] = ()
    named: tuple[LedgerItem, ...] = ()
    status = "nothing-lost"
    if fitted is not None:
        _text, held, with_caution = fitted
        items = tuple(LedgerItem(i.text, i.kind, i.line) for i in lost[:held])
        if with_caution:
            named = tuple(LedgerItem(c.text, c.kind, 0, c.confidence) for c in cautions)
        status = "restored" if items else "cautioned"
    append_record(replace(record, status=status, items=items, cautions=named), ledger)
    return None if fitted is None else session_start_output(fitted[0])


def _said_at(instruction: Instruction) -> int:
    return instruction.line


def _directive(instructions: list[Instruction], max_bytes: int) -> tuple[str, int] | None:
    """The pre-compact directive holding the newest instructions that fit, oldest first."""
    head = (
        "ctxkeep: when you summarise this conversation, keep these standing instructions "
        "of the user verbatim in the summary; they still apply after the compaction:"
    )
    newest_first = [_instruction_line(i) for i in reversed(instructions)]
    fitted = fit_lines(head, newest_first, "- (and {n} older ones)", lambda t: t, max_bytes)
    if fitted is None:
        return None
    text, held = fitted
    lines = text.split("\n")
    body = lines[1 : held + 1]
    tail = lines[held + 1 :]
    return "\n".join([head, *reversed(body), *tail]), held


def pre_compact(
    hook: HookInput,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    clock: Clock | None = None,
    ledger: Path | None = None,
) -> str | None:
    """The directive to print before a compaction (None: print nothing)."""
    if not hook.transcript_path:
        return None
    clock = clock or Clock()
    key = _session_key(hook)
    session = read_session(hook.transcript_path)
    records, _problems = read_ledger(ledger, session_id=key)
    restored = [
        Instruction(item.text, item.kind, item.line)
        for r in records
        if r.event == "session-start"
        for item in r.items
    ]
    # oldest first, in the order the user said them (restored ones keep their lines)
    instructions = sorted(unique([*standing_instructions(session), *restored]), key=_said_at)
    fitted = _directive(instructions, max_bytes) if instructions else None
    if fitted is None:
        return None
    text, held = fitted
    kept = instructions[len(instructions) - held :]
    record = LedgerRecord(
        event="pre-compact",
        session_id=key,
        transcript=hook.transcript_path,
        compaction=len(session.compactions) + 1,
        status="asked",
        items=tuple(LedgerItem(i.text, i.kind, i.line) for i in kept),
        time=clock.now(),
        extra={"format": session.format, "trigger": hook.trigger or ""},
    )
    append_record(record, ledger)
    return text
