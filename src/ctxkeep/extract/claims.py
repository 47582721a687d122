"""Claims a summary makes besides naming things: counts, line numbers, comparisons,
percentages, durations, quoted messages and tool names, and whether the sources bear
each one out.

What real summaries invent is mostly not a path: "12 existing tests" where the log shows
ten, "line 913" for a function the log shows at 952, "complexity 8 > max 6" from no
linter output, a quoted compiler error nobody saw, "the `FetchDocs` tool" that does not
exist. :func:`extract_claims` finds them in a summary (small: regexes are fine);
:func:`ground_claim` looks each up in a :class:`~ctxkeep.extract.identity.SourceIndex`
(large: ``str.find`` only, then a small window around each hit).

Precision first: a claim is extracted only when its shape is unambiguous (a number with
its noun, "line N", a quote of several words), and one that cannot be judged is not
reported. How each kind is grounded is in docs/judgement-items.md.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum

from ctxkeep.extract._text import normalise_word, words_of
from ctxkeep.extract.identity import ALNUM, NOTHING, NUMBER, WORD, SourceIndex

__all__ = ["CLAIM_KINDS", "Claim", "Grounding", "Support", "extract_claims", "ground_claim"]

CLAIM_KINDS = ("count", "line", "comparison", "percent", "duration", "quote", "tool")

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
# How close a figure must be to a grounded one for the claim to be a near miss (the
# issue's rule: a count or range within 2 of what the sources show is low confidence).
NEAR_MISS = 2


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim as it stands in the summary: its text, kind and offsets, the figures it
    states (``values``) and, for counts and comparisons, the noun they are about."""

    text: str
    kind: str
    start: int
    end: int
    values: tuple[float, ...] = ()
    noun: str = ""

    @property
    def key(self) -> str:
        """What the claim states, for telling two mentions of it apart: a count by its
        figure and noun ("6 main changes" and "all 6 changes" are one claim), any other
        claim by its text."""
        if self.kind == "count":
            return f"count {self.values[0]:g} {_stem(self.noun)}"
        return f"{self.kind} {self.text.lower()}"


class Support(Enum):
    """What the sources (or the summary's own list) say about a claim."""

    SUPPORTED = "supported"
    NEAR = "near"  # a figure within NEAR_MISS of the claim's is grounded
    UNCOUNTED = "uncounted"  # a count no source states: the model may have counted it
    CONTRADICTED = "contradicted"  # the summary's own list has another length
    UNSUPPORTED = "unsupported"


@dataclass(frozen=True, slots=True)
class Grounding:
    """The verdict on one claim, and the reason, in words, when it is not supported."""

    support: Support
    detail: str = ""


_NO_SOURCE = "no source states it"


# --------------------------------------------------------------------------- patterns

