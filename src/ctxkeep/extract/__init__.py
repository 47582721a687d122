"""Pure text extractors (English and Chinese) for the auditor and the guard.

- :func:`extract_constraints` / :func:`constraint_survives`: standing instructions in user
  text, and whether a summary still carries them (kept, reworded, lost);
- :func:`extract_identifiers` / :class:`SourceIndex`: hard identifiers in a summary, and
  whether each appears in the texts the summary was written from;
- :func:`find_references`: back-references ("as mentioned above", "如上所述").

Every false-positive filter is a named predicate in :mod:`ctxkeep.extract.filters`.
"""

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
from ctxkeep.extract.references import Reference, find_references

__all__ = [
    "Constraint",
    "ConstraintKind",
    "Identifier",
    "IdentifierCandidate",
    "Reference",
    "SourceIndex",
    "Survival",
    "constraint_survives",
    "extract_constraints",
    "extract_identifiers",
    "find_references",
    "identifier_candidates",
]
