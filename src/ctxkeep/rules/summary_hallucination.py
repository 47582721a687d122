"""CK002 summary-hallucination."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ctxkeep.extract import Identifier, SourceIndex, extract_identifiers
from ctxkeep.findings import Confidence, Finding, Severity
from ctxkeep.rules.base import Rule
from ctxkeep.rules.context import CompactionView, RuleContext

__all__ = [
    "SummaryHallucination",
    "invented_items",
    "is_file_of_a_named_module",
    "is_summary_section_heading",
    "is_transcript_pointer",
    "module_name_of",
]

# How far before a path the word "transcript" may stand for the path to be the pointer.
_POINTER_REACH = 200
_TRANSCRIPT_WORD = re.compile(r"transcript|conversation log|完整记录|对话记录", re.IGNORECASE)


def is_transcript_pointer(identifier: Identifier, summary: str) -> bool:
    """The harness's own pointer to the full transcript, which no source holds.

    Claude Code ends every summary with "... read the full transcript at:
    /home/u/.claude/projects/<cwd>/<uuid>.jsonl": the harness appends it, the model did
    not invent it, and it appears nowhere in the replaced history.
    """
    if identifier.kind != "path" or not identifier.text.endswith(".jsonl"):
        return False
    before = summary[max(0, identifier.start - _POINTER_REACH) : identifier.start]
    return _TRANSCRIPT_WORD.search(before) is not None


_HEADING_END = re.compile(r"\s*:")
_LINE_START = re.compile(r"(?:^|\n)[ \t]*(?:[-*#>]+[ \t]*)?$")


_SOURCE_ROOTS = ("./", "src/", "lib/")


def module_name_of(path: str) -> str | None:
    """``src/pkg/errors.py`` -> ``pkg.errors``; None unless a dotted module name results."""
    if not path.endswith(".py"):
        return None
    rest = path[: -len(".py")]
    for root in _SOURCE_ROOTS:
        if rest.startswith(root):
            rest = rest[len(root) :]
    if rest.endswith("/__init__"):
        rest = rest[: -len("/__init__")]
    dotted = rest.replace("/", ".")
    parts = dotted.split(".")
    if len(parts) < 2 or not all(p.isidentifier() for p in parts):
        return None
    return dotted


def is_file_of_a_named_module(identifier: Identifier, sources: SourceIndex) -> bool:
    """A Python file named by path in the summary and by module in the sources.

    Claude Code (tinyparse example): the sources only ever show ``from tinyparse.errors
    import ParseError``; the summary writes ``src/tinyparse/errors.py``. The same item,
    spelt as a file instead of a module: not invented.
    """
    if identifier.kind != "path":
        return False
    dotted = module_name_of(identifier.text)
    if dotted is None:
        return False
    return sources.contains(Identifier(dotted, "symbol", 0, len(dotted)))


def _is_harness_text(identifier: Identifier, summary: str) -> bool:
    return is_transcript_pointer(identifier, summary) or is_summary_section_heading(
        identifier, summary
    )


def is_summary_section_heading(identifier: Identifier, summary: str) -> bool:
    """A section label of the harness's summary template, not a code constant.

    OpenHands' condenser writes its summary under fixed labels, ``USER_CONTEXT:``,
    ``CODE_STATE:``, ``VERSION_CONTROL_STATUS:`` ...: upper-case words with underscores
    at the start of a line followed by a colon, which the symbol pattern takes for
    constants that no source holds.
    """
    if identifier.kind != "symbol" or not identifier.text.isupper():
        return False
    if not _HEADING_END.match(summary, identifier.end):
        return False
    return _LINE_START.search(summary[max(0, identifier.start - 40) : identifier.start]) is not None


def invented_items(view: CompactionView) -> list[Identifier]:
    """Identifiers of the summary found in none of its sources, first occurrence each."""
    summary = view.summary
    if summary is None:
        return []
    invented: dict[str, Identifier] = {}
    sources = view.source_index()
    for identifier in extract_identifiers(summary):
        if identifier.text in invented or _is_harness_text(identifier, summary):
            continue
        if not sources.contains(identifier) and not is_file_of_a_named_module(identifier, sources):
            invented[identifier.text] = identifier
    return list(invented.values())


class SummaryHallucination(Rule):
    """The summary states a specific item that appears nowhere in what it was written from.

    An invented file path, version, port, environment variable, code symbol, URL, hash or
    issue number is worse than a lost one: the agent acts on it with the same confidence
    as on real history. Sources are the events the summary replaced (tool results
    included: most paths and symbols enter through tool output), the events kept beside
    it, the previous summary (identifiers inherited from it are not invented) and a
    manual compaction's instructions.

    Not invented (named filters, each with the real case that needed it): the harness's
    own pointer to the full transcript (:func:`is_transcript_pointer`), the section
    labels of a summary template such as OpenHands' ``USER_CONTEXT:``
    (:func:`is_summary_section_heading`), and a Python file whose module the sources
    name (``src/pkg/errors.py`` for ``pkg.errors``, :func:`is_file_of_a_named_module`).
    Paths, C keywords, numbered lists, dates and other false positives of the patterns
    themselves are dropped by the extractor's filters.

    Where the harness ran hooks whose output it did not record (Claude Code keeps only a
    ``hook_progress`` line), an item may have come from that output: such findings carry
    low confidence and say so, instead of being dropped or stated as certain.

    Example: the replaced history only ever mentions ``src/parser.py`` and port 8080; the
    summary says "the fix lives in ``src/lexer.py`` and the server runs on port 8443".
    """

    id = "CK002"
    name = "summary-hallucination"
    level = Severity.ERROR
    summary = "the summary names a path, version, port, URL, hash, issue or symbol no source holds"

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for view in ctx.views():
            summary = view.summary
            if summary is None or not view.has_history:
                continue  # CK009 / CK010 say why there is nothing to audit
            invented = [i.text for i in invented_items(view)]
            if not invented:
                continue
            n = len(invented)
            index = view.compaction.index
            message = (
                f"the summary of compaction {index} names {n} item{'s' if n != 1 else ''} "
                "found nowhere in the history it replaced or the previous summary"
            )
            confidence = Confidence.HIGH
            if ctx.session.hooks_unrecorded:
                confidence = Confidence.LOW
                message += (
                    " (low confidence: this session ran hooks whose output the harness did "
                    "not record, and the items may have come from there)"
                )
            yield self.finding(
                ctx,
                message,
                compaction=index,
                seqs=[view.compaction.end_seq or view.compaction.start_seq],
                lines=[view.compaction.summary_line],
                items=invented,
                confidence=confidence,
            )