# Every figure of the summary is found once (a digit is rare in prose: the scan is fast),
# and each kind of claim is a small pattern tried at the figure, before or after it.
_FIGURE = re.compile(r"\d+(?:\.\d+)?")
# Characters that make a figure part of something else when they stand before it: a
# version, a path, an id, a time ("v1.2", "a/2", "#12", "10:30").
_NOT_BEFORE_COUNT = frozenset(string.ascii_letters + string.digits + "_.,/:#$-")
_NOT_BEFORE_FIGURE = frozenset(string.ascii_letters + string.digits + "_.")
# The words after a figure, among which a count's noun.
_COUNT_AFTER = re.compile(r"[ \t]+([a-z]{2,}(?:[ -][a-z]{2,}){0,3})\b", re.IGNORECASE)
_WORD_COUNT = re.compile(
    r"\b(" + "|".join(_NUMBER_WORDS) + r")[ \t]+([a-z]{2,}(?:[ -][a-z]{2,}){0,3})\b",
    re.IGNORECASE,
)
# Chinese: "3 个文件", "12个测试" (a measure word, then the noun's first characters).
_MEASURE_WORDS = "个项处条次份位种"
_COUNT_ZH_AFTER = re.compile(rf"\s*[{_MEASURE_WORDS}]\s*([\u3400-\u9fff]{{2}})")
# Nouns that make the number something else (a duration, a size, a time of day, a line)
_NOT_COUNT_NOUNS = words_of(
    "ms millisecond milliseconds sec secs second seconds min mins minute minutes hour "
    "hours hr hrs day days week weeks month months year years byte bytes kb mb gb tb kib "
    "mib gib percent pm am line lines times time char chars character characters token "
    "tokens x px pt em of and or to by in at on for from with than the"
)
# A line number: "line 913", "lines 40-55", "L913", "第 95 行", "file.go:952-963".
_LINE_WORD = re.compile(r"(?:\blines?\s?|\bL|第\s*)$", re.IGNORECASE)
_LINE_FILE_BEFORE = re.compile(r"(?<![\w/.-])[\w.-]+\.[A-Za-z]{1,10}:$")
_LINE_RANGE = re.compile(r"(?:\s*(?:-|–|to|through)\s*L?(\d{1,6}))?\b")
_LINE_RANGE_ZH = re.compile(r"\s*(?:[-~到至]\s*(\d{1,6})\s*)?行")
_FILE_RANGE = re.compile(r"(?:-(\d{1,6}))?\b")
# A comparison: "complexity 8 > max 6", "latency 120 exceeds the limit of 100".
_COMPARISON_AFTER = re.compile(
    r"\s*(?:>=|<=|≥|≤|>|<|exceeds|over|above|below|under)\s*(?:the\s+)?"
    r"(?:max(?:imum)?|min(?:imum)?|limit|threshold|allowed)?(?:\s+of)?\s*(\d+(?:\.\d+)?)\b",
    re.IGNORECASE,
)
_COMPARISON_NOUN = re.compile(r"\b([a-z][a-z_-]{2,30})\s+$", re.IGNORECASE)
_PERCENT_SIGN = re.compile(r"\s?(?:%|percent\b)")
_DURATION_UNITS = {
    "ms": 0.001, "millisecond": 0.001, "milliseconds": 0.001,
    "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
    "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0,
    "h": 3600.0, "hr": 3600.0, "hrs": 3600.0, "hour": 3600.0, "hours": 3600.0,
}  # fmt: skip
_DURATION_UNIT = re.compile(
    r"(?:\s|-)?(milliseconds?|ms|seconds?|secs?|minutes?|mins?|hours?|hrs?)\b|(ms|s|h)\b"
)
# "the `WebFetch` tool", "the FetchDocs tool", "tool `run_tests`", "mcp__linear__get_issue":
# a name that is code-shaped (backticks, CamelCase of two words or more, snake_case, mcp__)
_TOOL = re.compile(
    r"`(\w+)`\s+tool\b"
    r"|\bthe\s+(mcp__\w+|[A-Z][a-z]+(?:[A-Z][a-z]+)+|[a-z]+(?:_[a-z]+)+)\s+tool\b"
    r"|\btool\s+`(\w+)`"
    r"|\b(mcp__\w+)"
)


def _number(token: str) -> int:
    return _NUMBER_WORDS.get(token.lower(), 0) or int(token)


# Words that end a noun phrase before its noun: the number counts nothing after them.
_NOT_IN_NOUN_PHRASE = words_of(
    "then but so if when while after before is are was were be been has have had not no "
    "it that which who where also only just still again"
)
# Words that end in "s" and are no plural noun.
_NOT_PLURAL = words_of(
    "was has is does this thus its plus yes as us bus gas across always towards "
    "afterwards besides perhaps sometimes whereas unless various previous serious obvious "
    "upwards downwards backwards forwards nowadays"
)


def _count_noun(words: str) -> str | None:
    """The plural noun a count is about: the last of the (up to four) words after the
    number that ends in ``s`` before a word that does not ("5 merge conflicts" ->
    conflicts); None when no plural noun follows ("2 deep", "6 conflicted")."""
    noun = None
    for word in re.split(r"[ -]", words.lower()):
        plural = word.endswith("s") and not word.endswith(("ss", "us", "ous", "is"))
        if len(word) >= 3 and plural and word not in _NOT_PLURAL:
            noun = word
        elif noun is not None:
            break
        elif word in _NOT_COUNT_NOUNS or word in _NOT_IN_NOUN_PHRASE:
            return None  # "9443 with requests", "503 then succeeds": no noun phrase
    return noun


