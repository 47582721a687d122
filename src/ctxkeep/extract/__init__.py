"""Pure text extractors (English and Chinese) for the auditor and the guard.

- :func:`extract_constraints` / :func:`constraint_survives`: standing instructions in user
  text, and whether a summary still carries them (kept, reworded, lost);
- :func:`extract_identifiers` / :class:`SourceIndex`: hard identifiers in a summary, and
  whether each appears in the texts the summary was written from;
- :func:`canonical` / :func:`same_item` / :func:`mentions` / :func:`spellings`: one
  identity for an item across spellings (:mod:`ctxkeep.extract.identity`);
- :func:`extract_claims` / :func:`ground_claim`: counts, line numbers, comparisons,
  percentages, durations, quotes and tool names a summary states, and their support;
- :func:`find_references` / :func:`unresolved_references`: back-references ("as
  mentioned above", "如上所述"), and those the summary does not itself resolve.

Every false-positive filter is a named predicate in :mod:`ctxkeep.extract.filters`.
"""

from ctxkeep.extract.claims import Claim, Grounding, Support, extract_claims, ground_claim
from ctxkeep.extract.constraints import (
    Constraint,
    ConstraintKind,
    Survival,
    constraint_survives,
    extract_constraints,
)
from ctxkeep.extract.identifiers import (
    Identifier,
    IdentifierCandidate,
    SourceIndex,
    extract_identifiers,
    identifier_candidates,
)
from ctxkeep.extract.identity import canonical, mentions, same_item, spellings
from ctxkeep.extract.references import (
    Reference,
    find_references,
    resolved_in_summary,
    unresolved_references,
)

__all__ = [
    "Claim",
    "Constraint",
    "ConstraintKind",
    "Grounding",
    "Identifier",
    "IdentifierCandidate",
    "Reference",
    "SourceIndex",
    "Support",
    "Survival",
    "canonical",
    "constraint_survives",
    "extract_claims",
    "extract_constraints",
    "extract_identifiers",
    "find_references",
    "ground_claim",
    "identifier_candidates",
    "mentions",
    "resolved_in_summary",
    "same_item",
    "spellings",
    "unresolved_references",
]
