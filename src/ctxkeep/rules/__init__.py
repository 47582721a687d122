"""The audit rules, one module each, listed here in order (nothing is discovered).

Each rule is a :class:`~ctxkeep.rules.base.Rule` with an id, a kebab-case name, a level,
a one-line summary, its thresholds as class attributes and a docstring that is its
documentation page (docs/rules.md is generated from them: ``python -m ctxkeep.rules.docs``).
A rule declares its unit (a :class:`~ctxkeep.rules.base.SessionRule` or a
:class:`~ctxkeep.rules.base.CompactionRule`); the engine walks a session and calls each
rule on its unit.
"""

from __future__ import annotations

from ctxkeep.rules.base import CompactionRule, Rule, SessionRule
from ctxkeep.rules.compaction_failed import CompactionFailed
from ctxkeep.rules.compaction_noop import CompactionNoop
from ctxkeep.rules.constraint_lost import ConstraintLost
from ctxkeep.rules.context import RuleContext
from ctxkeep.rules.ghost_reference import GhostReference
from ctxkeep.rules.log_invariant_broken import LogInvariantBroken
from ctxkeep.rules.no_history import NoHistory
from ctxkeep.rules.no_summary import NoSummary
from ctxkeep.rules.prune_only_session import PruneOnlySession
from ctxkeep.rules.prune_unaccounted import PruneUnaccounted
from ctxkeep.rules.summary_hallucination import SummaryHallucination
from ctxkeep.rules.token_accounting import TokenAccounting

__all__ = [
    "RULES",
    "CompactionRule",
    "Rule",
    "RuleContext",
    "SessionRule",
    "UnknownRuleError",
    "select_rules",
]

RULES: tuple[Rule, ...] = (
    LogInvariantBroken(),
    SummaryHallucination(),
    ConstraintLost(),
    PruneUnaccounted(),
    TokenAccounting(),
    GhostReference(),
    CompactionNoop(),
    CompactionFailed(),
    NoSummary(),
    NoHistory(),
    PruneOnlySession(),
)


class UnknownRuleError(ValueError):
    """A rule id or name given to select or ignore that no rule has."""


def _resolve(given: str) -> set[str]:
    if given.upper() == "ALL":
        return {r.id for r in RULES}
    hits = {r.id for r in RULES if given.upper() == r.id or given.lower() == r.name}
    if not hits:
        # A prefix of ids ("CK00") selects a group, as in ruff.
        hits = {
            r.id for r in RULES if given.upper().startswith("CK") and r.id.startswith(given.upper())
        }
    if not hits:
        known = ", ".join(f"{r.id} ({r.name})" for r in RULES)
        raise UnknownRuleError(f"unknown rule {given!r}; known: {known}")
    return hits


def select_rules(
    select: tuple[str, ...] | list[str] | None = None,
    ignore: tuple[str, ...] | list[str] | None = None,
) -> tuple[Rule, ...]:
    """The rules to run, in registry order: ``select`` (ids, names, id prefixes or ALL;
    default all) minus ``ignore``. An unknown id or name raises :class:`UnknownRuleError`."""
    chosen = {r.id for r in RULES} if not select else set().union(*map(_resolve, select))
    dropped = set().union(*map(_resolve, ignore)) if ignore else set()
    return tuple(r for r in RULES if r.id in chosen - dropped)