def _count_at(summary: str, value: int, start: int, words_at: int) -> Claim | None:
    """A count of ``value`` whose words begin at ``words_at`` ("12 existing tests")."""
    match = _COUNT_AFTER.match(summary, words_at) if words_at > start else None
    if match is None:
        match = _COUNT_AFTER.match(summary, words_at)
    if match is None or value < 2:
        return None
    words = match.group(1)
    noun = _count_noun(words)
    if noun is None or noun in _NOT_COUNT_NOUNS:
        return None
    end = match.start(1) + words.lower().find(noun) + len(noun)
    return Claim(summary[start:end], "count", start, end, (float(value),), noun)


def _word_counts(summary: str) -> list[Claim]:
    """Counts written in words ("Five more conflicts"); only where a number word occurs."""
    tokens = {token.strip(".,;:()*`'\"") for token in summary.lower().split()}
    if tokens.isdisjoint(_NUMBER_WORDS):
        return []
    out = []
    for m in _WORD_COUNT.finditer(summary):
        if m.start() and summary[m.start() - 1] in _NOT_BEFORE_COUNT:
            continue
        claim = _count_at(summary, _NUMBER_WORDS[m.group(1).lower()], m.start(), m.end(1))
        if claim is not None:
            out.append(claim)
    return out


def _line_at(summary: str, m: re.Match[str]) -> Claim | None:
    """A line number or range at the figure ``m``: "line 913", "lines 40-55", "L913",
    "第 95 行", "file.go:952-963"."""
    start, end = m.span()
    window = summary[max(0, start - 80) : start]
    before = _LINE_WORD.search(window, max(0, len(window) - 8))
    if before is not None:
        zh = before.group().startswith("第")
        after = (_LINE_RANGE_ZH if zh else _LINE_RANGE).match(summary, end)
        if after is None:
            return None
    else:
        before = _LINE_FILE_BEFORE.search(window) if window.endswith(":") else None
        if before is None:
            return None
        after = _FILE_RANGE.match(summary, end)
        if after is None:
            return None
    begin = start - (len(window) - before.start())
    values = (float(m.group()),) + ((float(after.group(1)),) if after.group(1) else ())
    return Claim(summary[begin : after.end()], "line", begin, after.end(), values)


def _comparison_at(summary: str, m: re.Match[str]) -> Claim | None:
    """ "complexity 8 > max 6": a noun, the figure, a comparator and a second figure."""
    after = _COMPARISON_AFTER.match(summary, m.end())
    if after is None:
        return None
    window_start = max(0, m.start() - 40)
    noun = _COMPARISON_NOUN.search(summary, window_start, m.start())
    if noun is None:
        return None
    values = (float(m.group()), float(after.group(1)))
    start = noun.start()
    return Claim(summary[start : after.end()], "comparison", start, after.end(), values,
                 noun.group(1).lower())  # fmt: skip


def _unit_at(summary: str, m: re.Match[str]) -> Claim | None:
    """A percentage ("85%") or a duration ("10 seconds", "5-second", "67.714s")."""
    start, end = m.span()
    percent = _PERCENT_SIGN.match(summary, end)
    if percent is not None and len(m.group().split(".")[0]) <= 3:
        return Claim(summary[start : percent.end()], "percent", start, percent.end(),
                     (float(m.group()),))  # fmt: skip
    unit_match = _DURATION_UNIT.match(summary, end)
    if unit_match is None:
        return None
    unit = (unit_match.group(1) or unit_match.group(2)).lower()
    seconds = float(m.group()) * _DURATION_UNITS[unit]
    stop = unit_match.end()
    return Claim(summary[start:stop], "duration", start, stop, (seconds,), unit)


