"""CK005 token-accounting."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.base.tokens import count_tokens, estimate_tokens, token_bounds
from ctxkeep.rules.base import Rule
from ctxkeep.rules.context import RuleContext
from ctxkeep.rules.sizes import estimated_size, size_bounds, size_of

__all__ = ["TokenAccounting"]

NEARLY_AS_LARGE = 0.8
"""A summary at least this fraction of what it replaced frees almost nothing."""
MIN_REPLACED_TOKENS = 1_000
"""Below this size of replaced history the ratio says nothing about thrashing."""


class TokenAccounting(Rule):
    """The summary is nearly as large as the history it replaced.

    A compaction exists to free room. When the summary holds at least 80% of the tokens
    of the events it replaced (histories of 1,000 tokens or more), the context refills at
    once and compaction runs again: compact, refill, compact — thrashing, with a loss of
    detail at every turn. (A compaction whose context did not shrink at all, tokens after
    at or above tokens before, is CK007's error; it is not reported twice.)

    Example: 12,000 tokens of history replaced by an 11,000-token summary.
    """

    id = "CK005"
    name = "token-accounting"
    level = Severity.WARN
    summary = "the summary is nearly as large as what it claims to free (thrashing)"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for view in ctx.views():
            summary = view.summary
            if summary is None or not view.shadowed:
                continue
            # The exact count is slow; skip it where even the estimate is far off.
            rough_replaced = estimated_size(view.shadowed)
            if estimate_tokens(summary) < NEARLY_AS_LARGE / 2 * rough_replaced:
                continue
            # Exact counts load the tokenizer: first ask whether the bounds decide.
            replaced_low, replaced_high = size_bounds(view.shadowed)
            if replaced_high < MIN_REPLACED_TOKENS:
                continue
            if token_bounds(summary)[1] < NEARLY_AS_LARGE * replaced_low:
                continue
            replaced = size_of(view.shadowed)
            if replaced < MIN_REPLACED_TOKENS:
                continue
            summary_tokens = count_tokens(summary)
            if summary_tokens >= NEARLY_AS_LARGE * replaced:
                c = view.compaction
                yield self.finding(
                    ctx,
                    f"the summary of compaction {c.index} is {summary_tokens:,} tokens, "
                    f"{100 * summary_tokens // replaced}% of the {replaced:,} it replaced: "
                    "it frees almost nothing",
                    compaction=c.index,
                    seqs=[c.end_seq or c.start_seq],
                    lines=[c.summary_line],
                )
