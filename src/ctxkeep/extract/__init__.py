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

The names are re-exported lazily, as in the ``ctxkeep`` package (:mod:`ctxkeep._lazy`):
each module is imported on the first use of one of its names, so a user of one extractor
does not load the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ctxkeep._lazy import attach

if TYPE_CHECKING:
    from ctxkeep.extract.claims import Claim as Claim
    from ctxkeep.extract.claims import Grounding as Grounding
    from ctxkeep.extract.claims import Support as Support
    from ctxkeep.extract.claims import extract_claims as extract_claims
    from ctxkeep.extract.claims import ground_claim as ground_claim
    from ctxkeep.extract.constraints import Constraint as Constraint
    from ctxkeep.extract.constraints import ConstraintKind as ConstraintKind
    from ctxkeep.extract.constraints import extract_constraints as extract_constraints
    from ctxkeep.extract.constraints import extract_instructions as extract_instructions
    from ctxkeep.extract.identifiers import Identifier as Identifier
    from ctxkeep.extract.identifiers import IdentifierCandidate as IdentifierCandidate
    from ctxkeep.extract.identifiers import SourceIndex as SourceIndex
    from ctxkeep.extract.identifiers import extract_identifiers as extract_identifiers
    from ctxkeep.extract.identifiers import identifier_candidates as identifier_candidates
    from ctxkeep.extract.identity import canonical as canonical
    from ctxkeep.extract.identity import mentions as mentions
    from ctxkeep.extract.identity import same_item as same_item
    from ctxkeep.extract.identity import spellings as spellings
    from ctxkeep.extract.references import Reference as Reference
    from ctxkeep.extract.references import find_references as find_references
    from ctxkeep.extract.references import resolved_in_summary as resolved_in_summary
    from ctxkeep.extract.references import unresolved_references as unresolved_references
    from ctxkeep.extract.survival import Survival as Survival
    from ctxkeep.extract.survival import Verdict as Verdict
    from ctxkeep.extract.survival import constraint_survives as constraint_survives
    from ctxkeep.extract.survival import judge_survival as judge_survival
    from ctxkeep.extract.user_text import rejection_feedback as rejection_feedback

__getattr__, __dir__ = attach(__name__, __file__)