def _figure_claims(summary: str) -> list[Claim]:
    """The claims built on a figure, most specific first at each: a line number, a
    comparison, a percentage or duration, a count (English or Chinese)."""
    out = []
    for m in _FIGURE.finditer(summary):
        before = summary[m.start() - 1] if m.start() else " "
        claim = _line_at(summary, m)
        if claim is None and before not in _NOT_BEFORE_FIGURE:
            claim = _comparison_at(summary, m) or _unit_at(summary, m)
        if claim is None and before not in _NOT_BEFORE_COUNT and "." not in m.group():
            claim = _count_at(summary, int(m.group()), m.start(), m.end())
            zh = None if claim or summary.isascii() else _COUNT_ZH_AFTER.match(summary, m.end())
            if zh is not None and int(m.group()) >= 2:
                claim = Claim(summary[m.start() : zh.end()], "count", m.start(), zh.end(),
                              (float(m.group()),), zh.group(1))  # fmt: skip
        if claim is not None:
            out.append(claim)
    return out


def _quoted_spans(summary: str) -> list[tuple[int, int, bool]]:
    """``(start, end, backticked)`` of each quoted span, in one pass along each line: a
    delimiter opens a span that only its own closer ends, so quotes nested in a quote
    (a backticked name inside a quoted message) and the text between two quotes are never
    taken for spans; spans inside a fenced code block are left out."""
    spans: list[tuple[int, int, bool]] = []
    offset = 0
    fenced = False
    for line in summary.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            spans.extend((offset + a, offset + b, tick) for a, b, tick in _line_spans(line))
        offset += len(line) + 1
    return spans


_OPENERS = {'"': '"', "\u201c": "\u201d", "`": "`"}
_DELIMITER = re.compile('["\u201c`]')


def _line_spans(line: str) -> Iterator[tuple[int, int, bool]]:
    position = 0
    while (hit := _DELIMITER.search(line, position)) is not None:
        at = hit.start()
        char = line[at]
        end = _closing(line, _OPENERS[char], at) if _opens(line, at) else -1
        if end < 0:
            position = at + 1
            continue
        yield at + 1, end, char == "`"
        position = end + 1


def _opens(line: str, at: int) -> bool:
    """A straight double quote opens a quote only at a word's start ("the "-" key": the
    second one is no opener)."""
    if line[at] != '"':
        return True
    before = line[at - 1] if at else " "
    after = line[at + 1] if at + 1 < len(line) else " "
    return not before.isalnum() and not after.isspace()


def _closing(line: str, closer: str, at: int) -> int:
    """The closer of the quote opened at ``at``: for a straight double quote, one that is
    not preceded by a space (which would open a nested quote) or followed by a letter."""
    end = line.find(closer, at + 1)
    if closer != '"':
        return end
    while end >= 0:
        after = line[end + 1] if end + 1 < len(line) else " "
        if not line[end - 1].isspace() and not after.isalnum():
            return end
        end = line.find(closer, end + 1)
    return -1


# Signs that a backticked span is code or a command line, not a quoted message.
_CODE_SIGNS = re.compile(r"[(=$|/\\{}<>]|&&|(?:^|\s)--?\w|\w\.\w|^\S+$")


def _is_code(body: str) -> bool:
    """`go test -run X ./integration/...`, `mise run fmt && mise run lint`,
    `entire/<commit-hash>`, `f(x)`: code, whose spelling the identifiers check."""
    return _CODE_SIGNS.search(body.strip()) is not None


def _quotes(summary: str) -> list[Claim]:
    """Quoted messages: several words between quotes ("failed to update branch
    reference: ... is a directory"); a backticked span needs four words and no call
    parentheses, as code spans are mostly expressions."""
    out = []
    for start, end, backticked in _quoted_spans(summary):
        body = summary[start:end]
        words = re.findall(r"[A-Za-z]{2,}", body)
        if len(body) < 8 or len(words) < (4 if backticked else 3):
            continue
        if backticked and _is_code(body):
            continue
        out.append(Claim(body, "quote", start, end))
    return out


