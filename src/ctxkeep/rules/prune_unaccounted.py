"""CK004 prune-unaccounted."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.log.model import Event, EventKind, Prune, Session
from ctxkeep.rules.base import Rule
from ctxkeep.rules.context import RuleContext
from ctxkeep.rules.sizes import size_bounds, size_of

__all__ = ["PruneUnaccounted"]

FAR_EXCEED_RATIO = 2.0
"""Pruned tokens above this multiple of the pruned messages' size are unaccounted for."""
MIN_UNACCOUNTED_TOKENS = 1_000
"""Below this many unexplained tokens, tokenizer differences explain the gap."""


def _pruned_events(session: Session, prune: Prune) -> list[Event]:
    if prune.pruned_seqs:
        return session.events_at(prune.pruned_seqs)
    wanted = set(prune.call_ids)
    return [e for e in session.events if e.kind is EventKind.TOOL_RESULT and e.call_id in wanted]


def _unaccounted(tokens_pruned: int, size: int) -> bool:
    """The prune's figure far exceeds ``size`` (true for every smaller size too)."""
    excess = tokens_pruned - size
    return tokens_pruned > FAR_EXCEED_RATIO * size and excess >= MIN_UNACCOUNTED_TOKENS


class PruneUnaccounted(Rule):
    """A prune freed far more tokens than the messages it cleared could hold.

    Micro-compaction (Claude Code's ``microcompact_boundary``, a ctxkeep ``prune``)
    clears old tool output without a summary and says how many tokens it saved. When
    that figure far exceeds the size of the messages it names (more than twice, and by
    at least 1,000 tokens), output vanished that the log does not account for: the
    agent lost tool results nobody can audit.

    Example: a prune that names two tool results of 300 tokens each but reports 40,000
    tokens pruned.
    """

    id = "CK004"
    name = "prune-unaccounted"
    level = Severity.WARN
    summary = "a prune freed far more tokens than the messages it names could hold"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for prune in ctx.session.prunes:
            if prune.tokens_pruned is None:
                continue
            pruned = _pruned_events(ctx.session, prune)
            at_least, _ = size_bounds(pruned)
            if not _unaccounted(prune.tokens_pruned, at_least):
                continue  # even the smallest size the messages can have explains the prune
            size = size_of(pruned)
            excess = prune.tokens_pruned - size
            if _unaccounted(prune.tokens_pruned, size):
                yield self.finding(
                    ctx,
                    f"a prune reports {prune.tokens_pruned:,} tokens cleared but the "
                    f"{len(pruned)} message{'s' if len(pruned) != 1 else ''} it names hold "
                    f"{size:,}: {excess:,} tokens of output vanished unaccounted",
                    seqs=[prune.seq],
                    lines=[prune.line],
                )
