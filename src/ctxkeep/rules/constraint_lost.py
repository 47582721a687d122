"""CK003 constraint-lost."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.findings import Finding, Severity
from ctxkeep.rules.base import Rule
from ctxkeep.rules.context import RuleContext

__all__ = ["ConstraintLost"]


class ConstraintLost(Rule):
    """A standing instruction from the user, in the history the summary replaced, is gone.

    Constraints are found by their form: imperative negation (do not / don't / never /
    不要 / 别 / 禁止 / 不得 / 切勿), standing requirement (must / always / make sure / 必须
    / 务必 / 一定要 / 始终), scope restriction (only / just / 只 / 仅 / 只能). Only the
    user's own messages among the events this summary replaced count: injected context
    (system reminders, AGENTS.md, earlier summaries) is re-injected every turn and is not
    a loss, and text before the previous compaction was that summary's to keep. A
    constraint survives when the summary carries it, reworded or not, as long as its
    entity words (the file, the API, the command) co-occur in the summary.

    Level: error when fewer than half of the compaction's constraints survive, else warn.
    After compaction the agent keeps working confidently without the instruction.

    Example: the user said "do not change the public API of the parser"; the summary
    says "we refactored the parser" and nothing about its API.
    """

    id = "CK003"
    name = "constraint-lost"
    level = Severity.ERROR
    level_note = "error if fewer than half survive, else warn"
    summary = "a user's standing instruction in the replaced history is not in the summary"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for view in ctx.views():
            judged = view.constraints
            lost = [j for j in judged if not j.kept]
            if not lost:
                continue
            total = len(judged)
            kept = total - len(lost)
            level = Severity.ERROR if kept * 2 < total else Severity.WARN
            index = view.compaction.index
            yield self.finding(
                ctx,
                f"{len(lost)} of {total} session constraints did not survive compaction "
                f"{index} ({100 * kept // total}% kept)",
                level=level,
                compaction=index,
                events=[j.event for j in lost],
                items=dict.fromkeys(j.constraint.text for j in lost),
            )