def _tools(summary: str) -> list[Claim]:
    if "tool" not in summary and "mcp__" not in summary:
        return []
    out = []
    for m in _TOOL.finditer(summary):
        name = next(g for g in m.groups() if g is not None)
        start = summary.index(name, m.start())
        out.append(Claim(name, "tool", start, start + len(name)))
    return out


def extract_claims(summary: str) -> list[Claim]:
    """The claims of ``summary`` in order of position; of two that overlap, the one found
    first stands (a figure's own claim before a count in words; a quote may hold any)."""
    found = [*_figure_claims(summary), *_word_counts(summary), *_tools(summary)]
    kept: list[Claim] = []
    for claim in found:
        if not any(k.start < claim.end and claim.start < k.end for k in kept):
            kept.append(claim)
    kept.extend(_quotes(summary))
    return sorted(kept, key=lambda c: (c.start, c.end))


# --------------------------------------------------------------------------- grounding


def ground_claim(claim: Claim, sources: SourceIndex, summary: str) -> Grounding:
    """Whether the sources (or, for a count, the summary's own list) support ``claim``."""
    if claim.kind == "count":
        return _ground_count(claim, sources, summary)
    if claim.kind == "line":
        return _ground_figures(claim, sources)
    if claim.kind == "percent":
        return _ground_figures(claim, sources)
    if claim.kind == "duration":
        return _ground_duration(claim, sources)
    if claim.kind == "comparison":
        return _ground_comparison(claim, sources)
    if claim.kind == "quote":
        return _ground_quote(claim, sources)
    return _ground_tool(claim, sources)


