"""Clauses of user text: where a standing instruction may start and where it must end.

A constraint is a whole clause, never a word or a fragment. Three things make a naive
comma split cut instructions into pieces, each seen on real or bundled logs:

- brackets and quotes: ``get_forecast(city, days=3, retries=3)——我说过不要修改公共接口``
  was cut at the commas inside the call, leaving ``retries=3)——…`` as a "constraint";
  a break inside ``()``, ``[]``, ``{}``, ``（）``, ``「」``, ``“”``, ``"…"`` or a backtick span
  is no break;
- dashes: the Chinese ``——`` and a spaced English dash (``x — y``, ``x - y``) join two
  clauses (a statement and the instruction, or the instruction and its reason);
- fragments: ``Amounts must stay Decimal end to end, never float`` or ``Only run
  tests/a.py and tests/b.py, always``: the short tail (``never float``, ``always``) is an
  appendix of the clause before it, not a constraint of its own (see
  :func:`ctxkeep.extract.filters.is_fragment`).

Pasted text (code blocks, quoted tool output, JSON or log lines) is not the user's
instruction even inside a user message: :func:`pasted_spans` finds it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ctxkeep.extract._text import trimmed_span
from ctxkeep.extract.filters import is_machine_line, is_quoted_output_line

__all__ = ["clause_spans", "pasted_spans", "sentences", "strip_lead"]

# A clause break: a comma, semicolon or colon (ASCII before a space, or Chinese), a
# Chinese dash, or a spaced English dash. A semicolon does not end the sentence: "never
# commit to main; push to fix/x instead" is one instruction with two clauses.
_CLAUSE_BREAK = re.compile(r"[,;:](?=\s)|[，；：]|—{1,2}|\s[-–—]{1,2}\s")
_OPENERS = "([{（【「『“《"
_CLOSERS = ")]}）】」』”》"
_TOGGLES = '"`'
_NESTING = re.compile("[" + re.escape(_OPENERS + _CLOSERS + _TOGGLES) + "]")


def _nested_at(text: str, start: int, end: int) -> list[bool]:
    """For each offset in ``[start, end)``: inside brackets or quotes (at depth > 0)?

    A bracket or quote counts as inside when it opens, as outside when it closes.
    """
    depth = 0
    toggled = dict.fromkeys(_TOGGLES, False)
    nested = False
    inside: list[bool] = []
    for match in _NESTING.finditer(text, start, end):
        # the characters since the last bracket or quote are as nested as it left them
        inside.extend([nested] * (match.start() - start - len(inside)))
        char = match.group()
        if char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth = max(0, depth - 1)
        else:
            toggled[char] = not toggled[char]
        nested = depth > 0 or any(toggled.values())
        inside.append(nested)
    inside.extend([nested] * (end - start - len(inside)))
    return inside


def clause_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The clauses of the sentence ``text[start:end]``: trimmed spans, never empty.

    Breaks inside brackets or quotes are ignored; an unclosed bracket or quote keeps the
    rest of the sentence in one clause (a longer clause, never a fragment).
    """
    breaks = list(_CLAUSE_BREAK.finditer(text, start, end))
    if not breaks:
        s, e = trimmed_span(text, start, end)
        return [(s, e)] if s < e else []
    nested: list[bool] | None = None
    if _NESTING.search(text, start, end) is not None:
        nested = _nested_at(text, start, end)
    spans: list[tuple[int, int]] = []
    position = start
    for match in breaks:
        if nested is not None and nested[match.start() - start]:
            continue
        s, e = trimmed_span(text, position, match.start())
        if s < e:
            spans.append((s, e))
        position = match.end()
    s, e = trimmed_span(text, position, end)
    if s < e:
        spans.append((s, e))
    return spans


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？]|\n")
_LIST_START = re.compile(r"[ \t]*(?:[-*•·>#]|\d{1,3}[.)、])")


