"""CK003 constraint-lost."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.rules.base import CompactionRule
from ctxkeep.rules.context import CompactionView

__all__ = ["ConstraintLost"]


class ConstraintLost(CompactionRule):
    """A standing instruction of the user is no longer carried by the summary.

    Real users rarely write "must" or "never". A standing instruction is found in the
    forms they use, English or Chinese, each with its kind: a prohibition ("don't touch
    the parser", "let's avoid mocks", "不要修改公共接口"), an obligation ("always run the
    tests first", "keep the field order", "每次改完都要跑测试"), a preference or style
    ("please use uv", "keep it short", "尽量用标准库"), a scope limit ("only touch
    src/cache/", "just the parser for now", "先只改 README"), a chosen option ("option 2 is
    fine, and add a log line", "方案二") or a correction ("you said X, but Y", "no, remove
    this again", "我说过不要改接口"). One-shot requests ("yes please commit", "run the
    tests again"), questions, reports ("I just looked") and text the user pasted are not
    standing instructions.

    User text is read where it really is: typed and queued messages, the feedback typed
    while rejecting a tool call (it arrives inside the tool result), and the arguments of
    ``/compact`` (judged against that summary only). Injected context (system reminders,
    AGENTS.md, earlier summaries) is re-injected every turn and never counts.

    Instructions are followed across compactions: the ones a summary carried are judged
    again at the next compaction, beside those of the text it replaced, so an
    instruction kept by the first summary and dropped by the second is lost at the
    second. The finding says how many of the judged instructions were inherited.

    With ctxkeep's hooks installed, what they put in context is read from the restore
    ledger (docs/hooks.md): an instruction ctxkeep restored after compaction N, or asked
    the summariser of compaction N+1 to keep, is in force at compaction N+1 and judged
    there like any other (lost again if that summary drops it); the finding marks such
    items "restored by ctxkeep".

    An instruction survives when the summary keeps it verbatim or reworded: one of its
    sentences names the instruction's key entities (paths, names, numbers, quoted words)
    and content words (stemmed; Chinese segmented), with the same polarity (a kept "do
    not" must stay a negation). ``ctxkeep diff`` shows which were reworded, and how.

    Level: error when fewer than {error_below:.0%} of the judged instructions survive, else
    warn.
    After compaction the agent keeps working confidently without the instruction.

    Example: the user said "Only cache per user id, not per session"; the first summary
    says "Caching is keyed on the user id alone, never the session" (reworded, kept); the
    second summary mentions the cache but not the key: lost at compaction 2.
    """

    id = "CK003"
    name = "constraint-lost"
    level = Severity.ERROR
    level_note = "error if fewer than {error_below:.0%} survive, else warn"
    summary = "a user's standing instruction is no longer carried by the summary"

    error_below = 0.5
    """The share of a compaction's judged instructions below which its finding is an
    error rather than a warning."""

    def check_compaction(self, view: CompactionView) -> Iterator[Finding]:
        judged = view.constraints
        lost = [j for j in judged if not j.kept]
        if not lost:
            return
        total = len(judged)
        kept = total - len(lost)
        inherited = sum(1 for j in judged if j.inherited)
        level = Severity.ERROR if kept < self.error_below * total else Severity.WARN
        index = view.compaction.index
        note = f"; {inherited} inherited from earlier summaries" if inherited else ""
        restored = list(dict.fromkeys(j.constraint.text for j in lost if j.by_ctxkeep))
        if restored:
            note += f"; {len(restored)} of the lost restored by ctxkeep"
        yield self.finding(
            view.session,
            f"{len(lost)} of {total} standing instructions did not survive compaction "
            f"{index} ({100 * kept // total}% kept{note})",
            level=level,
            compaction=index,
            events=[j.event for j in lost if j.event is not None],
            lines=[j.source.line for j in lost if j.event is None],
            items=dict.fromkeys(j.constraint.text for j in lost),
            restored=restored,
        )