def _figure(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def _stem(noun: str) -> str:
    """A prefix that every form of ``noun`` starts with in running text: ``changes`` ->
    ``chang`` (change, changed), ``entries`` -> ``entr`` (entry, entries). Real case: the
    compactor's summary quoted "the cache holds 245 entries" verbatim, and the count was
    not found because the plural normalised to ``entry``, which ``entries`` does not
    start with."""
    stem = normalise_word(noun)
    return stem[:-1] if stem.endswith(("e", "y")) and len(stem) > 4 else stem


def _count_in_sources(value: int, noun: str, sources: SourceIndex) -> bool:
    """``value`` (digits or word) then the noun, with at most three words between them on
    the same line ("7 files", "12 existing unit tests", "Found 7 files"); or the noun then
    a colon or equals sign and the value ("tests: 12", "files=7").

    Each answer is kept with the sources: a summary's counts of one noun ask for the
    same near figures (nine real logs: 115 questions, 60 different; with the lazy
    clause patterns of :func:`_clause_found`, their audit 4.15 -> 3.76 G instructions,
    benchmarks/instructions.py)."""
    question = ("count", value, noun)
    answer = sources.answers.get(question)
    if answer is None:
        answer = sources.answers[question] = _count_stated(value, noun, sources)
    return answer


def _count_stated(value: int, noun: str, sources: SourceIndex) -> bool:
    """:func:`_count_in_sources`, worked out."""
    stem = re.escape(_stem(noun))
    if noun.isascii():
        after = re.compile(rf"[ \t]+(?:[A-Za-z-]+[ \t]+){{0,3}}?{stem}", re.IGNORECASE)
    else:
        after = re.compile(rf"[ \t]*[{_MEASURE_WORDS}]?[ \t]*{stem}")
    before = re.compile(rf"{stem}[a-z]*(?:[ \t]+[a-z]+)?[ \t]*[:=：][ \t]*$", re.IGNORECASE)
    tokens = [str(value)] + [w for w, n in _NUMBER_WORDS.items() if n == value]
    for token in tokens:
        for text, index, start, end in sources.find_all(token, ignore_case=token.isalpha()):
            stop = index + len(token)
            if after.match(text, stop, min(end, stop + 60)) or before.search(
                text, max(start, index - 30), index
            ):
                return True
    return False


_SENTENCE_BREAK = re.compile(r"[.;!?](?:\s|$)|\s[-\u2014\u2013]\s")
_BULLET_LINE = re.compile(r"[ \t]*(?:[-*•]|\d{1,3}[.)])[ \t]+\S")


def _list_after(summary: str, end: int) -> int | None:
    """The length of the list that follows a count in the summary: an inline list after
    a colon ("3 files: a.py, b.py and c.py") or the bullets of the next lines; None when
    no list follows."""
    line_end = summary.find("\n", end)
    line_end = len(summary) if line_end < 0 else line_end
    rest = summary[end:line_end]
    colon = rest.find(":")
    # the list must belong to the count: its colon ends the count's own phrase ("5
    # conflicts in the merge of a into b:"), not a later sentence ("... The pattern was:")
    if colon < 0 or _SENTENCE_BREAK.search(rest, 0, colon) or len(rest[:colon].split()) > 12:
        return None
    if rest[colon + 1 :].strip():
        items = re.split(r",\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+", rest[colon + 1 :].strip())
        items = [i for i in items if i.strip(" .;")]
        return len(items) if len(items) >= 2 else None
    lines = summary[line_end + 1 :].split("\n")
    indent: int | None = None
    count = 0
    for line in lines:
        if not line.strip():
            if count:
                break
            continue
        if _BULLET_LINE.match(line) is None:
            if count and len(line) - len(line.lstrip()) > (indent or 0):
                continue  # a continuation of the item above
            break
        depth = len(line) - len(line.lstrip())
        if indent is None:
            indent = depth
        if depth == indent:
            count += 1
        elif depth < indent:
            break
    return count or None


_LIST_LEAD = frozenset(" \t-*•\"'{[#>|")


def _listed_in_sources(value: int, noun: str, sources: SourceIndex) -> bool:
    """One source text has exactly ``value`` lines that begin with the noun: a list of
    that many, which the model counted (``"thread_id": ...`` ten times in a JSON array
    for "10 threads", "- Task 1" .. "- Task 5" for "5 tasks")."""
    per_text: dict[int, int] = {}
    stem = _stem(noun)
    for text, index, start, _ in sources.find_all(
        stem, ignore_case=True, edges=ALNUM, right=NOTHING
    ):
        line_start = max(start, text.rfind("\n", start, index) + 1)
        if all(c in _LIST_LEAD for c in text[line_start:index]):
            per_text[start] = per_text.get(start, 0) + 1
    return value in per_text.values()


def _ground_count(claim: Claim, sources: SourceIndex, summary: str) -> Grounding:
    value = int(claim.values[0])
    listed = _list_after(summary, claim.end)
    if listed == value or _count_in_sources(value, claim.noun, sources):
        return Grounding(Support.SUPPORTED)
    if listed is None and _listed_in_sources(value, claim.noun, sources):
        return Grounding(Support.SUPPORTED)
    if listed is not None:
        return Grounding(
            Support.CONTRADICTED, f"contradicted: the summary's own list after it has {listed}"
        )
    for delta in range(1, NEAR_MISS + 1):
        for near in (value - delta, value + delta):
            # "1 test" is no figure for "three tests": a near count is a count too
            if near >= 2 and _count_in_sources(near, claim.noun, sources):
                return Grounding(
                    Support.NEAR, f"within 2 of a figure the sources give for it ({near})"
                )
    return Grounding(Support.UNCOUNTED, "a count no source states (the model may have counted it)")


# How a line number stands in tool output, around the number: Claude Code's Read
# (``   913→``), ``grep -n`` and compilers (``:913:``, ``file:913``, ``913:`` at a line
# start), prose (``line 913``, ``lines 911-913``), GitHub (``L913``), ``cat -n`` (``913\t``).
_LINE_BEFORE = re.compile(r"(?:\blines?\s|\bL|#L|[:\-]|(?:^|\n)\s*)$", re.IGNORECASE)
_LINE_AFTER = re.compile(r"\u2192|\t|:")
# A percentage after its figure: ``85%``, ``85 %``, ``85 percent``.
_PERCENT_AFTER = re.compile(r"\s?(?:%|percent\b)")


def _line_shown(text: str, index: int, end: int, start: int) -> bool:
    before = text[max(start, index - 8) : index]
    return _LINE_BEFORE.search(before) is not None or _LINE_AFTER.match(text, end) is not None


def _percent_shown(text: str, index: int, end: int, start: int) -> bool:
    return _PERCENT_AFTER.match(text, end) is not None


# Whether the occurrence ``text[index:end]`` of a figure (in the source text that starts at
# ``start``) stands as the claim's kind shows it.
_Shown = Callable[[str, int, int, int], bool]
_SHOWN: dict[str, _Shown] = {"line": _line_shown, "percent": _percent_shown}


def _ground_figures(claim: Claim, sources: SourceIndex) -> Grounding:
    """Every figure of a line claim (or a percentage) as tool output shows it."""
    shown = _SHOWN[claim.kind]
    missing = [v for v in claim.values if not _figure_found(v, sources, shown)]
    if not missing:
        return Grounding(Support.SUPPORTED)
    if claim.kind == "percent" and _rounded_percent_found(claim.values[0], sources):
        return Grounding(Support.SUPPORTED)
    for value in missing:
        for delta in range(1, NEAR_MISS + 1):
            for near in (value - delta, value + delta):
                if near > 0 and _figure_found(near, sources, shown):
                    return Grounding(
                        Support.NEAR, f"within 2 of a figure the sources show ({_figure(near)})"
                    )
    return Grounding(Support.UNSUPPORTED, _NO_SOURCE)


def _figure_found(value: float, sources: SourceIndex, shown: _Shown) -> bool:
    """One scan for the figure, then a look at a few characters around each hit."""
    figure = _figure(value)
    for text, index, start, _ in sources.find_all(figure, edges=NUMBER, right=NUMBER | ALNUM):
        if shown(text, index, index + len(figure), start):
            return True
    return False


def _rounded_percent_found(value: float, sources: SourceIndex) -> bool:
    """85% in the summary, 85.3% in the sources."""
    whole = str(int(value))
    for text, index, _, end in sources.find_all(whole, edges=NUMBER | WORD, right=NOTHING):
        match = re.match(r"\.(\d+)\s?%", text[index + len(whole) : min(end, index + 12)])
        if match and round(float(f"{whole}.{match.group(1)}")) == round(value):
            return True
    return False


def _ground_duration(claim: Claim, sources: SourceIndex) -> Grounding:
    """The same span of time in any unit spelling: ``10 seconds``, ``10s``, ``10000ms``,
    Go's ``10 * time.Second``; a figure with decimals as written (``67.714s``)."""
    written = _FIGURE.match(claim.text)
    if written and any(
        _duration_spelled(written.group(), unit, sources)
        for unit, factor in _DURATION_UNITS.items()
        if _DURATION_UNITS[claim.noun] == factor
    ):
        return Grounding(Support.SUPPORTED)  # "0.30s" as written, in any spelling of s
    seconds = claim.values[0]
    for unit, factor in _DURATION_UNITS.items():
        amount = round(seconds / factor, 6)
        if (
            amount > 0
            and amount == int(amount)
            and _duration_spelled(_figure(amount), unit, sources)
        ):
            return Grounding(Support.SUPPORTED)
    return Grounding(Support.UNSUPPORTED, _NO_SOURCE)


_GO_UNITS = {"ms": "millisecond", "s": "second", "min": "minute", "h": "hour"}


def _duration_spelled(n: str, unit: str, sources: SourceIndex) -> bool:
    """``n`` then ``unit`` (``10 seconds``, ``10s``, Go's ``10 * time.Second``), or a
    figure with decimals that rounds to a whole ``n`` (``41.208s`` for "41s")."""
    go_unit = _GO_UNITS.get(unit)
    for text, index, _, end in sources.find_all(
        n, ignore_case=True, edges=NUMBER | WORD, right=NOTHING
    ):
        after = text[index + len(n) : min(end, index + len(n) + 20)]
        if after[:1].isdigit():
            continue
        if re.match(rf"(?:\s|-)?{unit}\b", after):
            return True
        if go_unit and re.match(rf"\s*\*\s*time\.{go_unit}\b", after):
            return True
        decimals = re.match(rf"\.(\d+)\s?{unit}\b", after)
        if decimals and "." not in n and round(float(f"{n}.{decimals.group(1)}")) == int(n):
            return True
    return False


def _ground_comparison(claim: Claim, sources: SourceIndex) -> Grounding:
    """Both figures of "complexity 8 > max 6" within a line of each other in one text."""
    first, second = (_figure(v) for v in claim.values)
    for text, index, start, end in sources.find_all(first, edges=NUMBER | WORD):
        window = text[max(start, index - 120) : min(end, index + 120)]
        if re.search(rf"(?<![\d.]){re.escape(second)}(?![\d])", window.replace(first, " ", 1)):
            return Grounding(Support.SUPPORTED)
    return Grounding(Support.UNSUPPORTED, _NO_SOURCE)


# A quote is looked up clause by clause (a clause ends at punctuation or a shell operator:
# "a && b" quotes two commands run apart), each clause as its
# words in order with any markup, quotes or spacing between them ("`omitempty` has no
# effect" is the quote "Omitempty has no effect").
_CLAUSE_SPLIT = re.compile(r"[.,;:!?()\[\]{}\u2026\n]+|\s-\s|&&|\|\|?")
_QUOTE_WORD = re.compile(r"[a-z0-9_]+")
# An editor's note inside a quote ("[extensive logs]", "[showed output ...]"): not the
# quoted text, so not looked up.
_EDITORIAL = re.compile(r"\[[^\]]*\s[^\]]*\]")
# Occurrences of a clause's anchor word examined before giving up (a common anchor in
# megabytes of sources).
_MAX_ANCHORS = 400
# Share of a quote's characters that must be found for it to be a quote (a typo fixed
# or a word dropped does not make it invented), and below which it is not a near miss.
_QUOTE_FOUND, _QUOTE_NEAR = 0.85, 0.5


def _clause_found(words: list[str], sources: SourceIndex) -> bool:
    """``words`` in this order in one source text, separated only by non-word text."""
    anchor = max(words, key=len)
    hits = itertools.islice(sources.find_all(anchor, ignore_case=True, edges=ALNUM), _MAX_ANCHORS)
    first = next(hits, None)
    if first is None:
        return False  # compiling a clause's pattern costs more than looking up its anchor
    pattern = re.compile(r"[\W_]{1,8}".join(re.escape(w) for w in words), re.IGNORECASE)
    reach = sum(len(w) + 8 for w in words)
    return any(
        pattern.search(text, max(start, index - reach), min(end, index + reach))
        for text, index, start, end in itertools.chain([first], hits)
    )


def _ground_quote(claim: Claim, sources: SourceIndex) -> Grounding:
    """A quote as text, case, quotes, spacing, markup and the editor's ``[...]``/``...``
    aside: its clauses found in the sources for most of its length. Half of it found is a
    near miss (a quote tidied up or cut together); less, none."""
    body = _EDITORIAL.sub(" \u2026 ", claim.text.lower().replace("\u2019", "'"))
    clauses = [_QUOTE_WORD.findall(c) for c in _CLAUSE_SPLIT.split(body)]
    clauses = [c for c in clauses if sum(map(len, c)) >= 3]
    total = sum(len(w) for c in clauses for w in c)
    if not total:
        return Grounding(Support.SUPPORTED)
    found = 0
    for words in clauses:
        if _clause_found(words, sources):
            found += sum(map(len, words))
    if found >= _QUOTE_FOUND * total:
        return Grounding(Support.SUPPORTED)
    if found >= _QUOTE_NEAR * total:
        share = round(100 * found / total)
        return Grounding(Support.NEAR, f"not verbatim: {share}% of it is in the sources")
    return Grounding(Support.UNSUPPORTED, _NO_SOURCE)


def _ground_tool(claim: Claim, sources: SourceIndex) -> Grounding:
    if sources.holds(claim.text):
        return Grounding(Support.SUPPORTED)
    return Grounding(Support.UNSUPPORTED, _NO_SOURCE)
