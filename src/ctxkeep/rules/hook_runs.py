"""Which hook runs could have put text before the model that the log does not hold.

Claude Code records only a trace of each hook it runs (``hook_progress``: the event, its
matcher and the command), never what the hook printed. A summary item found in no source
may come from such output, so CK002 lowers the confidence of its items while a hook that
could have reached the model ran in the compaction's window
(:attr:`~ctxkeep.rules.context.CompactionView.unrecorded_hooks`). Not every run could:
each filter below is a named predicate with the real case that needed it
(docs/judgement-items.md, "Hooks").
"""

from __future__ import annotations

from bisect import bisect_right

from ctxkeep.log.ledger import is_ctxkeep_command
from ctxkeep.log.model import EventKind, HookRun, Session

__all__ = [
    "could_reach_the_model",
    "is_ctxkeep_hook",
    "is_internal_callback",
    "is_stop_hook_the_user_answered",
]


def is_internal_callback(run: HookRun) -> bool:
    """A hook Claude Code registers for itself (``command: "callback"``), not a program.

    Real logs (benchmarks/real-logs: claude-code-91_b42542f24f_0, -9b_04c3d92e38_2,
    -ad_ff0201aecb_0, -ed_51f6581660_0) record 268 ``PostToolUse:Read/Edit/Grep/Glob``
    runs whose command is ``callback``, where a hook of the user's settings or a plugin
    names its shell command: the harness's own bookkeeping around its tools.
    """
    return run.command == "callback"


def is_stop_hook_the_user_answered(run: HookRun, session: Session) -> bool:
    """A ``Stop`` hook after which the user spoke next: its output never reached the model.

    A ``Stop`` hook runs when the agent has finished its turn; what it prints goes to the
    transcript view, and reaches the model only when the hook blocks the stop, which
    makes the model go on at once. Every one of the 19 ``Stop`` runs in the real logs
    (e.g. claude-code-ed_51f6581660_0 line 219, ``entire hooks claude-code stop``) is
    followed by a ``stop_hook_summary`` with ``preventedContinuation: false`` and then by
    the user's next message. When the model spoke first, the hook may have blocked and
    fed it a reason: that run counts.
    """
    if run.event != "Stop":
        return False
    events = session.events
    at = bisect_right(events, run.seq, key=lambda e: e.seq)
    for event in events[at:]:
        if event.kind is EventKind.MESSAGE:
            return event.role == "user"
    return True  # the log ends: nothing came of it


def is_ctxkeep_hook(run: HookRun) -> bool:
    """ctxkeep's own ``session-start`` / ``pre-compact`` hook (settings or plugin).

    Installed, it runs at every compaction of every session (``SessionStart:compact``),
    and the log records its trace like any other hook's. What it printed is in the
    restore ledger: read with the audit, the trace hides nothing (docs/hooks.md).
    """
    return is_ctxkeep_command(run.command)


def could_reach_the_model(run: HookRun, session: Session, *, ledger_read: bool) -> bool:
    """Whether ``run``'s output could have been before the model with no record of it.

    Not Claude Code's internal callbacks, not a ``Stop`` hook the user answered, and not
    ctxkeep's own hooks when the restore ledger read holds this session's records
    (``ledger_read``: what they printed is there; they never print without leaving a
    record first). Every other hook counts:
    ``SessionStart`` output (``additionalContext`` or stdout) is added to the context,
    ``UserPromptSubmit`` output too, and ``PreToolUse`` / ``PostToolUse`` hooks with a
    command can feed the model a reason or ``additionalContext`` that this log format
    does not record.
    """
    if is_internal_callback(run) or is_stop_hook_the_user_answered(run, session):
        return False
    return not (ledger_read and is_ctxkeep_hook(run))
