"""Pure text extractors (English and Chinese) for the auditor and the guard.

- :func:`extract_constraints` / :func:`constraint_survives` / :func:`judge_survival`:
  standing instructions in user text (with their kind), and whether a summary still
  carries them (kept, reworded, lost); :func:`rejection_feedback`: what the user typed
  while rejecting a tool call;
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
    extract_constraints,
    extract_instructions,
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
from ctxkeep.extract.survival import Survival, Verdict, constraint_survives, judge_survival
from ctxkeep.extract.user_text import rejection_feedback

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
    "Verdict",
    "canonical",
    "constraint_survives",
    "extract_claims",
    "extract_constraints",
    "extract_identifiers",
    "extract_instructions",
    "find_references",
    "ground_claim",
    "identifier_candidates",
    "judge_survival",
    "mentions",
    "rejection_feedback",
    "resolved_in_summary",
    "same_item",
    "spellings",
    "unresolved_references",
]