def _wrapped(text: str, line_start: int, newline: int) -> bool:
    """Whether the line break at ``newline`` only wraps a sentence: the next line goes on
    in lower case, or a bracket opened on this line is still open ("(provider must stay
    no-egress;⏎ `doctor` keeps reporting no_egress=true)")."""
    following = text[newline + 1 : newline + 200]
    if not following.strip() or _LIST_START.match(following):
        return False
    line = text[line_start:newline]
    if line.count("(") > line.count(")"):
        return True
    first = following.lstrip()[:1]
    return first.isascii() and first.islower()


_ABBREVIATION = re.compile(r"(?<![\w.])(?:e\.g|i\.e|etc|vs|cf|incl|approx|esp)$", re.IGNORECASE)
# How far before a full stop an abbreviation can start: the longest one ("approx"), and
# the line break that ``$`` may stand before. Searching only there keeps a long text's
# full stops from each searching all of the text before them.
_ABBREVIATION_REACH = 7


def sentences(text: str) -> list[tuple[int, int]]:
    """Spans of the sentences of user text (terminator excluded, trimmed, never empty).

    A sentence ends at ``. ! ?`` before a space (not after "e.g", "i.e", "etc", "vs"), at
    a Chinese terminator, or at a line break that does not merely wrap it (see
    :func:`_wrapped`): a wrapped instruction is still one sentence, never two fragments.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    line_start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.group() == "\n":
            wrapped = _wrapped(text, line_start, match.start())
            line_start = match.end()
            if wrapped:
                continue
        elif match.group() == "." and _ABBREVIATION.search(
            text, max(0, match.start() - _ABBREVIATION_REACH), match.start()
        ):
            continue  # "Use the actual text, e.g. …" goes on
        s, e = trimmed_span(text, start, match.start())
        if s < e:
            spans.append((s, e))
        start = match.end()
    s, e = trimmed_span(text, start, len(text))
    if s < e:
        spans.append((s, e))
    return spans


# Words that join a clause to the one before it: they are no part of the instruction.
_LEAD = re.compile(
    r"(?:(?:and|but|or|plus|so|then|also)\b[\s,:;]*|(?:并且|而且|另外|还有|并|而|但是|但)[\s，：]*)+",
    re.IGNORECASE,
)


def strip_lead(text: str, start: int, end: int) -> int:
    """``start`` moved past the conjunctions that open ``text[start:end]``.

    ``and the CSV must show them exactly`` -> ``the CSV must show them exactly``; a
    clause that is nothing but conjunctions keeps its start.
    """
    match = _LEAD.match(text, start, end)
    if match is None or match.end() >= end:
        return start
    return match.end()


_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)


def pasted_spans(text: str) -> Iterator[tuple[int, int]]:
    """Spans of ``text`` that the user pasted rather than wrote, in order.

    Fenced code blocks (an unclosed fence runs to the end), lines quoted as output
    (:func:`~ctxkeep.extract.filters.is_quoted_output_line`) and machine lines such as
    JSON records, log lines and stack frames
    (:func:`~ctxkeep.extract.filters.is_machine_line`).
    """
    fenced = "```" in text or "~~~" in text  # most user text: no line to search
    fences = [m.start() for m in _FENCE.finditer(text)] if fenced else []
    blocks: list[tuple[int, int]] = []
    for i in range(0, len(fences), 2):
        close = text.find("\n", fences[i + 1]) if i + 1 < len(fences) else -1
        blocks.append((fences[i], len(text) if close == -1 else close))
    block_index = 0
    line_start = 0
    length = len(text)
    while line_start < length:
        newline = text.find("\n", line_start)
        line_end = length if newline == -1 else newline
        while block_index < len(blocks) and blocks[block_index][1] < line_start:
            block_index += 1
        if block_index < len(blocks) and blocks[block_index][0] <= line_start:
            yield line_start, line_end
        else:
            line = text[line_start:line_end]
            if is_quoted_output_line(line) or is_machine_line(line):
                yield line_start, line_end
        line_start = line_end + 1
