"""CK005 token-accounting."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.base.tokens import count_tokens, estimate_tokens, token_bounds
from ctxkeep.rules.base import CompactionRule
from ctxkeep.rules.context import CompactionView
from ctxkeep.rules.sizes import estimated_size, size_bounds, size_of

__all__ = ["TokenAccounting"]


class TokenAccounting(CompactionRule):
    """The summary is nearly as large as the history it replaced.

    A compaction exists to free room. When the summary holds at least
    {nearly_as_large:.0%} of the tokens of the events it replaced (histories of
    {min_replaced_tokens:,} tokens or more), the context refills at once and compaction
    runs again: compact, refill, compact — thrashing, with a loss of detail at every turn.
    (A compaction whose context did not shrink at all, tokens after at or above tokens
    before, is CK007's error; it is not reported twice.)

    Example: 12,000 tokens of history replaced by an 11,000-token summary.
    """

    id = "CK005"
    name = "token-accounting"
    level = Severity.WARN
    summary = "the summary is nearly as large as what it claims to free (thrashing)"

    nearly_as_large = 0.8
    """A summary holding at least this share of the tokens it replaced frees almost
    nothing."""
    min_replaced_tokens = 1_000
    """Below this size of replaced history, in tokens, the share says nothing about
    thrashing."""

    def check_compaction(self, view: CompactionView) -> Iterator[Finding]:
        summary = view.summary
        if summary is None or not view.shadowed:
            return
        # The exact count is slow; skip it where even the estimate is far off.
        rough_replaced = estimated_size(view.shadowed)
        if estimate_tokens(summary) < self.nearly_as_large / 2 * rough_replaced:
            return
        # Exact counts load the tokenizer: first ask whether the bounds decide.
        replaced_low, replaced_high = size_bounds(view.shadowed)
        if replaced_high < self.min_replaced_tokens:
            return
        if token_bounds(summary)[1] < self.nearly_as_large * replaced_low:
            return
        replaced = size_of(view.shadowed)
        if replaced < self.min_replaced_tokens:
            return
        summary_tokens = count_tokens(summary)
        if summary_tokens >= self.nearly_as_large * replaced:
            c = view.compaction
            yield self.finding(
                view.session,
                f"the summary of compaction {c.index} is {summary_tokens:,} tokens, "
                f"{100 * summary_tokens // replaced}% of the {replaced:,} it replaced: "
                "it frees almost nothing",
                compaction=c.index,
                seqs=[c.end_seq or c.start_seq],
                lines=[c.summary_line],
            )
