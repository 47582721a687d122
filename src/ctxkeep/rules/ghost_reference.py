"""CK006 ghost-reference."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.extract import find_references
from ctxkeep.findings import Finding, Severity
from ctxkeep.rules.base import Rule
from ctxkeep.rules.context import RuleContext

__all__ = ["GhostReference"]


class GhostReference(Rule):
    """The summary points back at text that is no longer in context.

    After a compaction the summary opens the context: everything "above" it is what it
    replaced. A summary that says "as mentioned above", "as discussed earlier", "see
    above", "如上所述", "前面提到" or "上文" sends the agent to look for something that is
    gone; it either guesses or re-asks. Each such phrase in a summary is reported.

    Example: "Use the retry settings as discussed earlier" in a summary that never
    states the retry settings.
    """

    id = "CK006"
    name = "ghost-reference"
    level = Severity.WARN
    summary = "the summary says 'as mentioned above' but what it refers to was replaced"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for view in ctx.views():
            summary = view.summary
            if summary is None:
                continue
            references = dict.fromkeys(r.text for r in find_references(summary))
            if not references:
                continue
            c = view.compaction
            n = len(references)
            yield self.finding(
                ctx,
                f"the summary of compaction {c.index} refers {n} time{'s' if n != 1 else ''} "
                "to earlier text that it replaced",
                compaction=c.index,
                seqs=[c.end_seq or c.start_seq],
                lines=[c.summary_line],
                items=references,
            )
