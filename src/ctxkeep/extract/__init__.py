"""Pure text extractors (English and Chinese) for the auditor and the guard.

- :func:`extract_constraints` / :func:`constraint_survives` / :func:`judge_survival`:
  standing instructions in user text (with their kind), and whether a summary still
  carries them (kept, reworded, lost); :func:`rejection_feedback`: what the user typed
  while rejecting a tool call;
- :func:`extract_identifiers` / :class:`SourceIndex`: hard identifiers in a summary, and
  whether each appears in the texts the summary was written from;
- :func:`find_references`: back-references ("as mentioned above", "如上所述").

Every false-positive filter is a named predicate in :mod:`ctxkeep.extract.filters`.
"""

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
from ctxkeep.extract.references import Reference, find_references
from ctxkeep.extract.survival import Survival, Verdict, constraint_survives, judge_survival
from ctxkeep.extract.user_text import rejection_feedback

__all__ = [
    "Constraint",
    "ConstraintKind",
    "Identifier",
    "IdentifierCandidate",
    "Reference",
    "SourceIndex",
    "Survival",
    "Verdict",
    "constraint_survives",
    "extract_constraints",
    "extract_identifiers",
    "extract_instructions",
    "find_references",
    "identifier_candidates",
    "judge_survival",
    "rejection_feedback",
]
