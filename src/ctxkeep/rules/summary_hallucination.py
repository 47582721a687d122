"""CK002 summary-hallucination."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from ctxkeep.base.findings import Confidence, Finding, ItemDetail, Severity
from ctxkeep.extract import Identifier, SourceIndex, canonical, extract_identifiers
from ctxkeep.extract._text import words_of
from ctxkeep.extract.claims import (
    NEAR_MISS,
    Claim,
    Grounding,
    Support,
    extract_claims,
    ground_claim,
)
from ctxkeep.log.model import EventKind
from ctxkeep.rules.base import CompactionRule
from ctxkeep.rules.context import CompactionView

__all__ = [
    "SummaryHallucination",
    "UnsupportedItem",
    "count_of_edits_contradicted",
    "edits_per_file",
    "invented_in",
    "invented_items",
    "is_compactor_accounting",
    "is_file_of_a_named_module",
    "is_harness_instruction_file",
    "is_harness_tool",
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
    not invent it, and it appears nowhere in the replaced history. The real logs in
    benchmarks/ show it redacted too (``/Users/alex/.REDACTED.jsonl``): the same pointer.
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
    return sources.contains(dotted, "symbol")


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


# Instruction files each harness loads into its system prompt without writing them to
# the session log.
_INSTRUCTION_FILES = frozenset(
    {
        "claude.md",
        "claude.local.md",
        "agents.md",
        "agent.md",
        "gemini.md",
        ".cursorrules",
        ".windsurfrules",
        "copilot-instructions.md",
        "conventions.md",
    }
)


def is_harness_instruction_file(identifier: Identifier, summary: str) -> bool:
    """``CLAUDE.md`` / ``AGENTS.md``: the instruction file the harness puts in the system
    prompt, which the session log never records.

    Claude Code summary (entireio/cli, benchmarks/real-logs): "Per the CLAUDE.md
    instructions, commits should only be created when asked": the file was in the
    model's context from the start and appears nowhere in the log.
    """
    if identifier.kind != "path":
        return False
    name = identifier.text.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name in _INSTRUCTION_FILES


# The tools each harness offers in its system prompt, which the log does not record
# unless one is called: a summary may name one that was offered and never used.
_HARNESS_TOOLS = words_of(
    "Agent Bash BashOutput Edit EnterPlanMode ExitPlanMode Glob Grep KillShell LS "
    "ListMcpResourcesTool MultiEdit NotebookEdit NotebookRead Read ReadMcpResourceTool "
    "SlashCommand Skill Task TaskCreate TaskGet TaskList TaskOutput TaskStop TaskUpdate "
    "TodoRead TodoWrite WebFetch WebSearch Write AskUserQuestion shell apply_patch "
    "update_plan view_image web_search exec_command write_stdin read_file list_dir "
    "grep_files"
)


def is_harness_tool(name: str) -> bool:
    """``WebSearch`` / ``apply_patch``: a tool the harness offers (Claude Code, Codex), in
    its system prompt, which the log does not record unless the tool is called."""
    return name in _HARNESS_TOOLS


# The accounting line that opens every summary ctxkeep's compactor writes
# (compactor/summary.py): "[ctxkeep] 32 earlier messages (1654 bytes) were compacted
# away; ..." or, when room is short, "[ctxkeep] 62 messages compacted; ...".
_COMPACTOR_HEADER = re.compile(r"^\[ctxkeep\] \d+ (?:earlier )?messages? ", re.MULTILINE)


def is_compactor_accounting(claim: Claim, summary: str) -> bool:
    """The count in ctxkeep's own compactor's header line, which its code computed from
    what it dropped: no source states it, and no model could have invented it.

    Real case: ``ctxkeep bench quality`` reported one invented item in every compaction
    ctxkeep wrote: "32 earlier messages", the header's own count.
    """
    if claim.kind != "count":
        return False
    line_start = summary.rfind("\n", 0, claim.start) + 1
    header = _COMPACTOR_HEADER.match(summary, line_start)
    return header is not None and claim.end <= header.end() + 1


def _is_harness_text(identifier: Identifier, summary: str) -> bool:
    return (
        is_transcript_pointer(identifier, summary)
        or is_summary_section_heading(identifier, summary)
        or is_harness_instruction_file(identifier, summary)
    )


@dataclass(frozen=True, slots=True)
class UnsupportedItem:
    """An item or claim of a summary that its sources do not bear out, with its offsets
    in the summary, how sure the rule is, and why."""

    text: str
    kind: str
    start: int
    end: int
    confidence: Confidence
    why: str
    doubts: tuple[str, ...] = ()

    def detail(self) -> ItemDetail:
        return ItemDetail(self.text, self.kind, self.confidence, self.why, (self.start, self.end))


_ABSENT = "in no source, in any spelling"
# Verdicts that are doubtful by themselves: the item is low confidence whatever else.
_DOUBTFUL = (Support.NEAR, Support.UNCOUNTED)
# The log begins mid-session: what the first summary in it was written from is partly
# before line 1, so its items cannot be judged; they are reported at ``info``.
_MID_SESSION = "the log begins mid-session (history before line 1 is missing)"
_REDACTED = "redacted text (REDACTED) in the sources may be it"
_HARNESS_TOOL = "a tool the harness offers in its unlogged system prompt"


def _hidden_reasons(view: CompactionView) -> list[str]:
    """What the log cannot show about this compaction's sources, as reasons that lower
    the confidence of every item it did not find."""
    reasons = []
    if view.history_before_file:
        reasons.append(_MID_SESSION)
    if view.previous_opaque:
        reasons.append("the previous summary is encrypted: what it carried cannot be read")
    hooks = view.unrecorded_hooks
    if hooks:
        names = ", ".join(sorted({h.name or h.event or "hook" for h in hooks}))
        ran = f"a {names} hook ran" if len(hooks) == 1 else f"{len(hooks)} hooks ({names}) ran"
        reasons.append(f"{ran} before it whose output is not in the log")
    calls = view.unanswered_calls
    if calls:
        names = ", ".join(sorted({c.tool_name or "tool" for c in calls}))
        calls_have = (
            f"a {names} call has" if len(calls) == 1 else f"{len(calls)} calls ({names}) have"
        )
        reasons.append(f"{calls_have} no result in the log")
    return reasons


def _judged(
    text: str,
    kind: str,
    span: tuple[int, int],
    why: str,
    doubts: list[str],
    *,
    doubtful: bool = False,
) -> UnsupportedItem:
    """An item with its reason. It is LOW when its verdict is ``doubtful`` by itself (a
    near miss, an uncounted count, a tidied quote: the reason says so) or when anything
    hidden could explain it (``doubts``, added to the reason)."""
    if not doubts and not doubtful:
        return UnsupportedItem(text, kind, *span, Confidence.HIGH, why)
    reason = f"{why}; but {'; '.join(doubts)}" if doubts else why
    all_doubts = ((why,) if doubtful else ()) + tuple(doubts)
    return UnsupportedItem(text, kind, *span, Confidence.LOW, reason, all_doubts)


def _unsupported_identifiers(
    summary: str, sources: SourceIndex, hidden: list[str]
) -> Iterator[UnsupportedItem]:
    found: dict[tuple[str, str], bool] = {}  # a summary repeats its items
    for identifier in extract_identifiers(summary):
        if _is_harness_text(identifier, summary):
            continue
        key = (identifier.text, identifier.kind)
        if key not in found:
            found[key] = sources.contains(*key) or is_file_of_a_named_module(identifier, sources)
        if found[key]:
            continue
        doubts = ([_REDACTED] if sources.could_hide(identifier.text) else []) + hidden
        if identifier.kind == "symbol" and is_harness_tool(identifier.text):
            doubts.insert(0, _HARNESS_TOOL)
        span = (identifier.start, identifier.end)
        yield _judged(identifier.text, identifier.kind, span, _ABSENT, doubts)


# Claude Code tools that change a file, and the input key that names it.
_EDIT_TOOLS = {"Edit": "file_path", "MultiEdit": "file_path", "Write": "file_path"}
# Nouns of a count of changes made to one file: "(5 places)", "3 edits in a.go".
_EDIT_NOUNS = words_of(
    "place places change changes edit edits spot spots location locations occurrence occurrences"
)
_PATH_NEAR = re.compile(r"[\w./-]+\.[A-Za-z]{1,8}\b")


def edits_per_file(view: CompactionView) -> dict[str, int]:
    """Successful edits the summary replaced, per edited file's name: one per ``Edit``
    or ``Write`` call, one per entry of a ``MultiEdit``; a call whose result is an error
    edited nothing."""
    failed = {e.call_id for e in view.shadowed if e.kind is EventKind.TOOL_RESULT and e.is_error}
    counts: dict[str, int] = {}
    for event in view.shadowed:
        key = _EDIT_TOOLS.get(event.tool_name or "")
        if event.kind is not EventKind.TOOL_CALL or key is None or event.call_id in failed:
            continue
        try:
            arguments = json.loads(event.text)
        except ValueError:
            continue
        path = arguments.get(key) if isinstance(arguments, dict) else None
        if not isinstance(path, str):
            continue
        edits = arguments.get("edits")
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        counts[name] = counts.get(name, 0) + (len(edits) if isinstance(edits, list) else 1)
    return counts


def _file_of(summary: str, claim: Claim) -> str | None:
    """The file name a count of changes is about: the nearest file name on its line."""
    line_start = summary.rfind("\n", 0, claim.start) + 1
    line_end = summary.find("\n", claim.end)
    line = summary[line_start : len(summary) if line_end < 0 else line_end]
    at = claim.start - line_start
    names = [(abs(m.start() - at), m.group()) for m in _PATH_NEAR.finditer(line)]
    names = [(d, n) for d, n in names if not claim.text.startswith(n)]
    return min(names)[1].rsplit("/", 1)[-1] if names else None


def count_of_edits_contradicted(
    claim: Claim, summary: str, edits: dict[str, int], has_previous: bool
) -> Grounding | None:
    """A count of changes to a file ("`workflow_test.go` (5 places)") against the edits
    the log shows on that file: what the agent did outweighs what it said it would do.

    Claude Code summary (entireio/cli, benchmarks/real-logs): "`…workflow_test.go` (5
    places)" where the agent had planned "5 places" and then made six successful Edit
    calls on the file. None when the claim is no such count, the file was not edited in
    the replaced history, or the figures agree; a smaller figure in the log is not judged
    after an earlier summary (edits before it are not in the window).
    """
    if claim.kind != "count" or claim.noun not in _EDIT_NOUNS:
        return None
    name = _file_of(summary, claim)
    done = edits.get(name or "")
    claimed = int(claim.values[0])
    if not done or done == claimed or (done < claimed and has_previous):
        return None
    detail = f"the log shows {done} successful edit(s) of {name}"
    if abs(done - claimed) <= NEAR_MISS:
        return Grounding(Support.NEAR, f"within 2 of what was done: {detail}")
    return Grounding(Support.CONTRADICTED, f"contradicted: {detail}")


def _unsupported_claims(
    summary: str,
    sources: SourceIndex,
    hidden: list[str],
    edits_done: Callable[[], dict[str, int]],
    has_previous: bool,
) -> Iterator[UnsupportedItem]:
    claims = [c for c in extract_claims(summary) if not is_compactor_accounting(c, summary)]
    # the edits are only counted when a count of changes asks for them
    wanted = any(c.kind == "count" and c.noun in _EDIT_NOUNS for c in claims)
    edits = edits_done() if wanted else {}
    judged = [
        (
            claim,
            count_of_edits_contradicted(claim, summary, edits, has_previous)
            or ground_claim(claim, sources, summary),
        )
        for claim in claims
    ]
    # a claim the summary states twice is one claim, borne out if one place bears it out
    # (the list after its first mention, say), reported once otherwise
    supported = {c.key for c, g in judged if g.support is Support.SUPPORTED}
    reported: set[str] = set()
    for claim, grounding in judged:
        if claim.key in supported or claim.key in reported:
            continue
        reported.add(claim.key)
        why = grounding.detail
        doubts = list(hidden)
        if claim.kind == "tool" and is_harness_tool(claim.text):
            doubts.insert(0, _HARNESS_TOOL)
        if claim.kind == "quote" and sources.could_hide(claim.text):
            doubts.insert(0, _REDACTED)
        doubtful = grounding.support in _DOUBTFUL
        span = (claim.start, claim.end)
        yield _judged(claim.text, claim.kind, span, why, doubts, doubtful=doubtful)


def invented_items(view: CompactionView) -> list[UnsupportedItem]:
    """Items and claims of the summary its sources do not bear out, in order of position;
    each with its confidence and why.

    One entry per item (the first spelling: ``initializeSession(`` and
    ``initializeSession`` are one item, :func:`~ctxkeep.extract.canonical`); a claim inside
    an unsupported item is not judged apart (the line of a file no source names).
    """
    summary = view.summary
    if summary is None:
        return []
    return invented_in(
        summary,
        view.source_index(),
        _hidden_reasons(view),
        edits_done=lambda: edits_per_file(view),
        has_previous=bool(view.compaction.previous_summary),
    )


def invented_in(
    summary: str,
    sources: SourceIndex,
    hidden: Sequence[str] = (),
    *,
    edits_done: Callable[[], dict[str, int]] = dict,
    has_previous: bool = False,
) -> list[UnsupportedItem]:
    """:func:`invented_items` for a summary and its sources given as text: ``hidden`` are
    what the sources cannot show (each lowers every unfound item's confidence),
    ``edits_done`` the successful edits per file name (no log: none). The compactor's
    repair judges a model's summary with it (:mod:`ctxkeep.compactor.repair`)."""
    doubts = list(hidden)
    found: dict[str, UnsupportedItem] = {}
    for item in _unsupported_identifiers(summary, sources, doubts):
        found.setdefault(f"{item.kind} {canonical(item.text, item.kind)}", item)
    spans = [(i.start, i.end) for i in found.values()]
    for item in _unsupported_claims(summary, sources, doubts, edits_done, has_previous):
        inside = any(start <= item.start and item.end <= end for start, end in spans)
        if not inside:
            found.setdefault(f"{item.kind} {item.text.lower()}", item)
    return sorted(found.values(), key=lambda i: (i.start, i.end))


def _message(index: int, items: list[UnsupportedItem], high: bool) -> str:
    n = len(items)
    noun = f"{n} item{'s' if n != 1 else ''}"
    if high:
        return (
            f"the summary of compaction {index} names {noun} found nowhere in the history "
            "it replaced or the previous summary"
        )
    doubts = sorted({doubt for item in items for doubt in item.doubts})
    return (
        f"the summary of compaction {index} names {noun} its sources do not show "
        f"(low confidence: {'; '.join(doubts)})"
    )


class SummaryHallucination(CompactionRule):
    """The summary states an item or a claim that nothing it was written from bears out.

    An invented file path, version, port, environment variable, code symbol, URL, hash or
    issue number is worse than a lost one: the agent acts on it with the same confidence
    as on real history. So is an invented claim: a count with its noun ("12 existing
    tests"), a line number or range ("line 913", "file.go:40-55"), a comparison ("complexity
    8 > max 6"), a percentage, a duration, a quoted error message, a tool name. Sources are
    the events the summary replaced (tool results included: most paths and symbols enter
    through tool output), tool results a micro-compaction cleared before it, the events
    kept beside it, the previous summary (items inherited from it are not invented) and a
    manual compaction's instructions.

    Items are compared under one identity (docs/judgement-items.md): ``parse_header/2``
    is Elixir's ``defp parse_header(``, ``1.21.3`` is ``go1.21.3``, ``total_added_lines``
    is ``TotalAddedLines``, ``src/a.py`` is ``/work/app/src/a.py``, an elided
    ``/var/.../T/x`` is found when its pieces are; a qualified name stays qualified
    (``Map.fetch/2`` is not found because ``fetch`` is). A count is borne out by the same
    number near the same noun, or by the list of that many items that follows it in the
    summary; "7 locations" followed by a list of 6 is contradicted.

    Not items (named filters, each with the real case that needed it): the harness's own
    pointer to the full transcript (:func:`is_transcript_pointer`), the section labels of
    a summary template such as OpenHands' ``USER_CONTEXT:``
    (:func:`is_summary_section_heading`), an instruction file the harness loads unlogged
    such as ``CLAUDE.md`` (:func:`is_harness_instruction_file`), and a Python file whose
    module the sources name (:func:`is_file_of_a_named_module`), the count in the header
    line of a summary ctxkeep's compactor wrote (:func:`is_compactor_accounting`); the
    extractor's own
    filters drop dates, numbered lists, a bare ``#N`` with no issue in sight and other
    false positives of the patterns.

    Every item carries a confidence and a reason (``items_detail`` in JSON). High: absent
    in every spelling and nothing hidden could explain it; these make an ``error``
    finding. Low, reported in a second finding at ``warn``: a hook ran before the
    compaction whose output could have reached the model and is not recorded (not
    Claude Code's internal callbacks, not a ``Stop`` hook the user answered, not
    ctxkeep's own hooks when the restore ledger is read), a tool call before the
    compaction has no result,
    the sources hold redacted text that may be the item, the figure is within {near_miss} of one
    the sources give, a count no source states (it may have been counted), a quote not
    verbatim, or a tool the harness offers unlogged. When the log begins mid-session, the
    first summary in it was written partly from history before line 1: its items are
    listed at ``info``, as nothing can be judged.

    Example: the replaced history only ever mentions ``src/parser.py``, port 8080 and
    "Found 3 files"; the summary says "the fix lives in ``src/lexer.py``, the server runs
    on port 8443, and 7 files changed".
    """

    id = "CK002"
    name = "summary-hallucination"
    level = Severity.ERROR
    level_note = (
        "error for high-confidence items, warn for low-confidence ones (info when the log "
        "begins mid-session)"
    )
    summary = "the summary names an item or states a claim that no source bears out"

    near_miss = NEAR_MISS
    """A figure this close to one the sources give is a near miss, of low confidence (the
    claims' grounding, ``ctxkeep.extract.claims``, applies it)."""

    def check_compaction(self, view: CompactionView) -> Iterator[Finding]:
        summary = view.summary
        if summary is None or not view.has_history:
            return  # CK009 / CK010 say why there is nothing to audit
        items = invented_items(view)
        high = [i for i in items if i.confidence is Confidence.HIGH]
        low = [i for i in items if i.confidence is Confidence.LOW]
        # Before line 1 of a log that begins mid-session lies what the first summary
        # was written from: its items cannot be judged, only listed (info).
        low_level = Severity.INFO if view.history_before_file else Severity.WARN
        c = view.compaction
        for group, is_high in ((high, True), (low, False)):
            if not group:
                continue
            yield self.finding(
                view.session,
                _message(c.index, group, is_high),
                level=Severity.ERROR if is_high else low_level,
                compaction=c.index,
                seqs=[c.end_seq or c.start_seq],
                lines=[c.summary_line],
                items=[i.text for i in group],
                confidence=Confidence.HIGH if is_high else Confidence.LOW,
                items_detail=[i.detail() for i in group],
            )
