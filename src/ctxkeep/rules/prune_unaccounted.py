"""CK004 prune-unaccounted."""

from __future__ import annotations

from collections.abc import Iterator

from ctxkeep.base.findings import Finding, Severity
from ctxkeep.log.model import Event, EventKind, Prune, Session
from ctxkeep.rules.base import SessionRule
from ctxkeep.rules.sizes import size_bounds, size_of

__all__ = ["PruneUnaccounted"]


def _pruned_events(session: Session, prune: Prune) -> list[Event]:
    if prune.pruned_seqs:
        return session.events_at(prune.pruned_seqs)
    wanted = set(prune.call_ids)
    return [e for e in session.events if e.kind is EventKind.TOOL_RESULT and e.call_id in wanted]


class PruneUnaccounted(SessionRule):
    """A prune freed far more tokens than the messages it cleared could hold.

    Micro-compaction (Claude Code's ``microcompact_boundary``, a ctxkeep ``prune``)
    clears old tool output without a summary and says how many tokens it saved. When
    that figure far exceeds the size of the messages it names (more than
    {far_exceed_ratio:g} times, and by at least {min_unaccounted_tokens:,} tokens), output
    vanished that the log does not account for: the agent lost tool results nobody can
    audit. The messages' size is the tokens the log states for each, else their o200k
    count; a prune that names no events is matched to its tool results by call id.

    Example: a prune that names two tool results of 300 tokens each but reports 40,000
    tokens pruned.
    """

    id = "CK004"
    name = "prune-unaccounted"
    level = Severity.WARN
    summary = "a prune freed far more tokens than the messages it names could hold"

    far_exceed_ratio = 2.0
    """Pruned tokens above this multiple of the pruned messages' size are unaccounted for."""
    min_unaccounted_tokens = 1_000
    """Below this many unexplained tokens, tokenizer differences explain the gap."""

    def _unaccounted(self, tokens_pruned: int, size: int) -> bool:
        """The prune's figure far exceeds ``size`` (true for every smaller size too)."""
        excess = tokens_pruned - size
        return tokens_pruned > self.far_exceed_ratio * size and (
            excess >= self.min_unaccounted_tokens
        )

    def check_session(self, session: Session) -> Iterator[Finding]:
        for prune in session.prunes:
            if prune.tokens_pruned is None:
                continue
            pruned = _pruned_events(session, prune)
            at_least, _ = size_bounds(pruned)
            if not self._unaccounted(prune.tokens_pruned, at_least):
                continue  # even the smallest size the messages can have explains the prune
            size = size_of(pruned)
            excess = prune.tokens_pruned - size
            if self._unaccounted(prune.tokens_pruned, size):
                yield self.finding(
                    session,
                    f"a prune reports {prune.tokens_pruned:,} tokens cleared but the "
                    f"{len(pruned)} message{'s' if len(pruned) != 1 else ''} it names hold "
                    f"{size:,}: {excess:,} tokens of output vanished unaccounted",
                    seqs=[prune.seq],
                    lines=[prune.line],
                )
