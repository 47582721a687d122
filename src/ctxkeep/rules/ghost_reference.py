"""CK006 ghost-reference."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.extract import unresolved_references
from ctxkeep.extract.references import RESOLVED_SHARE
from ctxkeep.rules.base import CompactionRule
from ctxkeep.rules.context import CompactionView

__all__ = ["GhostReference"]


class GhostReference(CompactionRule):
    """The summary points back at text that is no longer in context.

    After a compaction the summary opens the context: everything "above" it is what it
    replaced. A summary that says "as mentioned above", "as discussed earlier", "see
    above", "如上所述", "前面提到" or "上文" sends the agent to look for something that is
    gone; it either guesses or re-asks.

    Only a phrase that the summary leaves unresolved is reported. When the phrase
    qualifies a noun ("the error detailed above", "the files listed before",
    "前面提到的接口"), that noun or an item of its kind (a path for "files", a quoted error
    for "error") must stand earlier in the summary for the phrase to be resolved;
    otherwise at least {resolved_share:.0%} of the words of its sentence must (see
    :func:`~ctxkeep.extract.references.resolved_in_summary`). Not references at all
    (named filters): a phrase inside a quotation of someone's message
    (:func:`~ctxkeep.extract.filters.is_quoted_speech`: Claude Code's "All user messages"
    section quotes "as you've detailed above") and "before" with an object ("must be
    listed before `Content`", :func:`~ctxkeep.extract.filters.is_position_not_reference`).

    Example: "Use the retry settings as discussed earlier" in a summary that never
    states the retry settings.
    """

    id = "CK006"
    name = "ghost-reference"
    level = Severity.WARN
    summary = "the summary says 'as mentioned above' and does not itself state what it means"

    resolved_share = RESOLVED_SHARE
    """The share of a reference's sentence's words the summary must state earlier for the
    reference to be resolved (the extractor, ``ctxkeep.extract.references``, applies it)."""

    def check_compaction(self, view: CompactionView) -> Iterator[Finding]:
        summary = view.summary
        if summary is None:
            return
        references = dict.fromkeys(r.text for r in unresolved_references(summary))
        if not references:
            return
        c = view.compaction
        n = len(references)
        yield self.finding(
            view.session,
            f"the summary of compaction {c.index} refers {n} time{'s' if n != 1 else ''} "
            "to earlier text that it replaced",
            compaction=c.index,
            seqs=[c.end_seq or c.start_seq],
            lines=[c.summary_line],
            items=references,
        )
